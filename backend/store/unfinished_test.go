package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestUnfinishedInvocations: a started call with no end after it is
// unfinished; an end of the same call (completed or failed) closes it,
// one of another call or session does not.
func TestUnfinishedInvocations(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"), testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, _ := s.CreateSession(ctx, NewSession{Workspace: "/a"})
	b, _ := s.CreateSession(ctx, NewSession{Workspace: "/b"})
	appendAll := func(id string, evs ...Event) {
		t.Helper()
		if _, err := s.Append(ctx, id, AnyVersion, evs...); err != nil {
			t.Fatal(err)
		}
	}
	appendAll(a.ID,
		ToolInvocationStarted{CallID: "done", Tool: "shell.exec"},
		ToolInvocationStarted{CallID: "running", Tool: "shell.exec"},
		ToolInvocationCompleted{CallID: "done", Tool: "shell.exec"},
		ToolInvocationStarted{CallID: "failed", Tool: "shell.exec"},
		ToolInvocationFailed{CallID: "failed", Tool: "shell.exec", Error: "x"},
	)
	// The same call id in another session does not end it.
	appendAll(b.ID, ToolInvocationStarted{CallID: "other", Tool: "fs.write"}, ToolInvocationCompleted{CallID: "running", Tool: "x"})
	got, err := s.UnfinishedInvocations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.SessionID+"/"+e.Event.(ToolInvocationStarted).CallID)
	}
	want := []string{a.ID + "/running", b.ID + "/other"}
	if len(names) != len(want) || names[0] != want[0] || names[1] != want[1] {
		t.Fatalf("unfinished = %v, want %v", names, want)
	}
}
