//go:build !wardenslim

package main

import (
	"fmt"
	"io"

	"github.com/warden-dev/warden/backend/assemble"
)

// commandList is every subcommand: the full build (`warden-full`, and
// `go build ./cmd/warden`) runs them all in process.
func commandList() []command {
	return []command{
		versionCommand(),
		policyCommand(),
		auditCommand(),
		toolCommand(),
		mcpCommand(),
		runCommand(),
		serveCommand(), tuiCommand(),
		changesCommand(), undoCommand(),
	}
}

// delegate: the full build runs every command itself.
func delegate([]string) (int, bool) { return 0, false }

// handOver is never reached in the full build (its graph links every
// part); were it, the command fails with the reason.
func handOver(w io.Writer, err *assemble.NotLinkedError) int {
	fmt.Fprintf(w, "warden tool: %v\n", err)
	return 1
}
