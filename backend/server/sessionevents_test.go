package server

import (
	"net/http"
	"slices"
	"testing"

	"github.com/warden-dev/warden/backend/runtime"
)

// The SessionEvents route pages forward by default and backward with tail
// or before_seq, oldest first either way.
func TestSessionEventsRoute(t *testing.T) {
	f := newFixture(t, nil)
	var sess runtime.Session
	if st := f.call(t, "CreateSession", map[string]any{"workspace": f.ws, "approval": "on-request",
		"sandbox": map[string]any{"kind": "workspace-write"}}, &sess); st != http.StatusOK {
		t.Fatalf("create: %d", st)
	}
	for _, p := range []string{"never", "on-request", "never", "on-request"} {
		if st := f.call(t, "SetApprovalPolicy", map[string]any{"session_id": sess.ID, "approval": p}, nil); st != http.StatusOK {
			t.Fatalf("set approval %s: %d", p, st)
		}
	}
	var all []runtime.Event
	if st := f.call(t, "SessionEvents", map[string]any{"session_id": sess.ID}, &all); st != http.StatusOK || len(all) < 5 {
		t.Fatalf("forward %d: %d events", st, len(all))
	}
	seqs := func(evs []runtime.Event) []int64 {
		out := []int64{}
		for _, e := range evs {
			out = append(out, e.Seq)
		}
		return out
	}
	want := seqs(all)
	n := len(want)
	cases := []struct {
		name   string
		args   map[string]any
		status int
		want   []int64
	}{
		{name: "tail", args: map[string]any{"session_id": sess.ID, "tail": true, "limit": 3}, status: http.StatusOK, want: want[n-3:]},
		{name: "tail longer than the session", args: map[string]any{"session_id": sess.ID, "tail": true, "limit": 1000}, status: http.StatusOK, want: want},
		{name: "before_seq", args: map[string]any{"session_id": sess.ID, "before_seq": want[n-1], "limit": 2}, status: http.StatusOK, want: want[n-3 : n-1]},
		{name: "forward still works", args: map[string]any{"session_id": sess.ID, "after_seq": want[0], "limit": 2}, status: http.StatusOK, want: want[1:3]},
		{name: "tail of an unknown session", args: map[string]any{"session_id": "nope", "tail": true, "limit": 3}, status: http.StatusNotFound},
		{name: "negative before_seq", args: map[string]any{"session_id": sess.ID, "before_seq": -4, "limit": 3}, status: http.StatusBadRequest},
		{name: "tail without a limit", args: map[string]any{"session_id": sess.ID, "tail": true}, status: http.StatusBadRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []runtime.Event
			st := f.call(t, "SessionEvents", c.args, &got)
			if st != c.status {
				t.Fatalf("status %d, want %d", st, c.status)
			}
			if c.status == http.StatusOK && !slices.Equal(seqs(got), c.want) {
				t.Fatalf("seqs %v, want %v", seqs(got), c.want)
			}
		})
	}
}
