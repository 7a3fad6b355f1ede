package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	askm "github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/store"
)

// TestStartInterruptsRunningCalls: a call the last process started and
// never ended (it died mid-command) is interrupted at the next start,
// recorded once through the ask machine (never run again), and the model's
// next request reads that it was interrupted by a restart.
func TestStartInterruptsRunningCalls(t *testing.T) {
	srv := newSSEServer(t, "5_done.sse")
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	ctx := context.Background()
	sess := r.session(nil)
	args := json.RawMessage(`{"command":"make"}`)
	// What a process that died while `make` ran leaves behind.
	if _, err := r.st.Append(ctx, sess.ID, store.AnyVersion,
		store.MessageAppended{MessageID: "m1", Role: "user", Text: "build it"},
		store.MessageAppended{MessageID: "m2", Role: "assistant", ToolCalls: []store.ToolCall{{ID: "toolu_make", Name: "shell.exec", Args: args}}},
		store.PermissionGranted{RequestID: "r1", CallID: "toolu_make", Tool: "shell.exec", Source: "sandbox+policy", Signature: "shell=make", Via: "allow"},
		store.ToolInvocationStarted{RequestID: "r1", CallID: "toolu_make", Tool: "shell.exec", Args: args},
	); err != nil {
		t.Fatal(err)
	}
	// A `warden tool` beside the window leaves the window's calls alone.
	r.close()
	r.cfg.LeaveSessions = true
	r.open()
	if got, _ := r.st.UnfinishedInvocations(ctx); len(got) != 1 {
		t.Fatalf("a LeaveSessions start ended %d running calls", 1-len(got))
	}
	r.cfg.LeaveSessions = false
	for range 2 { // a second start finds nothing left to interrupt
		r.close()
		r.open()
	}
	evs := r.events(sess.ID, askKinds...)
	f := askm.Fold(evs)
	if len(f.Asks) != 1 || len(f.Skipped) > 0 {
		t.Fatalf("fold: %+v", f)
	}
	a := f.Asks[0]
	want := []askm.Transition{askm.Allow, askm.Start, askm.Interrupt}
	if a.State != askm.Interrupted || len(a.Path) != len(want) || a.Path[2] != askm.Interrupt {
		t.Fatalf("ask %s path %v, want %v", a.State, a.Path, want)
	}
	fails := r.events(sess.ID, store.KindToolInvocationFailed)
	if len(fails) != 1 {
		t.Fatalf("%d failures recorded, want 1", len(fails))
	}
	if x := fails[0].Event.(store.ToolInvocationFailed); x.RequestID != "r1" || !strings.Contains(x.Error, "interrupted by a restart") {
		t.Fatalf("failure %+v", x)
	}
	if got, _ := r.st.UnfinishedInvocations(ctx); len(got) != 0 {
		t.Fatalf("still unfinished: %v", got)
	}
	if err := r.svc.SendMessage(ctx, sess.ID, "what happened?"); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)
	if srv.requests() != 1 {
		t.Fatalf("%d model requests", srv.requests())
	}
	body := string(srv.bodies[0])
	if !strings.Contains(body, `"tool_use_id":"toolu_make"`) || !strings.Contains(body, "interrupted by a restart") {
		t.Fatalf("the model was not told the call was interrupted: %s", body)
	}
}
