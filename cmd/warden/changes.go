//go:build !wardenslim

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/warden-dev/warden/backend/assemble"
	"io"
	"strings"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/checkpoint"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/termtext"
)

func changesCommand() command {
	return command{
		name:    "changes",
		summary: "list a session's calls with the files each changed: 'changes --session ID'",
		run:     runChanges,
	}
}

// newTracker is the checkpoint tracker over the store at dbPath: its shadow
// repositories live beside the database (checkpoint.RootFor). cage may be
// nil when no call runs.
func newTracker(st *store.Store, dbPath string, cage *sandbox.Cage) (*checkpoint.Tracker, error) {
	cfg := checkpoint.Config{Store: st, Root: func(ws string) string { return checkpoint.RootFor(dbPath, ws) }}
	if cage != nil {
		cfg.Caged = cage.Caged
	}
	return checkpoint.New(cfg)
}

func runChanges(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("warden changes", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "Usage: warden changes --session ID [--json] [--db PATH]")
		fmt.Fprintln(io.err, "\nLists the session's calls that changed files in the workspace, each with its")
		fmt.Fprintln(io.err, "change set (created, modified, deleted; sizes, content hashes, +/- lines).")
		fmt.Fprintln(io.err, "Undo one with 'warden undo CALL_ID'.")
		fmt.Fprintln(io.err, "\nFlags:")
		fs.PrintDefaults()
	}
	db := addDBFlag(fs)
	session := fs.String("session", "", "the session `ID` (see the desktop app, or what 'warden tool' prints)")
	asJSON := fs.Bool("json", false, "print the change sets as a JSON array (diffs included)")
	diffs := fs.Bool("diff", false, "print each file's diff")
	if code, ok := parseFlags(fs, args, io); !ok {
		return code
	}
	if *session == "" {
		fmt.Fprintln(io.err, "warden changes: --session is required")
		fs.Usage()
		return 2
	}
	st, opened, err := assemble.OpenStore(ctx, db.path, store.MustExist())
	path := opened.Path
	if err != nil {
		fmt.Fprintf(io.err, "warden changes: %v\n", err)
		return 1
	}
	defer st.Close()
	sess, err := st.Session(ctx, *session)
	if err != nil {
		fmt.Fprintf(io.err, "warden changes: session %s: %v\n", *session, err)
		return 1
	}
	tr, err := newTracker(st, path, nil)
	if err != nil {
		fmt.Fprintf(io.err, "warden changes: %v\n", err)
		return 1
	}
	list, err := tr.Changes(ctx, sess.ID)
	if err != nil {
		fmt.Fprintf(io.err, "warden changes: %v\n", err)
		return 1
	}
	if *asJSON {
		if list == nil {
			list = []checkpoint.Change{}
		}
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return 1
		}
		return 0
	}
	// File names and diffs are the model's bytes: shown, never obeyed.
	tw := termtext.NewWriter(io.out)
	printChanges(tw, sess, list, *diffs)
	_ = tw.Flush()
	return 0
}

func printChanges(w io.Writer, sess store.Session, list []checkpoint.Change, diffs bool) {
	fmt.Fprintf(w, "Session %s — workspace %s\n", sess.ID, sess.Workspace)
	fmt.Fprintln(w, "Checkpoints cover every file git would add: .gitignore'd files and Warden's excludes are not covered")
	fmt.Fprintf(w, "(by default %s).\n", strings.Join(checkpoint.DefaultExcludes, " "))
	if len(list) == 0 {
		fmt.Fprintln(w, "\nNo call changed a file in the workspace.")
		return
	}
	for _, c := range list {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%s  %s  %s\n", c.Time.Local().Format("2006-01-02 15:04:05"), changeLabel(c), checkpoint.Summary(c.WorkspaceChanged))
		if c.UndoneBy != "" {
			fmt.Fprintf(w, "  undone by %s\n", c.UndoneBy)
		}
		if c.Warning != nil {
			fmt.Fprintf(w, "  WARNING: allowed without a human, it deleted %d and truncated %d tracked files (%s)\n", c.Warning.Deleted, c.Warning.Truncated, c.Warning.Threshold)
		}
		if len(c.Skipped) > 0 {
			fmt.Fprintf(w, "  not covered (excluded): %s\n", strings.Join(c.Skipped, " "))
		}
		for _, f := range c.Files {
			hash := f.Hash
			if hash == "" {
				hash = f.OldHash
			}
			fmt.Fprintf(w, "  %-8s %s  (%s)  %s\n", f.Change, f.Path, checkpoint.FileStat(f), shortHash(hash))
			if diffs && f.Diff != "" {
				for _, l := range strings.Split(strings.TrimRight(f.Diff, "\n"), "\n") {
					fmt.Fprintf(w, "      %s\n", l)
				}
			}
		}
		if c.Omitted > 0 {
			fmt.Fprintf(w, "  ... and %d more files (not listed; undo covers them)\n", c.Omitted)
		}
	}
}

func changeLabel(c checkpoint.Change) string {
	switch c.Cause {
	case store.CauseUndo:
		return fmt.Sprintf("%s (undo of %s)", c.CallID, c.UndoOf)
	case store.CauseRestore:
		return fmt.Sprintf("%s (restore to message %s)", c.CallID, c.RestoreTo)
	case store.CauseOutside:
		return c.CallID + " (changed between calls: a monitor, you, or another program)"
	}
	s := c.CallID + " " + c.Tool
	if c.AllowedBy != "" {
		s += " (allowed by " + c.AllowedBy + ")"
	}
	return s
}

func shortHash(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}
