package config

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

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

// TestApplyOrgTelemetry runs testdata/telemetry/org.toml: real files read
// by Load, then the organisation's [telemetry] over them, and the sources
// `warden policy show` lists.
func TestApplyOrgTelemetry(t *testing.T) {
	data, err := os.ReadFile("testdata/telemetry/org.toml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Case []struct {
			Name          string            `toml:"name"`
			Org           string            `toml:"org"`
			User          *string           `toml:"user"`
			Workspace     *string           `toml:"workspace"`
			Want          map[string]any    `toml:"want"`
			WantWarnings  []string          `toml:"want_warnings"`
			WantLoadError string            `toml:"want_load_error"`
			Sources       map[string]string `toml:"sources"`
		} `toml:"case"`
	}
	md, err := toml.Decode(string(data), &file)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("cases: %v %v", err, md.Undecoded())
	}
	if len(file.Case) < 10 {
		t.Fatalf("only %d cases", len(file.Case))
	}
	const orgFile = "/etc/warden/policy.toml"
	for _, c := range file.Case {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			userPath := filepath.Join(dir, "config", "config.toml")
			ws := filepath.Join(dir, "ws")
			if c.User != nil {
				writeTestFile(t, userPath, *c.User)
			}
			if c.Workspace != nil {
				writeTestFile(t, WorkspacePath(ws), *c.Workspace)
			}
			var org TelemetrySection
			if md, err := toml.Decode(c.Org, &org); err != nil || len(md.Undecoded()) > 0 {
				t.Fatalf("org table: %v %v", err, md.Undecoded())
			}
			cfg, err := Load(userPath, ws)
			if c.WantLoadError != "" {
				if err == nil || !strings.Contains(err.Error(), c.WantLoadError) {
					t.Fatalf("Load: %v, want an error containing %q", err, c.WantLoadError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			before := len(cfg.Warnings)
			if err := ApplyOrgTelemetry(&cfg, &org, orgFile, userPath); err != nil {
				t.Fatal(err)
			}
			got := cfg.Telemetry
			for k, v := range c.Want {
				var have any
				switch k {
				case "enabled":
					have = got.Enabled
				case "required":
					have = got.Required
				case "endpoint":
					have = got.Endpoint
				case "log_arguments":
					have = got.LogArguments
				case "user_name":
					have = got.UserName
				case "headers":
					var hs []string
					for name, val := range got.Headers {
						hs = append(hs, name+"="+val)
					}
					sort.Strings(hs)
					have = strings.Join(hs, ",")
				default:
					t.Fatalf("unknown want key %q", k)
				}
				if have != v {
					t.Errorf("%s = %v, want %v", k, have, v)
				}
			}
			for _, w := range c.WantWarnings {
				found := false
				for _, have := range cfg.Warnings {
					found = found || strings.Contains(have, w)
				}
				if !found {
					t.Errorf("no warning contains %q: %q", w, cfg.Warnings)
				}
			}
			if len(c.WantWarnings) == 0 && len(cfg.Warnings) > before {
				t.Errorf("unexpected warnings %q", cfg.Warnings[before:])
			}
			src := map[string]string{}
			for _, s := range TelemetrySources(got, cfg.TelemetryUser, orgFile, userPath) {
				src[s.Key] = s.Source
				if s.Key == "headers" && strings.Contains(s.Value, "=") {
					t.Errorf("policy show would print a header's value: %s", s.Value)
				}
			}
			for k, want := range c.Sources {
				wantSrc := map[string]string{"org": "pinned by " + orgFile, "user": userPath, "default": "default"}[want]
				if src[k] != wantSrc {
					t.Errorf("%s comes from %q, want %q", k, src[k], wantSrc)
				}
			}
		})
	}
	// No organisation table changes nothing.
	cfg := Default()
	if err := ApplyOrgTelemetry(&cfg, nil, orgFile, "config.toml"); err != nil || cfg.Telemetry.Enabled || len(cfg.Warnings) > 0 {
		t.Fatalf("nil org: %+v %v", cfg.Telemetry, err)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
