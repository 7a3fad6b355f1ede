package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
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
	// A call id started again after it ended is running again.
	appendAll(a.ID,
		ToolInvocationStarted{CallID: "again", Tool: "shell.exec"},
		ToolInvocationCompleted{CallID: "again", Tool: "shell.exec"},
		ToolInvocationStarted{CallID: "again", Tool: "shell.exec"},
	)
	// The same call id ending in another session does not end it.
	appendAll(b.ID, ToolInvocationStarted{CallID: "running", Tool: "x"}, ToolInvocationCompleted{CallID: "running", Tool: "x"})
	// A stale failure ends a call that never started: it is no end of
	// another one.
	c, _ := s.CreateSession(ctx, NewSession{Workspace: "/c"})
	appendAll(c.ID, ToolInvocationFailed{CallID: "stale", Tool: "fs.write", Via: "stale"}, ToolInvocationStarted{CallID: "other", Tool: "fs.write"})
	got, err := s.UnfinishedInvocations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.SessionID+"/"+e.Event.(ToolInvocationStarted).CallID)
	}
	want := []string{a.ID + "/running", a.ID + "/again", c.ID + "/other"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("unfinished = %v, want %v", names, want)
	}
}

// TestUnfinishedInvocationsInALongSession: one session of 30,000 finished
// calls with one left running (the audit benchmark's seed) is scanned in
// one pass; matching each start against the later ends in SQL took
// minutes, and every start of the window waited for it.
func TestUnfinishedInvocationsInALongSession(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"), testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ss, err := s.CreateSession(ctx, NewSession{Workspace: "/long"})
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for c := range 30000 {
		call := fmt.Sprintf("c%d", c)
		evs = append(evs, ToolInvocationStarted{CallID: call, Tool: "shell.exec"})
		if c == 17321 {
			continue // left running
		}
		if c%31 == 0 {
			evs = append(evs, ToolInvocationFailed{CallID: call, Tool: "shell.exec", Error: "exit 1"})
		} else {
			evs = append(evs, ToolInvocationCompleted{CallID: call, Tool: "shell.exec"})
		}
	}
	if _, err := s.Append(ctx, ss.ID, AnyVersion, evs...); err != nil {
		t.Fatal(err)
	}
	got, err := s.UnfinishedInvocations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Event.(ToolInvocationStarted).CallID != "c17321" {
		t.Fatalf("unfinished = %+v, want the one call c17321", got)
	}
}

// BenchmarkUnfinishedInvocations is the start-up scan on a log of 20,000
// finished calls (2 KB of output each) over 20 sessions, one left running.
func BenchmarkUnfinishedInvocations(b *testing.B) {
	ctx := context.Background()
	s, first := benchStore(b)
	out := strings.Repeat("x", 2048)
	ids := []string{first}
	for i := 1; i < 20; i++ {
		ss, err := s.CreateSession(ctx, NewSession{Workspace: fmt.Sprintf("/bench/%d", i)})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, ss.ID)
	}
	for i, id := range ids {
		var evs []Event
		for c := range 1000 {
			call := fmt.Sprintf("c%d-%d", i, c)
			evs = append(evs, ToolInvocationStarted{CallID: call, Tool: "shell.exec", Args: []byte(`{"command":"make"}`)},
				ToolInvocationCompleted{CallID: call, Tool: "shell.exec", Output: out})
		}
		if _, err := s.Append(ctx, id, AnyVersion, evs...); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Append(ctx, first, AnyVersion, ToolInvocationStarted{CallID: "running", Tool: "shell.exec"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		got, err := s.UnfinishedInvocations(ctx)
		if err != nil || len(got) != 1 {
			b.Fatalf("%d, %v", len(got), err)
		}
	}
}
