package tui

// Undo from the keys: u (or /undo) undoes the session's newest change set
// that is not undone — a call's, or an undo's, which makes it "undo this
// undo" — through the runtime's checkpoints, after a yes. A file changed
// again since is overwritten only after a second yes.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/reveal"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// changeSets are the session's change sets on screen, oldest first.
func (m *Model) changeSets() []store.WorkspaceChanged {
	var out []store.WorkspaceChanged
	for _, e := range m.events {
		if e.Kind != store.KindWorkspaceChanged {
			continue
		}
		var d store.WorkspaceChanged
		if json.Unmarshal(e.Data, &d) == nil {
			out = append(out, d)
		}
	}
	return out
}

// undoTarget is the newest change set that changed files and is not
// undone: an undo not itself undone undoes the change set it names.
func undoTarget(sets []store.WorkspaceChanged) (store.WorkspaceChanged, bool) {
	undone := map[string]bool{}
	for i := len(sets) - 1; i >= 0; i-- {
		s := sets[i]
		if undone[s.CallID] {
			continue
		}
		if len(s.Files)+s.Omitted > 0 && s.Error == "" {
			return s, true
		}
		if s.Cause == store.CauseUndo {
			undone[s.UndoOf] = true
		}
	}
	return store.WorkspaceChanged{}, false
}

// undoneSets are the change sets an undo (not itself undone) has undone.
func undoneSets(sets []store.WorkspaceChanged) map[string]bool {
	undone := map[string]bool{}
	for i := len(sets) - 1; i >= 0; i-- {
		if s := sets[i]; !undone[s.CallID] && s.Cause == store.CauseUndo {
			undone[s.UndoOf] = true
		}
	}
	return undone
}

// changeWhat names a change set in words: the call's tool and command, the
// undo of one, a restore, or changes between calls.
func (m *Model) changeWhat(c store.WorkspaceChanged) string {
	switch c.Cause {
	case store.CauseUndo:
		for _, s := range m.changeSets() {
			if s.CallID == c.UndoOf {
				return "the undo of " + m.changeWhat(s)
			}
		}
		return "an undo"
	case store.CauseRestore:
		return "the restore to an earlier message"
	case store.CauseOutside:
		return "the changes made between calls"
	}
	tool, args := m.callOf(c.CallID)
	tool = orDefault(tool, orDefault(c.Tool, "a call"))
	if sum := strings.ReplaceAll(callSummary(tool, args), "\n", "⏎"); sum != "" {
		return tool + " " + reveal.RevealText(clipMiddle(sum, 80))
	}
	return tool
}

// callOf finds a call's tool and arguments in the session's events.
func (m *Model) callOf(id string) (string, json.RawMessage) {
	for _, e := range m.events {
		switch e.Kind {
		case store.KindMessageAppended:
			var d store.MessageAppended
			if json.Unmarshal(e.Data, &d) == nil {
				for _, tc := range d.ToolCalls {
					if tc.ID == id {
						return tc.Name, tc.Args
					}
				}
			}
		case store.KindToolInvocationStarted:
			var d store.ToolInvocationStarted
			if json.Unmarshal(e.Data, &d) == nil && d.CallID == id {
				return d.Tool, d.Args
			}
		}
	}
	return "", nil
}

// filesText is "3 files: src/a.go (+12 −3), build/x (deleted) …", as the
// window's change summary says it.
func filesText(c store.WorkspaceChanged, shown int) string {
	n := len(c.Files) + c.Omitted
	var parts []string
	for i, f := range c.Files {
		if i == shown {
			break
		}
		parts = append(parts, reveal.RevealText(f.Path)+" ("+fileStat(f)+")")
	}
	more := ""
	if n > shown {
		more = " …"
	}
	word := "files"
	if n == 1 {
		word = "file"
	}
	return fmt.Sprintf("%d %s: %s%s", n, word, strings.Join(parts, ", "), more)
}

// fileStat is one file's change: "+12 −3", "new, +4 −0", "deleted".
func fileStat(f store.FileChange) string {
	s := fmt.Sprintf("+%d −%d", f.Added, f.Removed)
	if f.Binary {
		s = "binary"
	}
	switch f.Change {
	case "created":
		return "new, " + s
	case "deleted":
		return "deleted"
	}
	return s
}

// undoLast asks before undoing the newest change set.
func (m *Model) undoLast() {
	if m.busy {
		m.setNotice(true, "Undo waits until the turn ends (Ctrl+C stops it).")
		return
	}
	c, ok := undoTarget(m.changeSets())
	if !ok {
		m.setNotice(false, "Nothing to undo: no call of this session changed a file.")
		return
	}
	what := m.changeWhat(c)
	title, yes := "Undo this change?", "undo it"
	if c.Cause == store.CauseUndo {
		title, yes = "Undo this undo?", "undo the undo"
	}
	m.confirm = &confirmation{title: title, yes: yes, keep: "keep the files as they are",
		text: "Undo " + what + " — " + filesText(c, 3) + ". The files go back to how they were before it; " +
			"the undo is recorded and u undoes it again.",
		apply: func() error { return m.runUndo(c, what, false) }}
}

// runUndo undoes c; a conflict (files changed again since) asks again
// before overwriting them.
func (m *Model) runUndo(c store.WorkspaceChanged, what string, force bool) error {
	r, err := m.svc.UndoCall(m.ctx, runtime.UndoCallArgs{SessionID: m.sess.ID, CallID: c.CallID, Force: force})
	if err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	if !r.Done && r.Conflict != nil {
		paths := r.Conflict.Paths
		more := ""
		if len(paths) > 5 {
			paths, more = paths[:5], fmt.Sprintf(" and %d more", len(r.Conflict.Paths)-5)
		}
		m.confirm = &confirmation{title: "Overwrite later changes?", yes: "overwrite them", keep: "keep them (nothing is undone)",
			text: fmt.Sprintf("Since %s, these files changed again: %s%s. Undoing it overwrites those later changes. Overwrite them?",
				what, reveal.RevealText(strings.Join(paths, ", ")), more),
			apply: func() error { return m.runUndo(c, what, true) }}
		return nil
	}
	n := len(r.Restored)
	word := "files are"
	if n == 1 {
		word = "file is"
	}
	list := r.Restored
	if len(list) > 3 {
		list = append(list[:3:3], "…")
	}
	m.setNotice(false, "Undid %s (u undoes this undo): %d %s back: %s.", what, n, word, reveal.RevealText(strings.Join(list, ", ")))
	return nil
}
