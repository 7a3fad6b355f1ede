package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

func testGrants(t *testing.T, open Opener) {
	ctx := context.Background()
	clock := NewClock()
	s, _ := openTemp(t, open, store.WithClock(clock.Now))
	a := newSession(t, s, "/w")
	b := newSession(t, s, "/w")
	ws := a.WorkspaceID
	sg, err := s.AddGrant(ctx, store.NewGrant{WorkspaceID: ws, SessionID: a.ID, Signature: "shell:npm test",
		Scope: policy.ScopeSession, Reasons: []policy.Reason{policy.ReasonUnknownCommand}, RequestID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	wg, err := s.AddGrant(ctx, store.NewGrant{WorkspaceID: ws, SessionID: a.ID, Signature: "fs.read",
		Scope: policy.ScopeWorkspace, Reasons: []policy.Reason{policy.ReasonProtectedPath},
		ExpiresAt: clock.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if sg.CreatedAt.IsZero() || sg.UseCount != 0 || !sg.RevokedAt.IsZero() || sg.Scope != policy.ScopeSession {
		t.Errorf("session grant %+v", sg)
	}
	evs, _ := s.Events(ctx, store.EventQuery{SessionID: a.ID, Kinds: []store.Kind{store.KindGrantAdded}})
	if len(evs) != 2 || evs[0].Event.(store.GrantAdded).RequestID != "r1" || evs[1].Event.(store.GrantAdded).Grant.ID != wg.ID {
		t.Errorf("GrantAdded events: %v", kindsOf(evs))
	}
	rules, err := s.Memories(ctx, ws, store.PermissionNamespace)
	if err != nil || len(rules) != 1 || rules[0].Key != wg.ID {
		t.Errorf("permission: memories = %+v, %v; want the workspace grant", rules, err)
	}
	lists := []struct {
		name string
		f    store.GrantFilter
		want []string
	}{
		{"session a", store.GrantFilter{WorkspaceID: ws, SessionID: a.ID}, []string{sg.ID, wg.ID}},
		{"session b sees workspace grants only", store.GrantFilter{WorkspaceID: ws, SessionID: b.ID}, []string{wg.ID}},
		{"workspace only", store.GrantFilter{WorkspaceID: ws}, []string{wg.ID}},
		{"other workspace", store.GrantFilter{WorkspaceID: "nope"}, nil},
	}
	for _, tc := range lists {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Grants(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d grants, want %v", len(got), tc.want)
			}
			for i := range got {
				if got[i].ID != tc.want[i] {
					t.Errorf("grant %d = %s, want %s", i, got[i].ID, tc.want[i])
				}
			}
		})
	}
	for range 2 {
		if err := s.IncrementGrantUse(ctx, sg.ID); err != nil {
			t.Fatal(err)
		}
	}
	if g, _ := s.Grant(ctx, sg.ID); g.UseCount != 2 || g.LastUsedAt.IsZero() {
		t.Errorf("after two uses: %+v", g)
	}
	if err := s.IncrementGrantUse(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("use of missing grant: %v", err)
	}
	recs, _ := s.Grants(ctx, store.GrantFilter{WorkspaceID: ws, SessionID: a.ID})
	if pg := store.PolicyGrants(recs, clock.Now()); len(pg) != 2 || pg[1].Signature != "fs.read" || pg[1].ExpiresAt.IsZero() {
		t.Errorf("policy grants now: %+v", pg)
	}
	if pg := store.PolicyGrants(recs, clock.Now().Add(2*time.Hour)); len(pg) != 1 || pg[0].ID != sg.ID {
		t.Errorf("policy grants after expiry: %+v", pg)
	}
	// Revoke from session b: the event lands there, the rule memory goes.
	if err := s.RevokeGrant(ctx, wg.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeGrant(ctx, wg.ID, ""); err != nil {
		t.Errorf("second revoke: %v", err)
	}
	if err := s.RevokeGrant(ctx, "nope", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoke missing: %v", err)
	}
	evs, _ = s.Events(ctx, store.EventQuery{SessionID: b.ID, Kinds: []store.Kind{store.KindGrantRevoked}})
	if len(evs) != 1 || evs[0].Event.(store.GrantRevoked).GrantID != wg.ID {
		t.Errorf("GrantRevoked events in b: %d", len(evs))
	}
	if rules, _ := s.Memories(ctx, ws, store.PermissionNamespace); len(rules) != 0 {
		t.Errorf("rule memory left after revoke: %+v", rules)
	}
	active, _ := s.Grants(ctx, store.GrantFilter{WorkspaceID: ws, SessionID: a.ID})
	withRevoked, _ := s.Grants(ctx, store.GrantFilter{WorkspaceID: ws, SessionID: a.ID, IncludeRevoked: true})
	if len(active) != 1 || len(withRevoked) != 2 || withRevoked[1].RevokedAt.IsZero() || withRevoked[1].Active(clock.Now()) {
		t.Errorf("after revoke: active %d, all %d %+v", len(active), len(withRevoked), withRevoked)
	}
}

func testGrantValidation(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	sess := newSession(t, s, "/w")
	ok := store.NewGrant{WorkspaceID: sess.WorkspaceID, SessionID: sess.ID, Signature: "fs.read",
		Scope: policy.ScopeSession, Reasons: []policy.Reason{policy.ReasonPolicyAlways}}
	cases := []struct {
		name   string
		change func(*store.NewGrant)
		is     error
	}{
		{"no workspace", func(g *store.NewGrant) { g.WorkspaceID = "" }, nil},
		{"no signature", func(g *store.NewGrant) { g.Signature = "" }, nil},
		{"no reasons", func(g *store.NewGrant) { g.Reasons = nil }, nil},
		{"bad scope", func(g *store.NewGrant) { g.Scope = "forever" }, nil},
		{"session scope without session", func(g *store.NewGrant) { g.SessionID = "" }, nil},
		{"unknown session", func(g *store.NewGrant) { g.SessionID = "nope" }, store.ErrNotFound},
		{"unknown workspace", func(g *store.NewGrant) { g.WorkspaceID = "nope" }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := ok
			tc.change(&g)
			if _, err := s.AddGrant(ctx, g); err == nil || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("AddGrant = %v, want an error (is %v)", err, tc.is)
			}
		})
	}
	if gs, _ := s.Grants(ctx, store.GrantFilter{WorkspaceID: sess.WorkspaceID, SessionID: sess.ID, IncludeRevoked: true}); len(gs) != 0 {
		t.Errorf("refused grants were stored: %+v", gs)
	}
}

func testMemories(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	ws, err := s.EnsureWorkspace(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	set := func(ns, k, v string) {
		t.Helper()
		if err := s.SetMemory(ctx, store.Memory{WorkspaceID: ws.ID, Namespace: ns, Key: k, Value: v}); err != nil {
			t.Fatal(err)
		}
	}
	set("notes:", "build", "make")
	set("notes:", "build", "go build ./...")
	set("notes:", "test", "go test")
	set("style:", "indent", "tabs")
	if m, err := s.GetMemory(ctx, ws.ID, "notes:", "build"); err != nil || m.Value != "go build ./..." || m.UpdatedAt.IsZero() {
		t.Errorf("get after replace: %+v %v", m, err)
	}
	if ms, _ := s.Memories(ctx, ws.ID, "notes:"); len(ms) != 2 || ms[0].Key != "build" {
		t.Errorf("notes: %+v", ms)
	}
	if ms, _ := s.Memories(ctx, ws.ID, ""); len(ms) != 3 {
		t.Errorf("all memories: %+v", ms)
	}
	if err := s.DeleteMemory(ctx, ws.ID, "notes:", "test"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		is   error
	}{
		{"get deleted", func() error { _, err := s.GetMemory(ctx, ws.ID, "notes:", "test"); return err }(), store.ErrNotFound},
		{"delete missing", s.DeleteMemory(ctx, ws.ID, "notes:", "test"), store.ErrNotFound},
		{"reserved namespace", s.SetMemory(ctx, store.Memory{WorkspaceID: ws.ID, Namespace: store.PermissionNamespace, Key: "k", Value: "v"}), store.ErrReservedNamespace},
		{"empty key", s.SetMemory(ctx, store.Memory{WorkspaceID: ws.ID, Namespace: "n:"}), nil},
		{"unknown workspace", s.SetMemory(ctx, store.Memory{WorkspaceID: "nope", Namespace: "n:", Key: "k"}), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || (tc.is != nil && !errors.Is(tc.err, tc.is)) {
				t.Fatalf("err = %v, want an error (is %v)", tc.err, tc.is)
			}
		})
	}
}
