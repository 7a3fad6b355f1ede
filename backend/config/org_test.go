package config

import (
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

func TestApplyOrg(t *testing.T) {
	ww := policy.WorkspaceWrite
	org := &policy.Org{File: "/etc/warden/policy.toml", Digest: "sha256:00ff", Sandbox: &ww, NoNetwork: true,
		Approvals: []policy.ApprovalPolicy{policy.OnRequest, policy.Always}}
	for _, c := range []struct {
		name     string
		approval policy.ApprovalPolicy
		sandbox  policy.SandboxPolicy
		wantA    policy.ApprovalPolicy
		wantS    policy.SandboxPolicy
		warnings int
	}{
		{"within", policy.OnRequest, policy.SandboxPolicy{Kind: policy.ReadOnly}, policy.OnRequest, policy.SandboxPolicy{Kind: policy.ReadOnly}, 0},
		{"never and full access", policy.Never, policy.SandboxPolicy{Kind: policy.DangerFullAccess}, policy.OnRequest, policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, 2},
		{"network on", policy.Always, policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true, WritableRoots: []string{"/r"}},
			policy.Always, policy.SandboxPolicy{Kind: policy.WorkspaceWrite, WritableRoots: []string{"/r"}}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Default()
			cfg.Approval, cfg.Sandbox = c.approval, c.sandbox
			ApplyOrg(&cfg, org)
			if cfg.Approval != c.wantA || cfg.Sandbox.Kind != c.wantS.Kind || cfg.Sandbox.NetworkAccess != c.wantS.NetworkAccess ||
				len(cfg.Sandbox.WritableRoots) != len(c.wantS.WritableRoots) {
				t.Fatalf("got %v %+v", cfg.Approval, cfg.Sandbox)
			}
			if len(cfg.Warnings) != c.warnings {
				t.Fatalf("warnings %q", cfg.Warnings)
			}
			for _, w := range cfg.Warnings {
				if !strings.Contains(w, "/etc/warden/policy.toml") || !strings.Contains(w, "organisation") {
					t.Fatalf("warning does not name the policy: %s", w)
				}
			}
		})
	}
	cfg := Default()
	cfg.Sandbox.Kind = policy.DangerFullAccess
	ApplyOrg(&cfg, nil)
	if cfg.Sandbox.Kind != policy.DangerFullAccess || len(cfg.Warnings) != 0 {
		t.Fatal("no policy changed something")
	}
}
