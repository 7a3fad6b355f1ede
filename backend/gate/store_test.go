package gate_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// callThrough runs one call through a gate over the real engine, recorded
// into a real store file, and returns the session's events after creation.
func callThrough(t *testing.T, s policy.Session, tool tools.Tool, args string) []store.StoredEvent {
	t.Helper()
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "w.db")
	st, err := store.Open(ctx, dbPath, storetest.KeyFor(dbPath))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	sess, err := st.CreateSession(ctx, store.NewSession{Workspace: s.Workspace, Approval: s.Approval, Sandbox: s.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gate.New(gate.Config{
		Decider: policy.New(policy.Config{}),
		Journal: st,
		Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Call(ctx, gate.Request{Tool: tool, Args: json.RawMessage(args), Env: tools.Env{SessionID: sess.ID, Workspace: s.Workspace}}); err != nil {
		t.Fatal(err)
	}
	evs, err := st.Events(ctx, store.EventQuery{SessionID: sess.ID, AfterSeq: 0})
	if err != nil {
		t.Fatal(err)
	}
	evs = evs[1:] // after session_created
	if f := ask.Fold(evs); len(f.Asks) != 1 || len(f.Skipped) > 0 || !ask.DefaultTable().Final(f.Asks[0].State) {
		t.Fatalf("the call's events fold into %+v (skipped %v)", f.Asks, f.Skipped)
	}
	return evs
}

// TestGateRecordsStoreEvents: the gate writes the store's own event types,
// and they fold back into one ask per call, where the call ended.
func TestGateRecordsStoreEvents(t *testing.T) {
	cage := sandbox.New(sandbox.Config{})
	if st := cage.Detect(context.Background()); !st.Available {
		t.Fatalf("cage: %s", st.Reason)
	}
	t.Cleanup(func() { _ = cage.Close() })
	t.Run("allowed shell call", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		evs := callThrough(t, policy.Session{Workspace: ws, Caged: true}, tools.NewShellExec(cage), `{"command":"exit 3"}`)
		if len(evs) != 3 {
			t.Fatalf("%d events", len(evs))
		}
		g, ok := evs[0].Event.(store.PermissionGranted)
		if !ok || g.Source != "sandbox+policy" || g.RequestID == "" || g.CallID == "" || g.Signature == "" || len(g.Trace) == 0 {
			t.Fatalf("granted %+v", evs[0].Event)
		}
		if s, ok := evs[1].Event.(store.ToolInvocationStarted); !ok || s.CallID != g.CallID || string(s.Args) != `{"command":"exit 3"}` {
			t.Fatalf("started %+v", evs[1].Event)
		}
		f, ok := evs[2].Event.(store.ToolInvocationFailed)
		if !ok || f.CallID != g.CallID || f.Error == "" {
			t.Fatalf("failed %+v", evs[2].Event)
		}
	})
	t.Run("completed with exit code", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		evs := callThrough(t, policy.Session{Workspace: ws, Caged: true}, tools.NewShellExec(cage), `{"command":"echo ok"}`)
		c, ok := evs[2].Event.(store.ToolInvocationCompleted)
		if !ok || c.ExitCode == nil || *c.ExitCode != 0 || c.Output == "" || len(c.Result) == 0 {
			t.Fatalf("completed %+v", evs[2].Event)
		}
	})
	t.Run("ask then no approver", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		evs := callThrough(t, policy.Session{Workspace: ws, Caged: true}, tools.NewFsWrite(), `{"path":".mcp.json","content":"{}"}`)
		r, ok := evs[0].Event.(store.PermissionRequested)
		if !ok || len(r.Reasons) == 0 || r.Risk != policy.RiskMedium || len(r.Effects) != 1 {
			t.Fatalf("requested %+v", evs[0].Event)
		}
		d, ok := evs[1].Event.(store.PermissionDenied)
		if !ok || d.RequestID != r.RequestID || d.By != store.DeniedByNoApprover || d.Reason != policy.ReasonNoApprover || d.Remedy == "" {
			t.Fatalf("denied %+v", evs[1].Event)
		}
	})
	t.Run("sandbox denial", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		evs := callThrough(t, policy.Session{Workspace: ws, Caged: true}, tools.NewFsWrite(), `{"path":"/etc/warden-x","content":"x"}`)
		d, ok := evs[0].Event.(store.PermissionDenied)
		if len(evs) != 1 || !ok || d.By != store.DeniedBySandbox || d.Reason != policy.ReasonSandboxRejected {
			t.Fatalf("events %+v", evs)
		}
	})
}
