package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// u undoes the last call's change set after a yes (Enter keeps), the files
// come back on disk, the transcript and the notice say so, and u again is
// "undo this undo": the files go again. A turn running refuses it.
func TestUndoKey(t *testing.T) {
	r := newRig(t, "mkdir -p notes && echo one > notes/a.txt && echo two > notes/b.txt", "rm -rf notes")
	r.m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a, b := filepath.Join(r.ws, "notes", "a.txt"), filepath.Join(r.ws, "notes", "b.txt")
	r.typeText("make and clean")
	r.key("enter")
	r.pump("the rm ask", func(m *Model) bool {
		if len(m.Queue()) > 0 && strings.Contains(string(m.Queue()[0].Args), "rm -rf") {
			return true
		}
		if len(m.Queue()) > 0 { // the write may be asked too; allow it
			r.arm()
			m.Update(keyMsg("y"))
		}
		return false
	})
	if !exists(a) {
		t.Fatal("the write did not make notes/a.txt")
	}
	r.key("u") // type-ahead into the composer while the modal waits: not an undo
	r.key("backspace")
	r.arm()
	r.key("y")
	r.pump("the turn's end", func(m *Model) bool {
		return !m.busy && !exists(a) && len(m.changeSets()) >= 2
	})
	r.key("esc") // single keys
	r.key("u")
	s := r.screen()
	for _, want := range []string{"Undo this change?", "Undo shell.exec rm -rf notes", "2 files: notes/a.txt (deleted)", "y undo it", "n, Enter or Esc keep"} {
		if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(s, "│", "")), " "), want) {
			t.Errorf("the question lacks %q:\n%s", want, s)
		}
	}
	r.key("enter")
	if exists(a) || r.m.confirm != nil {
		t.Fatal("Enter undid it")
	}
	r.key("u")
	r.key("y")
	if !exists(a) || !exists(b) {
		t.Fatalf("y did not bring the files back:\n%s", r.screen())
	}
	if got, _ := os.ReadFile(a); string(got) != "one\n" {
		t.Errorf("notes/a.txt is %q", got)
	}
	if s := r.screen(); !strings.Contains(s, "Undid shell.exec rm -rf notes (u undoes this undo): 2 files are back") {
		t.Errorf("no feedback:\n%s", s)
	}
	r.pump("the undo's change set", func(m *Model) bool {
		for _, c := range m.changeSets() {
			if c.Cause == store.CauseUndo {
				return true
			}
		}
		return false
	})
	if s := r.screen(); !strings.Contains(s, "undone") || !strings.Contains(s, "· Undo of shell.exec rm -rf notes: 2 files") {
		t.Errorf("the transcript does not show the undo:\n%s", s)
	}
	r.key("u")
	if !strings.Contains(r.screen(), "Undo this undo?") {
		t.Fatalf("u after an undo:\n%s", r.screen())
	}
	r.key("y")
	if exists(a) || exists(b) {
		t.Fatal("undo of the undo left the files")
	}
	if n := len(r.events(store.KindWorkspaceChanged)); n < 4 {
		t.Errorf("%d change sets stored, want the write, the rm and two undos", n)
	}
}

// An answer from the terminal is recorded as a human's from the TUI: the
// layer and its detail on the stored decision.
func TestAnswerNamesTheTerminal(t *testing.T) {
	r := newRig(t, "rm -rf build", "rm -rf build")
	r.typeText("clean")
	r.key("enter")
	r.pumpAsk()
	r.arm()
	r.key("y")
	r.pump("the second ask", func(m *Model) bool { return len(m.Queue()) == 1 && m.Queue()[0].CallID != "ca" })
	r.arm()
	r.key("n")
	r.key("enter")
	r.pump("the turn's end", func(m *Model) bool { return !m.busy })
	g := r.events(store.KindPermissionGranted)
	d := r.events(store.KindPermissionDenied)
	if len(g) != 1 || len(d) != 1 {
		t.Fatalf("%d granted, %d denied", len(g), len(d))
	}
	if e := g[0].Event.(store.PermissionGranted); e.Layer != policy.LayerHuman || e.LayerDetail != "tui" {
		t.Errorf("granted: layer %q detail %q", e.Layer, e.LayerDetail)
	}
	if e := d[0].Event.(store.PermissionDenied); e.Layer != policy.LayerHuman || e.LayerDetail != "tui" {
		t.Errorf("denied: layer %q detail %q", e.Layer, e.LayerDetail)
	}
}
