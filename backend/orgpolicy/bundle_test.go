package orgpolicy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/policy"
)

// Every testdata/bundle/*.toml says on its first line what parsing it
// gives: "# want: ok" or "# want: <part of the error>".
func TestParseBundleFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/bundle/*.toml")
	if err != nil || len(files) < 20 {
		t.Fatalf("bundle cases: %v (%d)", err, len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("%s: first line must be # want: ...", f)
			}
			b, err := orgpolicy.ParseBundle(data, f)
			if want == "ok" {
				if err != nil {
					t.Fatalf("want ok, got %v", err)
				}
				if b.Digest != orgpolicy.Digest(data) || !strings.HasPrefix(b.Digest, "sha256:") {
					t.Fatalf("digest %q", b.Digest)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("want an error containing %q, got %v", want, err)
			}
		})
	}
}

func TestFullBundle(t *testing.T) {
	data, err := os.ReadFile("testdata/bundle/full.toml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := orgpolicy.ParseBundle(data, "/etc/warden/policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	o := b.Org
	if !o.Active() || o.File != "/etc/warden/policy.toml" || o.Digest != b.Digest {
		t.Fatalf("org %+v", o)
	}
	if o.ApprovalAllowed(policy.Never) || !o.ApprovalAllowed(policy.OnRequest) || !o.ApprovalAllowed(policy.Always) {
		t.Fatalf("approvals %v", o.Approvals)
	}
	if o.Sandbox == nil || *o.Sandbox != policy.WorkspaceWrite || o.NoNetwork {
		t.Fatalf("sandbox %v network off %v", o.Sandbox, o.NoNetwork)
	}
	if len(o.Hosts) != 3 || len(o.DenyHosts) != 1 {
		t.Fatalf("hosts %v deny %v", o.Hosts, o.DenyHosts)
	}
	if !o.MCPRestricted || !o.ServerAllowed("github") || o.ServerAllowed("evil") {
		t.Fatalf("mcp %v", o.MCPServers)
	}
	if !b.AllowsServer("docs", "sha256:whatever") || b.AllowsServer("github", "sha256:other") ||
		!b.AllowsServer("github", "sha256:0f343b0931126a20f133d67c2b018a3b5e2d1c3f1e1c0a2b7c4d5e6f708192a3") {
		t.Fatal("AllowsServer")
	}
	if !o.AnswererAllowed("human") || o.AnswererAllowed("model") {
		t.Fatalf("answerers %v", o.Answerers)
	}
	if o.MaxGrant != 14*24*time.Hour || !o.UserAllow || o.WorkspaceAllow {
		t.Fatalf("grants %v user %v ws %v", o.MaxGrant, o.UserAllow, o.WorkspaceAllow)
	}
	if len(b.Rules) != 4 || b.Rules[0].Line != 34 || b.Rules[0].Tier != policy.TierOrg {
		t.Fatalf("rules %+v", b.Rules)
	}
	if b.Expires.Year() != 2099 {
		t.Fatalf("expires %v", b.Expires)
	}
}

// The bundle's [telemetry] is kept as written, for the config tier to pin
// over the user's (config.ApplyOrgTelemetry).
func TestBundleTelemetry(t *testing.T) {
	data, err := os.ReadFile("testdata/bundle/telemetry-required.toml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := orgpolicy.ParseBundle(data, "/etc/warden/policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	tel := b.Telemetry
	if tel == nil || tel.Required == nil || !*tel.Required || tel.Endpoint == nil || *tel.Endpoint != "https://otel.corp.example:4318" ||
		tel.Headers["X-Tenant"] != "eng" || tel.LogArguments == nil || *tel.LogArguments {
		t.Fatalf("telemetry %+v", tel)
	}
	if b.Org.Sandbox == nil || *b.Org.Sandbox != policy.WorkspaceWrite {
		t.Fatal("the rest of the bundle was lost")
	}
	none, err := orgpolicy.ParseBundle([]byte("[sandbox]\nwidest = \"read-only\"\n"), "/etc/warden/policy.toml")
	if err != nil || none.Telemetry != nil {
		t.Fatalf("a bundle without [telemetry]: %+v %v", none.Telemetry, err)
	}
}
