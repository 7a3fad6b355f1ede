package tui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// B cycles Read only → Workspace write → Full access → Read only. The step
// to Full access asks, and No is the default (Enter keeps Workspace
// write); B on the question steps past it to Read only, so every value is
// reachable without saying yes to Full access. Golden screens of the
// question (over the transcript) and of the skip at 80×24 and 120×40.
func TestSandboxCycleKey(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		ws := filepath.Join(os.TempDir(), "warden-tui-golden-axes")
		os.RemoveAll(ws)
		t.Cleanup(func() { os.RemoveAll(ws) })
		r := newRigIn(t, ws)
		r.m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		r.typeText("hello")
		r.key("enter")
		r.pump("the reply", func(m *Model) bool { return !m.busy && strings.Contains(r.screen(), "Finished.") })
		golden := func(step string) {
			t.Helper()
			checkGolden(t, filepath.Join("testdata", "golden", "bcycle-"+step+"-"+itoa(size[0])+"x"+itoa(size[1])+".txt"), r.screen(), size[0], size[1])
		}
		kind := func() policy.SandboxKind {
			s, err := r.g.Service.GetSession(context.Background(), r.m.Session().ID)
			if err != nil {
				t.Fatal(err)
			}
			return s.Sandbox.Kind
		}
		r.key("esc") // single keys
		r.key("B")
		s := r.screen()
		for _, want := range []string{"Switch to Full access?", "y switch to Full access", "B skip to Read only",
			"n, Enter or Esc keep", "Finished."} {
			if !strings.Contains(s, want) {
				t.Errorf("%dx%d: the question lacks %q:\n%s", size[0], size[1], want, s)
			}
		}
		golden("confirm")
		r.key("enter")
		if r.m.confirm != nil || kind() != policy.WorkspaceWrite || !strings.Contains(r.screen(), "Unchanged: keep Workspace write") {
			t.Fatalf("Enter did not keep Workspace write (%v):\n%s", kind(), r.screen())
		}
		r.key("B")
		r.key("B")
		if r.m.confirm != nil || kind() != policy.ReadOnly {
			t.Fatalf("B on the question did not skip to Read only (%v):\n%s", kind(), r.screen())
		}
		golden("readonly")
		r.key("B")
		if r.m.confirm != nil || kind() != policy.WorkspaceWrite {
			t.Fatalf("B from Read only: %v, confirm %v", kind(), r.m.confirm != nil)
		}
		r.key("B")
		r.key("y")
		if kind() != policy.DangerFullAccess || !strings.Contains(r.screen(), "Sandbox: Full access") {
			t.Fatalf("y did not switch to Full access:\n%s", r.screen())
		}
		if !strings.Contains(r.screen(), "Cage: unasked commands (Full access)") {
			t.Errorf("%dx%d: under Full access the status line does not say the unasked commands are caged:\n%s", size[0], size[1], r.screen())
		}
		golden("fullaccess")
		r.key("B")
		if kind() != policy.ReadOnly {
			t.Fatalf("B from Full access: %v", kind())
		}
		// WW → RO (skip), RO → WW, WW → Full (yes), Full → RO: four changes.
		if n := len(r.events(store.KindSandboxPolicyChanged)); n != 4 {
			t.Errorf("%d sandbox changes stored, want 4", n)
		}
	}
}

// Shift+Tab on the question before Never ask under Full access steps past
// it to On request; Enter keeps Always ask.
func TestApprovalCycleSkipsTheQuestion(t *testing.T) {
	r := newRig(t)
	r.typeText("/mode always full-access")
	r.key("enter")
	r.key("y") // the Full access question
	if s := r.m.Session(); s.Approval != policy.Always || s.Sandbox.Kind != policy.DangerFullAccess {
		t.Fatalf("setup: %+v", s)
	}
	r.key("shift+tab")
	if r.m.confirm == nil || !strings.Contains(r.screen(), "Shift+Tab skip to On request") {
		t.Fatalf("no question before Never ask:\n%s", r.screen())
	}
	r.key("enter")
	if r.m.Session().Approval != policy.Always {
		t.Fatalf("Enter changed the approval: %v", r.m.Session().Approval)
	}
	r.key("shift+tab")
	r.key("shift+tab")
	if r.m.confirm != nil || r.m.Session().Approval != policy.OnRequest {
		t.Fatalf("Shift+Tab on the question: %v", r.m.Session().Approval)
	}
}

// Esc from the decision trace goes back to the ask as it was: the trace
// hidden, nothing typed, no deny note open; a second Esc is the deny
// (note next), as before t.
func TestEscFromTheTraceReturns(t *testing.T) {
	r := newRig(t, "rm -rf build")
	r.typeText("clean")
	r.key("enter")
	r.pumpAsk()
	r.arm()
	r.key("t")
	if !r.m.modalTrace || !strings.Contains(r.screen(), "t or Esc hide trace") {
		t.Fatalf("t did not open the trace:\n%s", r.screen())
	}
	r.key("esc")
	if r.m.modalTrace || r.m.noting || len(r.m.input) != 0 || len(r.m.Queue()) != 1 || r.m.focus != focusComposer {
		t.Fatalf("Esc from the trace: trace %v noting %v input %q queue %d\n%s", r.m.modalTrace, r.m.noting, string(r.m.input), len(r.m.Queue()), r.screen())
	}
	if s := r.screen(); strings.Contains(s, "Note to the model") || !strings.Contains(s, "n or Esc deny") {
		t.Fatalf("not back at the ask:\n%s", s)
	}
	r.key("esc")
	if !r.m.noting {
		t.Fatal("Esc on the ask did not open the deny note")
	}
	r.key("esc") // deny without a note
	r.pump("the turn's end", func(m *Model) bool { return !m.busy })
	// The trace panel (Ctrl+T) from single-key mode: Esc closes it and
	// leaves the keys where they were.
	r.key("esc")
	if r.m.focus != focusKeys {
		t.Fatalf("focus %v", r.m.focus)
	}
	r.key("ctrl+t")
	r.key("esc")
	if r.m.panel != panelNone || r.m.focus != focusKeys {
		t.Fatalf("Esc from the trace panel: panel %v focus %v", r.m.panel, r.m.focus)
	}
}

// The trace panel (Ctrl+T) at 80×24 and 120×40: every ask, allow and deny
// of the session with its reason words and the layer that decided it
// (times masked in the golden).
func TestGoldenTracePanel(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		ws := filepath.Join(os.TempDir(), "warden-tui-golden-trace")
		os.RemoveAll(ws)
		t.Cleanup(func() { os.RemoveAll(ws) })
		r := newRigIn(t, ws, "ls", "rm -rf build", "rm -rf build")
		r.m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		r.typeText("tidy up")
		r.key("enter")
		r.pumpAsk()
		r.arm()
		r.key("y")
		r.pump("the second ask", func(m *Model) bool { return len(m.Queue()) == 1 && m.Queue()[0].CallID == "cc" })
		r.arm()
		r.key("n")
		r.key("enter")
		r.pump("the turn's end", func(m *Model) bool { return !m.busy })
		r.key("ctrl+t")
		s := r.screen()
		for _, want := range []string{"Allowed", "Asked", "Denied", "decided by: You (tui)", "Destructive: can remove"} {
			if !strings.Contains(s, want) {
				t.Errorf("%dx%d: the trace panel lacks %q:\n%s", size[0], size[1], want, s)
			}
		}
		masked := regexp.MustCompile(`\d\d:\d\d:\d\d`).ReplaceAllString(s, "hh:mm:ss")
		checkGolden(t, filepath.Join("testdata", "golden", "tracepanel-"+itoa(size[0])+"x"+itoa(size[1])+".txt"), masked, size[0], size[1])
	}
}
