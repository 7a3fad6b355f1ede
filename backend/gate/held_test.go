package gate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// slowCheckpoint takes its time before the call and notes whether the
// call's command had already acted by the end of it.
type slowCheckpoint struct {
	marker string
	mu     sync.Mutex
	early  bool
}

func (s *slowCheckpoint) Begin(context.Context, CallInfo) Checkpoint {
	time.Sleep(300 * time.Millisecond) // long past a cage's set-up
	_, err := os.Stat(s.marker)
	s.mu.Lock()
	s.early = s.early || err == nil
	s.mu.Unlock()
	return nil
}

// shell.exec's cage is set up while the gate records the call (tools.
// Holder); its command acts only once the start is recorded and the
// checkpoint taken: a record that fails runs nothing, in a bwrap cage or
// out of one. Asserted on the world: the file the command writes.
func TestHeldCallActsOnlyOnceRecorded(t *testing.T) {
	tests := []struct {
		name     string
		mode     sandbox.Mode // "" is bwrap
		failLog  bool
		slowSnap bool
		ran      bool
	}{
		{name: "caged, recorded", ran: true},
		{name: "caged, behind a slow checkpoint", slowSnap: true, ran: true},
		{name: "caged, the record fails", failLog: true},
		{name: "uncaged, behind a slow checkpoint", mode: sandbox.ModeContainer, slowSnap: true, ran: true},
		{name: "uncaged, the record fails", mode: sandbox.ModeContainer, failLog: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspace(t)
			marker := filepath.Join(ws, "ran")
			cage := sandbox.New(sandbox.Config{Mode: tc.mode})
			cage.Detect(context.Background())
			t.Cleanup(func() { _ = cage.Close() })
			j := &journal{}
			if tc.failLog {
				j.fail = errors.New("disk full")
			}
			snap := &slowCheckpoint{marker: marker}
			cfg := Config{Decider: policy.New(policy.Config{}), Journal: j, Headless: true,
				Session: func(context.Context, tools.Env) (policy.Session, error) {
					return policy.Session{Workspace: ws, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite},
						Approval: policy.OnRequest, Caged: tc.mode == "", Now: time.Now()}, nil
				}}
			if tc.slowSnap {
				cfg.Checkpoint = snap
			}
			g, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			sh := tools.NewShellExec(cage)
			env := tools.Env{SessionID: "s", Workspace: ws, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}}
			out, err := callGate(g, context.Background(), sh, mustJSON(t, map[string]any{"command": "touch " + marker}), env)
			if tc.failLog != (err != nil) {
				t.Fatalf("call error %v (outcome %+v)", err, out)
			}
			if out.Decision != nil && out.Decision.Verdict != policy.VerdictAllow {
				t.Fatalf("the fixture's command was not allowed: %+v", out.Decision)
			}
			if _, serr := os.Stat(marker); (serr == nil) != tc.ran {
				t.Fatalf("ran %v, want %v: %s", serr == nil, tc.ran, text(out.Result))
			}
			if snap.early {
				t.Fatal("the command acted before the checkpoint was taken")
			}
		})
	}
}
