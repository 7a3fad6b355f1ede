package store

import (
	"context"
	"path/filepath"
	"testing"
)

// The documented durability choice: only appends made entirely of streamed
// output skip the fsync.
func TestDurabilityModes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "warden.db"), testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.CreateSession(ctx, NewSession{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	out := ToolOutput{CallID: "c", Stream: "stdout", Chunk: "x"}
	line := MonitorEvent{MonitorID: "m", Line: "x"}
	cases := []struct {
		name string
		evs  []Event
		want int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{
		{"output chunk", []Event{out}, 1},
		{"monitor lines", []Event{line, line}, 1},
		{"output with a request", []Event{out, PermissionRequested{RequestID: "r", CallID: "c", Tool: "t"}}, 2},
		{"message", []Event{MessageAppended{Role: "user"}}, 2},
		{"output again", []Event{out}, 1},
		{"denial", []Event{PermissionDenied{RequestID: "r", CallID: "c", Tool: "t", Reason: "user-denied", By: DeniedByUser}}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Append(ctx, sess.ID, AnyVersion, tc.evs...); err != nil {
				t.Fatal(err)
			}
			var got int
			if err := s.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("synchronous = %d after the append, want %d", got, tc.want)
			}
		})
	}
	if _, err := s.RenameSession(ctx, sess.ID, "x"); err != nil {
		t.Fatal(err)
	}
	var got int
	s.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got)
	if got != 2 {
		t.Errorf("session change committed with synchronous = %d", got)
	}
}
