package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

func TestPolicySession(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sb := policy.SandboxPolicy{Kind: policy.ReadOnly}
	grants := []policy.Grant{{ID: "g", Signature: "fs.read", Scope: policy.ScopeSession, Reasons: []policy.Reason{policy.ReasonPolicyAlways}}}
	x := Session{ID: "s", Workspace: "/w", Approval: policy.Always, Sandbox: sb, Planning: true}
	got := x.PolicySession(true, grants, now)
	want := policy.Session{Workspace: "/w", Approval: policy.Always, Sandbox: sb, Planning: true, Caged: true, Grants: grants, Now: now}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
