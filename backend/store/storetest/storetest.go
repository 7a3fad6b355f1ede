// Package storetest is the conformance suite of store.API: every behaviour
// the rest of Warden relies on, written against the interface and run on a
// real database file by each implementation's tests.
package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Opener opens the implementation under test at path, chaining with key.
type Opener func(t *testing.T, path string, key store.Key, opts ...store.Option) store.API

// KeyFor is the audit key the suite uses for the database at path: each
// file has its own, and reopening a path finds its key again.
func KeyFor(path string) store.Key {
	k := sha256.Sum256([]byte("storetest audit key\x00" + path))
	return k[:]
}

// Run runs every conformance test.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"Workspaces", testWorkspaces},
		{"AppendVersions", testAppendVersions},
		{"AppendIsAtomic", testAppendAtomic},
		{"EventQueries", testEventQueries},
		{"SessionProjection", testSessionProjection},
		{"DeleteSession", testDeleteSession},
		{"ReserveSession", testReserveSession},
		{"ArchiveSession", testArchiveSession},
		{"PermissionAudit", testPermissionAudit},
		{"PendingSurvivesRestart", testPendingSurvivesRestart},
		{"Subscribe", testSubscribe},
		{"SubscribeOtherWriter", testSubscribeOtherWriter},
		{"Grants", testGrants},
		{"GrantValidation", testGrantValidation},
		{"Memories", testMemories},
		{"McpTrust", testMcpTrust},
		{"ConcurrentAppends", testConcurrentAppends},
		{"VerifyAfterEverything", testVerifyAfterEverything},
		{"VerifyNeedsTheKey", testVerifyNeedsTheKey},
		{"AppendNeedsTheKey", testAppendNeedsTheKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each test has its own database file
			tc.fn(t, open)
		})
	}
}

// Clock is a settable clock for WithClock.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts at a fixed instant.
func NewClock() *Clock { return &Clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func openTemp(t *testing.T, open Opener, opts ...store.Option) (store.API, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "warden.db")
	s := open(t, path, KeyFor(path), opts...)
	t.Cleanup(func() { s.Close() })
	return s, path
}

func newSession(t *testing.T, s store.API, ws string) store.Session {
	t.Helper()
	sess, err := s.CreateSession(context.Background(), store.NewSession{Workspace: ws, Title: "t"})
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	return sess
}

func mustAppend(t *testing.T, s store.API, sid string, evs ...store.Event) int64 {
	t.Helper()
	v, err := s.Append(context.Background(), sid, store.AnyVersion, evs...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return v
}

func kindsOf(evs []store.StoredEvent) []store.Kind {
	out := make([]store.Kind, len(evs))
	for i, e := range evs {
		out[i] = e.Kind
	}
	return out
}

func sameKinds(a, b []store.Kind) bool {
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

func request(id string) store.PermissionRequested {
	return store.PermissionRequested{RequestID: id, CallID: "call-" + id, Tool: "shell.exec",
		Risk: policy.RiskHigh, Reasons: []policy.Reason{policy.ReasonDestructiveEffect}, Signature: "shell:rm",
		Effects: []policy.Effect{{Kind: policy.EffectDestructive, Paths: []string{"/w/build"}, Why: "removes files"}},
		Trace:   []policy.Step{{Step: "approval", Saw: "rm -r", Concluded: "ask"}}}
}

func granted(id string) store.PermissionGranted {
	return store.PermissionGranted{RequestID: id, CallID: "call-" + id, Tool: "shell.exec", Source: "human:once"}
}

func denied(id string) store.PermissionDenied {
	return store.PermissionDenied{RequestID: id, CallID: "call-" + id, Tool: "shell.exec",
		Reason: policy.ReasonUserDenied, By: store.DeniedByUser}
}

func msg(text string) store.MessageAppended { return store.MessageAppended{Role: "user", Text: text} }

func testWorkspaces(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	a, err := s.EnsureWorkspace(ctx, "/w/a")
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.EnsureWorkspace(ctx, "/w/a/")
	if err != nil || again.ID != a.ID {
		t.Fatalf("EnsureWorkspace not idempotent: %v %v", again, err)
	}
	if _, err := s.EnsureWorkspace(ctx, "rel/path"); err == nil {
		t.Error("relative workspace path accepted")
	}
	byPath, err := s.Workspace(ctx, "/w/a")
	if err != nil || byPath.ID != a.ID {
		t.Errorf("Workspace by path: %v %v", byPath, err)
	}
	byID, err := s.Workspace(ctx, a.ID)
	if err != nil || byID.Path != "/w/a" {
		t.Errorf("Workspace by id: %v %v", byID, err)
	}
	if _, err := s.Workspace(ctx, "/nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing workspace: %v", err)
	}
	newSession(t, s, "/w/b")
	all, err := s.Workspaces(ctx)
	if err != nil || len(all) != 2 || all[0].Path != "/w/a" || all[1].Path != "/w/b" {
		t.Errorf("Workspaces = %v, %v", all, err)
	}
}
