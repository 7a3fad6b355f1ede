package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// testReserveSession: a reserved session is written by the transaction of
// its first append, whichever method appends; nothing else writes it.
func testReserveSession(t *testing.T, open Opener) {
	ctx := context.Background()
	reserve := func(t *testing.T, s store.API, ws string) store.Session {
		t.Helper()
		r, err := s.ReserveSession(ctx, store.NewSession{Workspace: ws, Title: "reserved", Approval: policy.Never,
			Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}})
		if err != nil {
			t.Fatalf("ReserveSession: %v", err)
		}
		return r
	}
	// written checks the session is in the file: seen by a second store.
	written := func(t *testing.T, path, id string) bool {
		t.Helper()
		o := open(t, path, KeyFor(path))
		defer o.Close()
		_, err := o.Session(ctx, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Session from a second store: %v", err)
		}
		return err == nil
	}
	verifies := func(t *testing.T, s store.API) {
		t.Helper()
		rep, err := s.Verify(ctx)
		if err != nil || !rep.OK() {
			t.Fatalf("Verify: %+v, %v", rep, err)
		}
	}
	tests := []struct {
		name string
		run  func(t *testing.T, s store.API, path string)
	}{
		{"nothing appended, nothing written", func(t *testing.T, s store.API, path string) {
			r := reserve(t, s, "/w")
			got, err := s.Session(ctx, r.ID)
			if err != nil || got.Title != "reserved" || got.WorkspaceID == "" || got.Workspace != "/w" || got.Approval != policy.Never {
				t.Fatalf("Session of a reserved one: %+v, %v", got, err)
			}
			if list, _ := s.Sessions(ctx, ""); len(list) != 0 {
				t.Errorf("Sessions lists %d, want none", len(list))
			}
			if written(t, path, r.ID) {
				t.Error("a session nothing was appended to is in the file")
			}
			verifies(t, s)
		}},
		{"the first append writes it, in the same transaction", func(t *testing.T, s store.API, path string) {
			r := reserve(t, s, "/w")
			v, err := s.Append(ctx, r.ID, store.AnyVersion, msg("hello"))
			if err != nil || v != 2 {
				t.Fatalf("Append = %d, %v; want version 2", v, err)
			}
			evs, _ := s.Events(ctx, store.EventQuery{SessionID: r.ID})
			if !sameKinds(kindsOf(evs), []store.Kind{store.KindSessionCreated, store.KindMessageAppended}) {
				t.Errorf("events %v", kindsOf(evs))
			}
			if !written(t, path, r.ID) {
				t.Error("the session is not in the file after its first append")
			}
			if v := mustAppend(t, s, r.ID, msg("again")); v != 3 {
				t.Errorf("second append at version %d, want 3", v)
			}
			verifies(t, s)
		}},
		{"a refused append leaves it reserved", func(t *testing.T, s store.API, path string) {
			r := reserve(t, s, "/w")
			var ce *store.ConflictError
			if _, err := s.Append(ctx, r.ID, 5, msg("late")); !errors.As(err, &ce) {
				t.Fatalf("Append at version 5 = %v, want a conflict", err)
			}
			if written(t, path, r.ID) {
				t.Error("a rolled-back append left the session in the file")
			}
			if v, err := s.Append(ctx, r.ID, 1, msg("now")); err != nil || v != 2 {
				t.Fatalf("Append at version 1 = %d, %v", v, err)
			}
			verifies(t, s)
		}},
		{"an existing workspace keeps its id and its grants", func(t *testing.T, s store.API, path string) {
			a := newSession(t, s, "/w")
			g, err := s.AddGrant(ctx, store.NewGrant{WorkspaceID: a.WorkspaceID, SessionID: a.ID, Signature: "fs.read",
				Scope: policy.ScopeWorkspace, Reasons: []policy.Reason{policy.ReasonProtectedPath}})
			if err != nil {
				t.Fatal(err)
			}
			r := reserve(t, s, "/w/")
			if r.WorkspaceID != a.WorkspaceID {
				t.Fatalf("reserved in workspace %s, the workspace is %s", r.WorkspaceID, a.WorkspaceID)
			}
			gs, err := s.Grants(ctx, store.GrantFilter{WorkspaceID: r.WorkspaceID, SessionID: r.ID})
			if err != nil || len(gs) != 1 || gs[0].ID != g.ID {
				t.Errorf("grants seen by the reserved session: %+v, %v", gs, err)
			}
		}},
		{"a new workspace is created at once", func(t *testing.T, s store.API, path string) {
			r := reserve(t, s, "/new")
			ws, err := s.Workspace(ctx, "/new")
			if err != nil || ws.ID != r.WorkspaceID {
				t.Errorf("workspace %+v, %v; reserved with %s", ws, err, r.WorkspaceID)
			}
		}},
		{"a grant is an append too", func(t *testing.T, s store.API, path string) {
			r := reserve(t, s, "/w")
			if _, err := s.AddGrant(ctx, store.NewGrant{WorkspaceID: r.WorkspaceID, SessionID: r.ID, Signature: "shell:make",
				Scope: policy.ScopeSession, Reasons: []policy.Reason{policy.ReasonUnknownCommand}}); err != nil {
				t.Fatal(err)
			}
			evs, _ := s.Events(ctx, store.EventQuery{SessionID: r.ID})
			if !sameKinds(kindsOf(evs), []store.Kind{store.KindSessionCreated, store.KindGrantAdded}) {
				t.Errorf("events %v", kindsOf(evs))
			}
			verifies(t, s)
		}},
		{"concurrent first appends write it once", func(t *testing.T, s store.API, path string) {
			r := reserve(t, s, "/w")
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := s.Append(ctx, r.ID, store.AnyVersion, msg("x")); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("Append: %v", err)
			}
			evs, _ := s.Events(ctx, store.EventQuery{SessionID: r.ID, Kinds: []store.Kind{store.KindSessionCreated}})
			if len(evs) != 1 {
				t.Errorf("%d session_created events, want 1", len(evs))
			}
			if got, _ := s.Session(ctx, r.ID); got.Version != 9 {
				t.Errorf("version %d, want 9", got.Version)
			}
			verifies(t, s)
		}},
		{"refused ids", func(t *testing.T, s store.API, path string) {
			a := newSession(t, s, "/w")
			if _, err := s.ReserveSession(ctx, store.NewSession{ID: a.ID, Workspace: "/w"}); err == nil {
				t.Error("reserving the id of a written session succeeded")
			}
			r := reserve(t, s, "/w")
			if _, err := s.ReserveSession(ctx, store.NewSession{ID: r.ID, Workspace: "/w"}); err == nil {
				t.Error("reserving a reserved id twice succeeded")
			}
			if _, err := s.ReserveSession(ctx, store.NewSession{Workspace: "relative"}); err == nil {
				t.Error("a relative workspace was accepted")
			}
			if _, err := s.Append(ctx, "never-reserved", store.AnyVersion, msg("x")); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Append to an unknown session = %v, want not found", err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, path := openTemp(t, open)
			tc.run(t, s, path)
		})
	}
}
