package runtime

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

// Retry after a model error runs the model again on the same conversation:
// the provider sees the user's message once more, the transcript holds it
// once, and the turn's answer follows the error note.
func TestRetryAfterAModelError(t *testing.T) {
	srv := newSSEServer(t, "", "5_done.sse")
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	s := r.session(nil)
	ctx := context.Background()
	if err := r.svc.Run(ctx, s.ID, "please summarise the project"); err == nil {
		t.Fatal("the first turn should fail: the server refused it")
	}
	if err := r.svc.Retry(ctx, s.ID); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	r.waitIdle(s.ID)
	if n := srv.requests(); n != 2 {
		t.Fatalf("the provider saw %d requests, want 2", n)
	}
	srv.mu.Lock()
	second := srv.bodies[1]
	srv.mu.Unlock()
	if !bytes.Contains(second, []byte("please summarise the project")) {
		t.Fatalf("the retried request does not carry the user's message: %s", second)
	}
	var users, assistants int
	for _, e := range r.events(s.ID, store.KindMessageAppended) {
		m := e.Event.(store.MessageAppended)
		switch m.Role {
		case "user":
			users++
		case "assistant":
			assistants++
		}
	}
	if users != 1 || assistants == 0 {
		t.Fatalf("transcript has %d user and %d assistant messages, want 1 and at least 1", users, assistants)
	}
}

func TestRetryUnknownSession(t *testing.T) {
	r := newRig(t, anthropicProvider(t, newSSEServer(t).URL), nil)
	if err := r.svc.Retry(context.Background(), "no-such-session"); err == nil {
		t.Fatal("Retry of an unknown session should fail")
	}
}

// Archive is what the window's Delete does: the session leaves nothing
// behind in the log, refuses new turns until restored, and a restore
// brings it back with every event.
func TestArchiveKeepsTheAuditTrail(t *testing.T) {
	r := newRig(t, anthropicProvider(t, newSSEServer(t).URL), nil)
	s := r.session(nil)
	ctx := context.Background()
	if err := r.svc.Run(ctx, s.ID, "!ls"); err != nil {
		t.Fatal(err)
	}
	before := len(r.events(s.ID))
	got, err := r.svc.ArchiveSession(ctx, s.ID)
	if err != nil || !got.Archived {
		t.Fatalf("ArchiveSession: %+v %v", got, err)
	}
	if n := len(r.events(s.ID)); n != before+1 {
		t.Errorf("archive kept %d events, want the %d before plus session_archived", n, before)
	}
	if err := r.svc.SendMessage(ctx, s.ID, "!ls"); err != ErrArchived {
		t.Errorf("a message to an archived session: %v, want ErrArchived", err)
	}
	if err := r.svc.Retry(ctx, s.ID); err != ErrArchived {
		t.Errorf("Retry of an archived session: %v, want ErrArchived", err)
	}
	rep, err := r.st.Verify(ctx)
	if err != nil || !rep.OK() {
		t.Errorf("verify with an archived session: %+v %v", rep, err)
	}
	back, err := r.svc.RestoreSession(ctx, s.ID)
	if err != nil || back.Archived {
		t.Fatalf("RestoreSession: %+v %v", back, err)
	}
	if err := r.svc.Run(ctx, s.ID, "!ls"); err != nil {
		t.Errorf("a restored session runs again: %v", err)
	}
}

// "Always" on a protected-path write is refused at the prompt with the
// reason (the engine would never use such a grant); "once" still works.
func TestAlwaysRefusedForAProtectedPath(t *testing.T) {
	r := newRig(t, anthropicProvider(t, newSSEServer(t).URL), nil)
	s := r.session(nil)
	ctx := context.Background()
	if err := r.svc.SendMessage(ctx, s.ID, "!echo 'eval evil' > .envrc"); err != nil {
		t.Fatal(err)
	}
	ps := r.waitPending(s.ID, 1)
	if ps[0].AlwaysRefused == "" {
		t.Fatalf("the ask does not say always is refused: %+v", ps[0])
	}
	err := r.svc.Answer(ctx, AnswerArgs{RequestID: ps[0].RequestID, Answer: AnswerAlways})
	if err == nil || !strings.Contains(err.Error(), "always is not offered") {
		t.Fatalf("always on a protected path: %v, want a refusal with the reason", err)
	}
	gs, err := r.svc.ListGrants(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		if g.Kind == "grant" || g.Kind == "rule" {
			t.Errorf("a grant was stored anyway: %+v", g)
		}
	}
	if err := r.svc.Answer(ctx, AnswerArgs{RequestID: ps[0].RequestID, Answer: AnswerOnce}); err != nil {
		t.Fatalf("once after a refused always: %v", err)
	}
	r.waitIdle(s.ID)
}
