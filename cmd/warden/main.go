// Command warden is the headless CLI of Warden: the same engine as the
// desktop app, without a window. It needs cgo (the store is the C SQLite).
//
// It owns parsing flags and printing results, nothing else: every command
// that decides or runs a call (policy check, tool, run, serve) opens its
// graph with backend/assemble, so a decision explained here is the one the
// window and `warden serve` make; audit and mcp open the store through
// assemble's one database-path rule.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// stdio carries the streams a command uses, so tests can run commands
// in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one `warden <name>` subcommand. run returns the exit status.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, io stdio) int
}

// commands lists every subcommand this build runs (commands_full.go: all
// of them; slim.go: tool and version). Each lives in its own file.
func commands() []command {
	cmds := commandList()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	return cmds
}

func versionCommand() command {
	return command{
		name:    "version",
		summary: "print the version",
		run: func(_ context.Context, _ []string, io stdio) int {
			fmt.Fprintf(io.out, "warden %s\n", version)
			return 0
		},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "warden — the permission engine of the Warden coding agent, headless.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: warden <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'warden <command> --help' for a command's flags.")
}

func run(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 {
		usage(io.err)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(io.out)
		return 0
	case "--version", "-v":
		args[0] = "version"
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], io)
		}
	}
	fmt.Fprintf(io.err, "warden: unknown command %q\n\n", args[0])
	usage(io.err)
	return 2
}

func main() {
	// The slim build hands every command but its own to the full binary
	// before doing anything (slim.go); the full build runs them all.
	if code, done := delegate(os.Args); done {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}
