package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// exportAudit is the outbox pick of these tests: permission answers and
// connections, not messages or output.
func exportAudit(e Event) bool {
	switch e.(type) {
	case PermissionGranted, PermissionDenied, NetworkConnection, TelemetryDropped:
		return true
	}
	return false
}

func outboxStore(t *testing.T, now *time.Time) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), testKey, WithOutbox(exportAudit),
		WithClock(func() time.Time { return *now }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func grantedEv(call string) PermissionGranted {
	return PermissionGranted{RequestID: "r-" + call, CallID: call, Tool: "fs.read", Source: "sandbox+policy", Layer: policy.LayerPolicy}
}

// TestOutboxQueuesInTheAppend: exactly the picked events are queued, with
// the version of the session's previous queued one, and a failed append
// queues nothing.
func TestOutboxQueuesInTheAppend(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	s := outboxStore(t, &now)
	ctx := context.Background()
	sess, err := s.CreateSession(ctx, NewSession{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	s.Append(ctx, sess.ID, AnyVersion, MessageAppended{Role: "user", Text: "hi"}, grantedEv("c1"),
		ToolOutput{CallID: "c1", Stream: "stdout", Chunk: "x"}, grantedEv("c2"))
	// A conflicting append commits nothing, and so queues nothing.
	if _, err := s.Append(ctx, sess.ID, 1, grantedEv("c3")); err == nil {
		t.Fatal("conflict not detected")
	}
	items, err := s.ClaimOutbox(ctx, 10, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name          string
		version, prev int64
	}{{"first queued", 3, 0}, {"second names the first", 5, 3}}
	if len(items) != len(cases) {
		t.Fatalf("%d queued, want %d: %+v", len(items), len(cases), items)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if items[i].Version != c.version || items[i].PrevVersion != c.prev || items[i].Attempts != 1 {
				t.Errorf("%+v", items[i])
			}
			if _, ok := items[i].Event.(PermissionGranted); !ok {
				t.Errorf("event %T", items[i].Event)
			}
		})
	}
}

// TestOutboxLeaseAckRelease walks a batch through a failed send, a second
// sender, the lease running out and the acknowledgement.
func TestOutboxLeaseAckRelease(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	s := outboxStore(t, &now)
	ctx := context.Background()
	sess, _ := s.CreateSession(ctx, NewSession{Workspace: "/w"})
	for i := range 5 {
		s.Append(ctx, sess.ID, AnyVersion, grantedEv(string(rune('a'+i))))
	}
	claim := func(n int) []int64 {
		items, err := s.ClaimOutbox(ctx, n, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []int64
		for _, it := range items {
			seqs = append(seqs, it.Seq)
		}
		return seqs
	}
	steps := []struct {
		name string
		run  func() int
		want int
	}{
		{"a batch of 3", func() int { return len(claim(3)) }, 3},
		{"another sender gets only the rest", func() int { return len(claim(10)) }, 2},
		{"nothing while leased", func() int { return len(claim(10)) }, 0},
		{"the lease ran out (the sender died)", func() int { now = now.Add(31 * time.Second); return len(claim(10)) }, 5},
	}
	for _, st := range steps {
		if got := st.run(); got != st.want {
			t.Fatalf("%s: %d, want %d", st.name, got, st.want)
		}
	}
	now = now.Add(31 * time.Second)
	seqs := claim(10)
	if err := s.ReleaseOutbox(ctx, seqs, now.Add(5*time.Second), "the collector at x is not reachable"); err != nil {
		t.Fatal(err)
	}
	if got := claim(10); len(got) != 0 {
		t.Fatalf("released rows before their retry time: %v", got)
	}
	now = now.Add(6 * time.Second)
	seqs = claim(10)
	if err := s.AckOutbox(ctx, seqs[:4]); err != nil {
		t.Fatal(err)
	}
	st, err := s.OutboxStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued != 1 || st.Sent != 4 || st.LastError != "the collector at x is not reachable" || st.LastSuccess.IsZero() {
		t.Fatalf("stats %+v", st)
	}
}

// TestOutboxTrim: the bound drops the oldest sends, counts them and tells
// each session which of its versions never left; the events stay.
func TestOutboxTrim(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	s := outboxStore(t, &now)
	ctx := context.Background()
	a, _ := s.CreateSession(ctx, NewSession{Workspace: "/a"})
	b, _ := s.CreateSession(ctx, NewSession{Workspace: "/b"})
	for i := range 4 {
		s.Append(ctx, a.ID, AnyVersion, grantedEv("a"+string(rune('0'+i))))
	}
	now = now.Add(2 * time.Hour)
	for i := range 3 {
		s.Append(ctx, b.ID, AnyVersion, grantedEv("b"+string(rune('0'+i))))
	}
	cases := []struct {
		name    string
		bound   OutboxBound
		dropped int64
	}{
		{"within the bound", OutboxBound{MaxRecords: 100, MaxAge: 3 * time.Hour}, 0},
		{"too old: session a's four", OutboxBound{MaxAge: time.Hour}, 4},
		// Left: b's three and a's notice; keep 2 → drops b v2 and v3.
		{"too many: the oldest two", OutboxBound{MaxRecords: 2}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := s.TrimOutbox(ctx, c.bound)
			if err != nil || n != c.dropped {
				t.Fatalf("dropped %d (%v), want %d", n, err, c.dropped)
			}
		})
	}
	evs, _ := s.Events(ctx, EventQuery{Kinds: []Kind{KindTelemetryDropped}})
	if len(evs) != 2 {
		t.Fatalf("%d drop notices", len(evs))
	}
	da := evs[0].Event.(TelemetryDropped)
	db := evs[1].Event.(TelemetryDropped)
	if evs[0].SessionID != a.ID || da.Count != 4 || da.Versions != "2-5" || !strings.Contains(da.Reason, "longer than") {
		t.Errorf("session a's notice: %+v", da)
	}
	if evs[1].SessionID != b.ID || db.Count != 2 || db.Versions != "2-3" {
		t.Errorf("session b's notice: %+v", db)
	}
	st, _ := s.OutboxStats(ctx)
	if st.Dropped != 6 {
		t.Errorf("dropped counter %d", st.Dropped)
	}
	if rep, err := s.Verify(ctx); err != nil || !rep.OK() {
		t.Fatalf("the chain after trimming: %v %+v", err, rep.Bad)
	}
}

// TestOutboxPurge: purging a session takes its queued records with it.
func TestOutboxPurge(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	s := outboxStore(t, &now)
	ctx := context.Background()
	a, _ := s.CreateSession(ctx, NewSession{Workspace: "/a"})
	s.Append(ctx, a.ID, AnyVersion, grantedEv("x"))
	if err := s.DeleteSession(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.OutboxStats(ctx); st.Queued != 0 {
		t.Fatalf("queued after purge: %d", st.Queued)
	}
}

// TestNoOutboxWithoutPick: a store opened without WithOutbox queues nothing.
func TestNoOutboxWithoutPick(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	a, _ := s.CreateSession(ctx, NewSession{Workspace: "/a"})
	s.Append(ctx, a.ID, AnyVersion, grantedEv("x"))
	if st, _ := s.OutboxStats(ctx); st.Queued != 0 {
		t.Fatalf("queued %d", st.Queued)
	}
}

func TestVersionRanges(t *testing.T) {
	cases := []struct {
		in   []int64
		want string
	}{{[]int64{1}, "1"}, {[]int64{1, 2, 3}, "1-3"}, {[]int64{1, 3, 4, 7}, "1,3-4,7"}, {nil, ""}}
	for _, c := range cases {
		if got := versionRanges(c.in); got != c.want {
			t.Errorf("%v: %q, want %q", c.in, got, c.want)
		}
	}
}
