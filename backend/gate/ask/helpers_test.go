package ask

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

var testKey = store.Key("ask-test-key-0123456789abcdef0123456789")

// openStore opens a real SQLite store in a fresh folder and creates a
// session in it.
func openStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "warden.db"))
}

func openAt(t testing.TB, path string) (*store.Store, string) {
	t.Helper()
	st, err := store.Open(context.Background(), path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ss, err := st.CreateSession(context.Background(), store.NewSession{Workspace: "/ask"})
	if err != nil {
		t.Fatal(err)
	}
	return st, ss.ID
}

// askEvents is the session's events of an ask's kinds.
func askEvents(t testing.TB, st *store.Store, sessionID string) []store.StoredEvent {
	t.Helper()
	evs, err := st.Events(context.Background(), store.EventQuery{SessionID: sessionID, Kinds: kindList()})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func kindList() []store.Kind {
	var out []store.Kind
	for k := range recordable {
		out = append(out, k)
	}
	return out
}

// sample is an event a real caller would record for the transition.
func sample(on Transition, kind store.Kind) store.Event {
	switch kind {
	case store.KindPermissionRequested:
		return store.PermissionRequested{Signature: "shell:rm", Reasons: []policy.Reason{policy.ReasonDestructiveEffect}}
	case store.KindPermissionGranted:
		src := map[Transition]string{AnswerOnce: "human:once", AnswerAlways: "human:always", Allow: "sandbox+policy"}[on]
		if src == "" {
			src = "re-decided:sandbox+policy"
		}
		return store.PermissionGranted{Signature: "shell:rm", Source: src}
	case store.KindPermissionDenied:
		d := store.PermissionDenied{Signature: "shell:rm", Reason: policy.ReasonUserDenied, By: store.DeniedByUser}
		switch on {
		case TimeOut:
			d.Reason, d.By = policy.ReasonNoApprover, store.DeniedByNoApprover
		case SupersedeDeny, Deny:
			d.Reason, d.By = policy.ReasonSandboxRejected, store.DeniedBySandbox
		}
		return d
	case store.KindToolInvocationStarted:
		return store.ToolInvocationStarted{}
	case store.KindToolInvocationCompleted:
		return store.ToolInvocationCompleted{}
	case store.KindToolInvocationFailed:
		return store.ToolInvocationFailed{Error: string(on)}
	}
	return nil
}

func step(ctx context.Context, m *Machine, id ID, on Transition) (Ask, error) {
	kind := DefaultTable().kinds[on]
	return m.Step(ctx, id, on, sample(on, kind))
}
