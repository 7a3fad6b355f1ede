package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNetworkSection(t *testing.T) {
	for _, tc := range []struct {
		name      string
		user, ws  string
		allow     []string // resulting HostRules allow patterns, canonical
		deny      []string
		timeout   time.Duration
		err, warn string
	}{
		{name: "nothing configured"},
		{name: "allow and deny", user: "[network]\nallow = [\"registry.npmjs.org\", \"*.github.com:443\"]\ndeny = [\"evil.example\"]\nask_timeout = \"30s\"\n",
			allow: []string{"registry.npmjs.org", "*.github.com:443"}, deny: []string{"evil.example"}, timeout: 30 * time.Second},
		{name: "presets expand", user: "[network]\npresets = [\"npm\"]\n", allow: []string{"registry.npmjs.org:443", "registry.yarnpkg.com:443"}},
		{name: "unknown preset", user: "[network]\npresets = [\"cpan\"]\n", err: `network preset "cpan" is unknown`},
		{name: "bad pattern names the file", user: "[network]\nallow = [\"https://x.org\"]\n", err: "config.toml: [network]"},
		{name: "bad timeout", user: "[network]\nask_timeout = \"soon\"\n", err: "ask_timeout"},
		{name: "unknown key", user: "[network]\nallowed = [\"x.org\"]\n", err: "network.allowed"},
		{name: "workspace may add deny", user: "[network]\nallow = [\"x.org\"]\n", ws: "[network]\ndeny = [\"tracker.example\"]\n",
			allow: []string{"x.org"}, deny: []string{"tracker.example"}},
		{name: "workspace may not allow", ws: "[network]\nallow = [\"*\"]\npresets = [\"github\"]\n", warn: "may only deny hosts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			user := filepath.Join(dir, "config.toml")
			if tc.user != "" {
				if err := os.WriteFile(user, []byte(tc.user), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ws := filepath.Join(dir, "ws")
			if err := os.MkdirAll(filepath.Join(ws, ".warden"), 0o700); err != nil {
				t.Fatal(err)
			}
			if tc.ws != "" {
				if err := os.WriteFile(WorkspacePath(ws), []byte(tc.ws), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := Load(user, ws)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := cfg.Network.HostRules()
			if err != nil {
				t.Fatal(err)
			}
			var allow, deny []string
			for _, p := range r.Allow {
				allow = append(allow, p.String())
			}
			for _, p := range r.Deny {
				deny = append(deny, p.String())
			}
			if strings.Join(allow, ",") != strings.Join(tc.allow, ",") || strings.Join(deny, ",") != strings.Join(tc.deny, ",") {
				t.Fatalf("allow %v deny %v, want %v %v", allow, deny, tc.allow, tc.deny)
			}
			if cfg.Network.AskTimeout != tc.timeout {
				t.Fatalf("timeout %v", cfg.Network.AskTimeout)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(cfg.Warnings, "\n"), tc.warn) {
				t.Fatalf("warnings %v lack %q", cfg.Warnings, tc.warn)
			}
		})
	}
}

func TestNetworkPresetsParse(t *testing.T) {
	ps := NetworkPresets()
	want := []string{"crates", "github", "go", "npm", "pypi"}
	if len(ps) != len(want) {
		t.Fatalf("presets %+v", ps)
	}
	for i, p := range ps {
		if p.Name != want[i] || p.Label == "" || len(p.Allow) == 0 {
			t.Fatalf("preset %+v", p)
		}
		if _, err := (Network{Presets: []string{p.Name}}).HostRules(); err != nil {
			t.Fatalf("preset %s: %v", p.Name, err)
		}
	}
}
