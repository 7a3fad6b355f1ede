package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

func testAppendVersions(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	sess := newSession(t, s, "/w")
	if sess.Version != 1 {
		t.Fatalf("new session at version %d, want 1 (SessionCreated)", sess.Version)
	}
	v, err := s.Append(ctx, sess.ID, 1, msg("a"), msg("b"))
	if err != nil || v != 3 {
		t.Fatalf("Append = %d, %v; want 3", v, err)
	}
	_, err = s.Append(ctx, sess.ID, 1, msg("late"))
	var ce *store.ConflictError
	if !errors.As(err, &ce) || ce.Expected != 1 || ce.Actual != 3 || ce.SessionID != sess.ID {
		t.Fatalf("stale append: %v, want *ConflictError expected 1 actual 3", err)
	}
	if v, err := s.Append(ctx, sess.ID, store.AnyVersion, msg("c")); err != nil || v != 4 {
		t.Fatalf("AnyVersion append = %d, %v", v, err)
	}
	cases := []struct {
		name string
		sid  string
		evs  []store.Event
		is   error
	}{
		{"unknown session", "nope", []store.Event{msg("x")}, store.ErrNotFound},
		{"no events", sess.ID, nil, nil},
		{"session_created by hand", sess.ID, []store.Event{store.SessionCreated{Workspace: "/w"}}, nil},
		{"invalid event", sess.ID, []store.Event{store.MessageAppended{Role: "robot"}}, nil},
		{"nil event", sess.ID, []store.Event{nil}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Append(ctx, tc.sid, store.AnyVersion, tc.evs...)
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("Append = %v, want an error (is %v)", err, tc.is)
			}
		})
	}
	got, err := s.Session(ctx, sess.ID)
	if err != nil || got.Version != 4 {
		t.Fatalf("version after refused appends = %d, %v; want 4", got.Version, err)
	}
}

func testAppendAtomic(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	sess := newSession(t, s, "/w")
	if _, err := s.Append(ctx, sess.ID, 1, msg("ok"), store.PermissionDenied{RequestID: "r"}); err == nil {
		t.Fatal("batch with an invalid event accepted")
	}
	evs, err := s.Events(ctx, store.EventQuery{SessionID: sess.ID})
	if err != nil || len(evs) != 1 {
		t.Fatalf("after refused batch: %d events, %v; want only session_created", len(evs), err)
	}
}

func testEventQueries(t *testing.T, open Opener) {
	ctx := context.Background()
	clock := NewClock()
	s, _ := openTemp(t, open, store.WithClock(clock.Now))
	a := newSession(t, s, "/w")
	b := newSession(t, s, "/w")
	start := clock.Now()
	for i, e := range []store.Event{msg("1"), request("r1"), msg("2"), granted("r1"), msg("3")} {
		clock.Advance(time.Second)
		mustAppend(t, s, a.ID, e)
		if i == 1 {
			mustAppend(t, s, b.ID, msg("other"))
		}
	}
	all, err := s.Events(ctx, store.EventQuery{SessionID: a.ID})
	if err != nil || len(all) != 6 {
		t.Fatalf("all events of a: %d, %v", len(all), err)
	}
	for i, e := range all {
		if e.Version != int64(i+1) || e.SessionID != a.ID || e.Event == nil || len(e.Hash) != 32 {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	seq3 := all[3].Seq
	M, R, G, C := store.KindMessageAppended, store.KindPermissionRequested, store.KindPermissionGranted, store.KindSessionCreated
	cases := []struct {
		name string
		q    store.EventQuery
		want []store.Kind
	}{
		{"one kind", store.EventQuery{SessionID: a.ID, Kinds: []store.Kind{M}}, []store.Kind{M, M, M}},
		{"two kinds", store.EventQuery{SessionID: a.ID, Kinds: []store.Kind{R, G}}, []store.Kind{R, G}},
		{"since", store.EventQuery{SessionID: a.ID, Since: start.Add(4 * time.Second)}, []store.Kind{G, M}},
		{"until", store.EventQuery{SessionID: a.ID, Until: start.Add(2 * time.Second)}, []store.Kind{C, M}},
		{"after seq", store.EventQuery{SessionID: a.ID, AfterSeq: seq3}, []store.Kind{G, M}},
		{"before seq", store.EventQuery{SessionID: a.ID, BeforeSeq: seq3}, []store.Kind{C, M, R}},
		{"last two", store.EventQuery{SessionID: a.ID, Limit: 2, Desc: true}, []store.Kind{M, G}},
		{"page", store.EventQuery{SessionID: a.ID, AfterSeq: all[0].Seq, Limit: 2}, []store.Kind{M, R}},
		{"every session", store.EventQuery{Kinds: []store.Kind{M}}, []store.Kind{M, M, M, M}},
		{"unknown kind", store.EventQuery{SessionID: a.ID, Kinds: []store.Kind{"nope"}}, []store.Kind{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Events(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !sameKinds(kindsOf(got), tc.want) {
				t.Errorf("kinds %v, want %v", kindsOf(got), tc.want)
			}
		})
	}
	got, _ := s.Events(ctx, store.EventQuery{SessionID: a.ID, Kinds: []store.Kind{R}})
	req, ok := got[0].Event.(store.PermissionRequested)
	if !ok || req.RequestID != "r1" || req.Risk != policy.RiskHigh || len(req.Effects) != 1 || len(req.Trace) != 1 {
		t.Errorf("PermissionRequested read back as %#v", got[0].Event)
	}
	if !got[0].Time.Equal(start.Add(2 * time.Second)) {
		t.Errorf("time %v, want %v", got[0].Time, start.Add(2*time.Second))
	}
}

func testPermissionAudit(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	sess := newSession(t, s, "/w")
	mustAppend(t, s, sess.ID, msg("hi"), request("r1"),
		store.ToolInvocationStarted{CallID: "call-r1", Tool: "shell.exec"}, granted("r1"),
		store.ToolInvocationCompleted{CallID: "call-r1", Tool: "shell.exec"}, request("r2"), denied("r2"))
	always := policy.Always
	if _, err := s.UpdateSessionPolicy(ctx, sess.ID, store.PolicyUpdate{Approval: &always, By: "user"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.PermissionAudit(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Kind{store.KindPermissionRequested, store.KindPermissionGranted, store.KindPermissionRequested,
		store.KindPermissionDenied, store.KindApprovalPolicyChanged}
	if !sameKinds(kindsOf(got), want) {
		t.Errorf("audit kinds %v, want %v", kindsOf(got), want)
	}
	if d, ok := got[3].Event.(store.PermissionDenied); !ok || d.RequestID != "r2" || d.By != store.DeniedByUser {
		t.Errorf("denial read back as %#v", got[3].Event)
	}
}

func testPendingSurvivesRestart(t *testing.T, open Opener) {
	ctx := context.Background()
	s, path := openTemp(t, open)
	a := newSession(t, s, "/w")
	b := newSession(t, s, "/w")
	mustAppend(t, s, a.ID, request("r1"), request("r2"))
	mustAppend(t, s, b.ID, request("r3"))
	mustAppend(t, s, a.ID, granted("r1"))
	mustAppend(t, s, b.ID, denied("r3"))
	check := func(s store.API, sid string, want ...string) {
		t.Helper()
		got, err := s.PendingRequests(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range got {
			ids = append(ids, e.Event.(store.PermissionRequested).RequestID)
		}
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Errorf("pending(%q) = %v, want %v", sid, ids, want)
		}
	}
	check(s, a.ID, "r2")
	check(s, "", "r2")
	check(s, b.ID)
	s.Close()
	s2 := open(t, path, KeyFor(path))
	defer s2.Close()
	check(s2, "", "r2")
	mustAppend(t, s2, a.ID, granted("r2"))
	check(s2, "")
}
