//go:build wardenslim

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/cmd/warden/internal/handover"
)

// The slim build is the `warden` a user runs (make cli, the package's
// /usr/bin/warden). It links only what one `warden tool` call is decided
// and run with — the same graph (backend/assemble's slim build), gate,
// stages, store and cage as every front end — so a one-shot call does not
// pay for loading and initialising the model SDKs, OpenTelemetry, the TUI
// and the web server. Every other command, and a tool call whose
// configuration needs a part it lacks (assemble.NotLinkedError), is handed
// whole to the full binary with exec: same arguments, same environment,
// same process id, before anything was opened. Package handover does that
// for the other commands before the rest of this binary initialises; what
// it leaves (no full binary to run) comes to delegate, which says why.

const fullName = handover.FullName

// commandList is what the slim build runs itself.
func commandList() []command {
	return []command{versionCommand(), toolCommand()}
}

// delegate execs the full binary for every command but the slim build's
// own: help and the command list too, which name every command.
func delegate(args []string) (int, bool) {
	if handover.Own(args) {
		return 0, false
	}
	return execFull(os.Stderr, args), true
}

// handOver runs the whole command in the full binary: the configuration
// asks for a part the slim build lacks.
func handOver(w io.Writer, nl *assemble.NotLinkedError) int {
	code := execFull(w, os.Args)
	fmt.Fprintf(w, "warden: (%v)\n", nl)
	return code
}

// execFull replaces this process with the full binary; it returns only on
// failure.
func execFull(w io.Writer, args []string) int {
	full, err := fullBinary()
	if err == nil {
		err = syscall.Exec(full, args, os.Environ())
	}
	fmt.Fprintf(w, "warden: %v\n", err)
	return 1
}

// fullBinary finds the full binary beside the running one.
func fullBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find %s: %w", fullName, err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", fmt.Errorf("find %s: %w", fullName, err)
	}
	p := filepath.Join(filepath.Dir(exe), fullName)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("this command needs %s, which is not an executable file at %s (reinstall Warden, or run make cli)", fullName, p)
	}
	return p, nil
}
