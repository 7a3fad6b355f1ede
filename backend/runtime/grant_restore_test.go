package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Revoke, then Undo: the grant is in force again with its signature, scope,
// reasons and expiry, once however often Undo is pressed, and the log has
// the revoke and a new GrantAdded.
func TestRestoreGrant(t *testing.T) {
	r := newRig(t, nil, nil)
	ctx := context.Background()
	s := r.session(nil)
	other := r.session(nil)
	ss, err := r.st.Session(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	expires := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	add := func(scope policy.GrantScope, sig string, exp time.Time) store.GrantRecord {
		g, err := r.st.AddGrant(ctx, store.NewGrant{WorkspaceID: ss.WorkspaceID, SessionID: s.ID, Signature: sig, Scope: scope,
			Reasons: []policy.Reason{policy.ReasonDestructiveEffect}, ExpiresAt: exp})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	cases := []struct {
		name  string
		scope policy.GrantScope
		exp   time.Time
	}{
		{"session grant", policy.ScopeSession, time.Time{}},
		{"workspace rule", policy.ScopeWorkspace, time.Time{}},
		{"grant with an expiry", policy.ScopeSession, expires},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sig := "shell:rm " + string(rune('a'+i))
			g := add(c.scope, sig, c.exp)
			kind := "grant"
			if c.scope == policy.ScopeWorkspace {
				kind = "rule"
			}
			if err := r.svc.RevokeGrant(ctx, RevokeGrantArgs{ID: g.ID, Kind: kind, SessionID: s.ID}); err != nil {
				t.Fatal(err)
			}
			back, err := r.svc.RestoreGrant(ctx, RestoreGrantArgs{SessionID: s.ID, ID: g.ID})
			if err != nil {
				t.Fatal(err)
			}
			if back.ID == g.ID || back.Signature != sig || back.Scope != string(c.scope) || back.Kind != kind ||
				len(back.Reasons) != 1 || back.Reasons[0] != policy.ReasonDestructiveEffect {
				t.Fatalf("restored %+v from %+v", back, g)
			}
			if !c.exp.IsZero() && back.ExpiresAt != c.exp.UnixMilli() {
				t.Fatalf("expiry %d, want %d", back.ExpiresAt, c.exp.UnixMilli())
			}
			again, err := r.svc.RestoreGrant(ctx, RestoreGrantArgs{SessionID: s.ID, ID: g.ID})
			if err != nil || again.ID != back.ID {
				t.Fatalf("a second undo made another grant: %+v %v", again, err)
			}
			list, err := r.svc.ListGrants(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, l := range list {
				if l.Signature == sig {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d grants for %s after the undo: %+v", n, sig, list)
			}
		})
	}
	// Refusals: a grant in force, another session's session grant, an
	// expired one, one that does not exist.
	live := add(policy.ScopeSession, "shell:ls", time.Time{})
	if _, err := r.svc.RestoreGrant(ctx, RestoreGrantArgs{SessionID: s.ID, ID: live.ID}); err == nil {
		t.Error("restoring a grant in force should fail")
	}
	if err := r.svc.RevokeGrant(ctx, RevokeGrantArgs{ID: live.ID, Kind: "grant", SessionID: s.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.RestoreGrant(ctx, RestoreGrantArgs{SessionID: other.ID, ID: live.ID}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another session restored a session grant: %v", err)
	}
	old := add(policy.ScopeSession, "shell:old", time.Now().Add(50*time.Millisecond))
	if err := r.svc.RevokeGrant(ctx, RevokeGrantArgs{ID: old.ID, Kind: "grant", SessionID: s.ID}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(80 * time.Millisecond)
	if _, err := r.svc.RestoreGrant(ctx, RestoreGrantArgs{SessionID: s.ID, ID: old.ID}); err == nil {
		t.Error("an expired grant came back")
	}
	if _, err := r.svc.RestoreGrant(ctx, RestoreGrantArgs{SessionID: s.ID, ID: "no-such-grant"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	added := 0
	for _, e := range r.events(s.ID, store.KindGrantAdded) {
		_ = e
		added++
	}
	if added < 6 {
		t.Errorf("%d GrantAdded events, want the adds and the restores", added)
	}
}
