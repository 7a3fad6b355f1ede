package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

func testSessionProjection(t *testing.T, open Opener) {
	ctx := context.Background()
	clock := NewClock()
	s, _ := openTemp(t, open, store.WithClock(clock.Now))
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true, WritableRoots: []string{"/cache"}}
	sess, err := s.CreateSession(ctx, store.NewSession{ID: "s1", Workspace: "/w", Title: "first",
		Approval: policy.Never, Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	if sess.ID != "s1" || sess.Workspace != "/w" || sess.Approval != policy.Never || !sess.Sandbox.NetworkAccess ||
		len(sess.Sandbox.WritableRoots) != 1 || sess.Planning || sess.Title != "first" {
		t.Fatalf("created %+v", sess)
	}
	if _, err := s.CreateSession(ctx, store.NewSession{ID: "s1", Workspace: "/w"}); err == nil {
		t.Error("duplicate session id accepted")
	}
	if _, err := s.CreateSession(ctx, store.NewSession{Workspace: "relative"}); err == nil {
		t.Error("relative workspace accepted")
	}
	if _, err := s.CreateSession(ctx, store.NewSession{Workspace: "/w", Approval: policy.ApprovalPolicy(9)}); err == nil {
		t.Error("unknown approval policy accepted")
	}
	always, yes, no := policy.Always, true, false
	ro := policy.SandboxPolicy{Kind: policy.ReadOnly}
	steps := []struct {
		name      string
		u         store.PolicyUpdate
		wantKinds []store.Kind
		check     func(store.Session) bool
	}{
		{"approval and planning", store.PolicyUpdate{Approval: &always, Planning: &yes, By: "user"},
			[]store.Kind{store.KindApprovalPolicyChanged, store.KindPlanningEntered},
			func(x store.Session) bool { return x.Approval == policy.Always && x.Planning }},
		{"same again changes nothing", store.PolicyUpdate{Approval: &always, Planning: &yes}, nil,
			func(x store.Session) bool { return x.Approval == policy.Always && x.Planning }},
		{"sandbox", store.PolicyUpdate{Sandbox: &ro}, []store.Kind{store.KindSandboxPolicyChanged},
			func(x store.Session) bool { return x.Sandbox.Kind == policy.ReadOnly && !x.Sandbox.NetworkAccess }},
		{"leave planning", store.PolicyUpdate{Planning: &no}, []store.Kind{store.KindPlanningExited},
			func(x store.Session) bool { return !x.Planning }},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before, _ := s.Session(ctx, "s1")
			after, err := s.UpdateSessionPolicy(ctx, "s1", st.u)
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := s.Events(ctx, store.EventQuery{SessionID: "s1", AfterSeq: lastSeq(t, s, "s1", before.Version)})
			if !sameKinds(kindsOf(evs), st.wantKinds) {
				t.Errorf("events %v, want %v", kindsOf(evs), st.wantKinds)
			}
			if !st.check(after) || after.Version != before.Version+int64(len(st.wantKinds)) {
				t.Errorf("session after update: %+v", after)
			}
		})
	}
	renamed, err := s.RenameSession(ctx, "s1", "second")
	if err != nil || renamed.Title != "second" {
		t.Errorf("rename: %+v %v", renamed, err)
	}
	// A change through Append is projected the same way.
	mustAppend(t, s, "s1", store.ApprovalPolicyChanged{From: policy.Always, To: policy.OnRequest})
	if x, _ := s.Session(ctx, "s1"); x.Approval != policy.OnRequest {
		t.Errorf("approval after appended change = %v", x.Approval)
	}
	if _, err := s.UpdateSessionPolicy(ctx, "nope", store.PolicyUpdate{Planning: &yes}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("update of missing session: %v", err)
	}
	child, err := s.CreateSession(ctx, store.NewSession{Workspace: "/w", ParentID: "s1"})
	if err != nil || child.ParentID != "s1" {
		t.Errorf("subagent session: %+v %v", child, err)
	}
	clock.Advance(time.Second)
	other := newSession(t, s, "/elsewhere")
	list, err := s.Sessions(ctx, sess.WorkspaceID)
	if err != nil || len(list) != 2 {
		t.Errorf("sessions of /w: %d %v", len(list), err)
	}
	all, _ := s.Sessions(ctx, "")
	if len(all) != 3 || (all[0].ID != other.ID) {
		t.Errorf("all sessions, newest first: %v", all)
	}
}

// lastSeq is the seq of version v of a session.
func lastSeq(t *testing.T, s store.API, sid string, v int64) int64 {
	evs, err := s.Events(context.Background(), store.EventQuery{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Version == v {
			return e.Seq
		}
	}
	t.Fatalf("no version %d in %s", v, sid)
	return 0
}

func testDeleteSession(t *testing.T, open Opener) {
	ctx := context.Background()
	clock := NewClock()
	s, _ := openTemp(t, open, store.WithClock(clock.Now))
	keep := newSession(t, s, "/w")
	clock.Advance(time.Second)
	gone := newSession(t, s, "/w")
	mustAppend(t, s, gone.ID, request("r1"), msg("x"))
	if _, err := s.AddGrant(ctx, store.NewGrant{WorkspaceID: gone.WorkspaceID, SessionID: gone.ID,
		Signature: "fs.write", Scope: policy.ScopeSession, Reasons: []policy.Reason{policy.ReasonProtectedPath}}); err != nil {
		t.Fatal(err)
	}
	ws, err := s.AddGrant(ctx, store.NewGrant{WorkspaceID: gone.WorkspaceID, SessionID: gone.ID,
		Signature: "shell:npm test", Scope: policy.ScopeWorkspace, Reasons: []policy.Reason{policy.ReasonUnknownCommand}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, gone.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted session still there: %v", err)
	}
	if evs, _ := s.Events(ctx, store.EventQuery{SessionID: gone.ID}); len(evs) != 0 {
		t.Errorf("%d events left", len(evs))
	}
	if p, _ := s.PendingRequests(ctx, ""); len(p) != 0 {
		t.Errorf("%d pending left", len(p))
	}
	gs, _ := s.Grants(ctx, store.GrantFilter{WorkspaceID: keep.WorkspaceID, SessionID: gone.ID})
	if len(gs) != 1 || gs[0].ID != ws.ID || gs[0].SessionID != "" {
		t.Errorf("grants after delete: %+v (workspace grant stays, session grant goes)", gs)
	}
	if err := s.DeleteSession(ctx, gone.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if rep, err := s.Verify(ctx); err != nil || !rep.OK() || rep.Sessions != 1 {
		t.Errorf("verify after delete: %+v %v", rep, err)
	}
	if _, err := s.Session(ctx, keep.ID); err != nil {
		t.Errorf("other session lost: %v", err)
	}
}

// Archiving hides nothing from the log: the events stay, the chain still
// verifies, the flag is a projection of the two events and survives a
// reopen, and restoring brings the session back as it was.
func testArchiveSession(t *testing.T, open Opener) {
	ctx := context.Background()
	s, path := openTemp(t, open)
	a := newSession(t, s, "/w")
	mustAppend(t, s, a.ID, msg("keep me"))
	before, err := s.Events(ctx, store.EventQuery{SessionID: a.ID})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SetArchived(ctx, a.ID, true, "user")
	if err != nil || !got.Archived {
		t.Fatalf("archive: %+v %v", got, err)
	}
	again, err := s.SetArchived(ctx, a.ID, true, "user")
	if err != nil || again.Version != got.Version {
		t.Errorf("archiving an archived session appended: v%d then v%d (%v)", got.Version, again.Version, err)
	}
	after, _ := s.Events(ctx, store.EventQuery{SessionID: a.ID})
	if len(after) != len(before)+1 || after[len(after)-1].Kind != store.KindSessionArchived {
		t.Fatalf("archive wrote %d events after %d, want one session_archived", len(after), len(before))
	}
	if audit, _ := s.PermissionAudit(ctx, a.ID); len(audit) == 0 || audit[len(audit)-1].Kind != store.KindSessionArchived {
		t.Errorf("the archive is not in the permission audit")
	}
	if rep, err := s.Verify(ctx); err != nil || !rep.OK() {
		t.Errorf("verify with an archived session: %+v %v", rep, err)
	}
	list, _ := s.Sessions(ctx, "")
	if len(list) != 1 || !list[0].Archived {
		t.Errorf("Sessions lists the archived session with its flag: %+v", list)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path, KeyFor(path))
	t.Cleanup(func() { s.Close() })
	re, err := s.Session(ctx, a.ID)
	if err != nil || !re.Archived {
		t.Fatalf("after reopen: %+v %v", re, err)
	}
	back, err := s.SetArchived(ctx, a.ID, false, "user")
	if err != nil || back.Archived {
		t.Fatalf("restore: %+v %v", back, err)
	}
	if _, err := s.SetArchived(ctx, "nope", true, "user"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("archive of an unknown session: %v", err)
	}
}
