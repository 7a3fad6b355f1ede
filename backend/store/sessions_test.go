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

func TestApprovalStrings(t *testing.T) {
	cases := []struct {
		a policy.ApprovalPolicy
		s string
	}{{policy.OnRequest, "on-request"}, {policy.Never, "never"}, {policy.Always, "always"}}
	for _, tc := range cases {
		t.Run(tc.s, func(t *testing.T) {
			if got := approvalString(tc.a); got != tc.s {
				t.Errorf("approvalString = %q", got)
			}
			if got, err := parseApproval(tc.s); err != nil || got != tc.a {
				t.Errorf("parseApproval = %v, %v", got, err)
			}
		})
	}
	if _, err := parseApproval(approvalString(policy.ApprovalPolicy(7))); err == nil {
		t.Error("unknown approval policy parsed")
	}
}
