package runtime

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

// seedMessages appends n user messages to a fresh session and returns it
// with every seq of the session, oldest first.
func seedMessages(t *testing.T, r *rig, n int) (Session, []int64) {
	t.Helper()
	s := r.session(nil)
	ctx := context.Background()
	for i := 0; i < n; i++ {
		if _, err := r.st.Append(ctx, s.ID, store.AnyVersion, store.MessageAppended{Role: "user", Text: fmt.Sprintf("m%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var seqs []int64
	for _, e := range r.events(s.ID) {
		seqs = append(seqs, e.Seq)
	}
	return s, seqs
}

func seqsOf(evs []Event) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func equalSeqs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSessionEventsBefore(t *testing.T) {
	r := newRig(t, nil, nil)
	short, shortSeqs := seedMessages(t, r, 3)
	long, longSeqs := seedMessages(t, r, 250)
	ctx := context.Background()
	cases := []struct {
		name   string
		id     string
		before int64
		limit  int
		want   []int64
	}{
		{name: "tail of a short session", id: short.ID, limit: 100, want: shortSeqs},
		{name: "tail of a long session", id: long.ID, limit: 100, want: longSeqs[len(longSeqs)-100:]},
		{name: "page before a seq", id: long.ID, before: longSeqs[150], limit: 50, want: longSeqs[100:150]},
		{name: "page reaching the start", id: long.ID, before: longSeqs[20], limit: 50, want: longSeqs[:20]},
		{name: "before the first event", id: long.ID, before: longSeqs[0], limit: 50, want: []int64{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := r.svc.SessionEventsBefore(ctx, c.id, c.before, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := seqsOf(evs); !equalSeqs(got, c.want) {
				t.Fatalf("seqs %v, want %v", got, c.want)
			}
		})
	}
}

// Paging back from the tail must meet the first event exactly: every event
// once, none skipped, none twice.
func TestSessionEventsBeforePagesToTheStart(t *testing.T) {
	r := newRig(t, nil, nil)
	s, seqs := seedMessages(t, r, 237)
	ctx := context.Background()
	for _, limit := range []int{1, 7, 50, 238, 1000} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			var got []int64
			var before int64
			for pages := 0; ; pages++ {
				if pages > len(seqs)+1 {
					t.Fatal("paging did not end")
				}
				evs, err := r.svc.SessionEventsBefore(ctx, s.ID, before, limit)
				if err != nil {
					t.Fatal(err)
				}
				got = append(seqsOf(evs), got...)
				if len(evs) < limit {
					break
				}
				before = evs[0].Seq
			}
			if !equalSeqs(got, seqs) {
				t.Fatalf("paged %d seqs, want %d: %v", len(got), len(seqs), got)
			}
		})
	}
}

func TestSessionEventsBeforeRefuses(t *testing.T) {
	r := newRig(t, nil, nil)
	s, _ := seedMessages(t, r, 2)
	ctx := context.Background()
	cases := []struct {
		name     string
		id       string
		before   int64
		limit    int
		notFound bool
	}{
		{name: "bad session", id: "nope", limit: 10, notFound: true},
		{name: "negative before_seq", id: s.ID, before: -1, limit: 10},
		{name: "no limit", id: s.ID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.svc.SessionEventsBefore(ctx, c.id, c.before, c.limit)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, store.ErrNotFound); got != c.notFound {
				t.Fatalf("not found %v, want %v: %v", got, c.notFound, err)
			}
		})
	}
}

// A front end can connect while the service shuts down (a web client
// reconnecting as the server stops). Close must wait for a tail started
// before it, and no tail may start after it: the race detector flags the
// first, a leaked goroutine on a closed store the second.
func TestSubscribeRacingClose(t *testing.T) {
	for i := 0; i < 20; i++ {
		r := newRig(t, nil, nil)
		svc := r.svc
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		done := make(chan (<-chan Push), 1)
		go func() {
			close(started)
			done <- svc.Subscribe(ctx)
		}()
		<-started
		r.close()
		<-done
		cancel()
		after := svc.Subscribe(context.Background())
		if _, open := <-after; open {
			t.Fatal("a Subscribe after Close delivered a push")
		}
	}
}
