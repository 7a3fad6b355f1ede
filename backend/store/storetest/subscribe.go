package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/store"
)

// receive reads n events or fails after a generous timeout.
func receive(t *testing.T, sub *store.Subscription, n int) []store.StoredEvent {
	t.Helper()
	var out []store.StoredEvent
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case e, ok := <-sub.Events():
			if !ok {
				t.Fatalf("subscription closed after %d of %d events: %v", len(out), n, sub.Err())
			}
			out = append(out, e)
		case <-timeout:
			t.Fatalf("got %d of %d events", len(out), n)
		}
	}
	return out
}

func testSubscribe(t *testing.T, open Opener) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, _ := openTemp(t, open)
	a := newSession(t, s, "/w")
	b := newSession(t, s, "/w")
	fromStart, err := s.Subscribe(ctx, store.SubscribeFilter{SessionID: a.ID})
	if err != nil {
		t.Fatal(err)
	}
	fromNow, err := s.Subscribe(ctx, store.SubscribeFilter{AfterSeq: -1})
	if err != nil {
		t.Fatal(err)
	}
	perms, err := s.Subscribe(ctx, store.SubscribeFilter{Kinds: []store.Kind{store.KindPermissionRequested}})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, a.ID, msg("1"), request("r1"))
	mustAppend(t, s, b.ID, msg("b"))
	chunks := make([]store.Event, 600) // more than one page
	for i := range chunks {
		chunks[i] = store.ToolOutput{CallID: "c", Stream: "stdout", Chunk: "x"}
	}
	mustAppend(t, s, a.ID, chunks...)
	got := receive(t, fromStart, 603)
	for i, e := range got {
		if e.SessionID != a.ID || e.Version != int64(i+1) {
			t.Fatalf("event %d: session %s version %d; want %s v%d in order", i, e.SessionID, e.Version, a.ID, i+1)
		}
	}
	now := receive(t, fromNow, 603)
	if now[0].Kind != store.KindMessageAppended || now[2].SessionID != b.ID {
		t.Errorf("tail from now starts %v", kindsOf(now[:3]))
	}
	p := receive(t, perms, 1)
	if p[0].Kind != store.KindPermissionRequested {
		t.Errorf("kind filter delivered %s", p[0].Kind)
	}
	cancel()
	for range fromStart.Events() {
	}
	if err := fromStart.Err(); err != nil {
		t.Errorf("Err after cancel = %v", err)
	}
}

// A second handle on the same file (as another process would be) appends;
// the first handle's subscription sees it through polling.
func testSubscribeOtherWriter(t *testing.T, open Opener) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, path := openTemp(t, open, store.WithPollInterval(20*time.Millisecond))
	sess := newSession(t, s, "/w")
	sub, err := s.Subscribe(ctx, store.SubscribeFilter{SessionID: sess.ID, AfterSeq: -1})
	if err != nil {
		t.Fatal(err)
	}
	other := open(t, path, KeyFor(path))
	defer other.Close()
	mustAppend(t, other, sess.ID, msg("from elsewhere"))
	got := receive(t, sub, 1)
	if m, ok := got[0].Event.(store.MessageAppended); !ok || m.Text != "from elsewhere" {
		t.Errorf("got %#v", got[0].Event)
	}
	// Closing the store ends the subscription without an error.
	s.Close()
	for range sub.Events() {
	}
	if err := sub.Err(); err != nil {
		t.Errorf("Err after Close = %v", err)
	}
}
