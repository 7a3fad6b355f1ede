//go:build !wardenslim

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/warden-dev/warden/backend/assemble"
	"os"
	"strings"

	"github.com/warden-dev/warden/backend/checkpoint"
	"github.com/warden-dev/warden/backend/store"
)

func undoCommand() command {
	return command{
		name:    "undo",
		summary: "restore what one call changed: 'undo CALL_ID' (or --restore-to MESSAGE --session ID)",
		run:     runUndo,
	}
}

func runUndo(ctx context.Context, argv []string, io stdio) int {
	fs := flag.NewFlagSet("warden undo", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "Usage: warden undo CALL_ID [--force] [--json] [--db PATH]")
		fmt.Fprintln(io.err, "       warden undo --restore-to MESSAGE_ID --session ID [--force]")
		fmt.Fprintln(io.err, "\nRestores the files a call changed (the call id 'warden tool' prints, or one")
		fmt.Fprintln(io.err, "'warden changes' lists) to their state before it. An undo is itself a change")
		fmt.Fprintln(io.err, "set with its own id: undo that to redo. When a later call (or you) changed the")
		fmt.Fprintln(io.err, "same files, it says so and asks on a terminal; elsewhere it refuses unless --force.")
		fmt.Fprintln(io.err, "\nFlags:")
		fs.PrintDefaults()
	}
	db := addDBFlag(fs)
	force := fs.Bool("force", false, "overwrite files changed again after the call")
	asJSON := fs.Bool("json", false, "print what was restored as JSON")
	restoreTo := fs.String("restore-to", "", "restore the workspace to its state at this message `ID` instead")
	session := fs.String("session", "", "the session of --restore-to")
	id, rest := "", argv
	if len(argv) > 0 && !strings.HasPrefix(argv[0], "-") {
		id, rest = argv[0], argv[1:]
	}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if id == "" && fs.NArg() > 0 {
		id = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "warden undo: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	switch {
	case *restoreTo != "" && (id != "" || *session == ""):
		fmt.Fprintln(io.err, "warden undo: --restore-to takes --session and no call id")
		return 2
	case *restoreTo == "" && id == "":
		fs.Usage()
		return 2
	}
	st, opened, err := assemble.OpenStore(ctx, db.path, store.MustExist())
	path := opened.Path
	if err != nil {
		fmt.Fprintf(io.err, "warden undo: %v\n", err)
		return 1
	}
	defer st.Close()
	tr, err := newTracker(st, path, nil)
	if err != nil {
		fmt.Fprintf(io.err, "warden undo: %v\n", err)
		return 1
	}
	do := func(force bool) (checkpoint.Outcome, error) {
		if *restoreTo != "" {
			return tr.RestoreTo(ctx, *session, *restoreTo, force)
		}
		return tr.Undo(ctx, id, force)
	}
	out, err := do(*force)
	var ce *checkpoint.ConflictError
	if errors.As(err, &ce) && askYes(io, ce.Error()+"\nOverwrite them? [y/N] ") {
		out, err = do(true)
	}
	if err != nil {
		fmt.Fprintf(io.err, "warden undo: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return 0
	}
	what := "call " + id
	if *restoreTo != "" {
		what = "the workspace to message " + *restoreTo
	}
	if out.ID == "" {
		fmt.Fprintf(io.out, "Nothing to restore for %s: its files are already as they were.\n", what)
		return 0
	}
	fmt.Fprintf(io.out, "Restored %s: %d file(s) put back.\n", what, len(out.Restored))
	for _, p := range out.Restored {
		fmt.Fprintf(io.out, "  %s\n", p)
	}
	if len(out.Forced) > 0 {
		fmt.Fprintf(io.out, "Overwrote later changes to: %s\n", strings.Join(out.Forced, ", "))
	}
	if out.ID != "" {
		fmt.Fprintf(io.out, "This undo is %s; 'warden undo %s' reverts it.\n", out.ID, out.ID)
	}
	return 0
}

// askYes asks on a terminal; anywhere else (a pipe, a test, CI) the answer
// is no, so a conflict is refused rather than guessed.
func askYes(io stdio, question string) bool {
	f, ok := io.in.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(st, null) {
		return false // a character device, but no one typing
	}
	fmt.Fprint(io.err, question)
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.EqualFold(strings.TrimSpace(line), "y") || strings.EqualFold(strings.TrimSpace(line), "yes")
}
