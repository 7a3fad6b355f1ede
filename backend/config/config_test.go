package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

func TestLoadUserFile(t *testing.T) {
	cases := []struct {
		name    string
		file    string // under testdata/user; "" = no file
		want    func(c Config) bool
		wantErr string
	}{
		{name: "nothing configured gives defaults", file: "", want: func(c Config) bool {
			return c.Approval == policy.OnRequest && c.Sandbox.Kind == policy.WorkspaceWrite && !c.Sandbox.NetworkAccess &&
				c.SandboxMode == "bwrap" && c.Model == "" && len(c.Sources) == 0
		}},
		{name: "every key", file: "full.toml", want: func(c Config) bool {
			return c.Model == "openai:qwen2.5-coder" && c.BaseURL == "http://127.0.0.1:11434/v1" && c.Approval == policy.Never &&
				c.Sandbox.NetworkAccess && reflect.DeepEqual(c.Sandbox.WritableRoots, []string{"/srv/cache"}) &&
				c.ApprovalTimeout == 30*time.Second && c.SandboxMode == "container" &&
				c.Images == Images{MaxEdge: 1024, MaxBytes: 2000000, Keep: 3}
		}},
		{name: "a tiny image edge is refused", file: "bad-images.toml", wantErr: "images.max_edge 4 is below 16"},
		{name: "typo is an error naming the key", file: "typo.toml", wantErr: "unknown keys defaults.aproval"},
		{name: "bad approval lists valid values", file: "bad-approval.toml", wantErr: "on-request"},
		{name: "bad sandbox mode", file: "bad-mode.toml", wantErr: `sandbox.mode "off" is not valid`},
		{name: "relative writable root", file: "relative-root.toml", wantErr: "not an absolute path"},
		{name: "not TOML", file: "not-toml.toml", wantErr: "not-toml.toml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "missing.toml")
			if tc.file != "" {
				path = filepath.Join("testdata", "user", tc.file)
			}
			c, err := Load(path, "")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(c) {
				t.Fatalf("unexpected config: %+v", c)
			}
		})
	}
}

// A workspace file comes with the repository: it may narrow, never widen.
func TestWorkspaceFileOnlyNarrows(t *testing.T) {
	cases := []struct {
		name     string
		user     string
		ws       string
		want     func(c Config) bool
		warnings int
	}{
		{name: "widening is ignored and reported", user: "", ws: "widen.toml", warnings: 6, want: func(c Config) bool {
			return c.Model == "" && c.BaseURL == "" && c.Approval == policy.OnRequest && c.Sandbox.Kind == policy.WorkspaceWrite &&
				!c.Sandbox.NetworkAccess && len(c.Sandbox.WritableRoots) == 0 && c.SandboxMode == "bwrap"
		}},
		{name: "narrowing applies", user: "full.toml", ws: "narrow.toml", want: func(c Config) bool {
			return c.Approval == policy.Always && c.Sandbox.Kind == policy.ReadOnly && !c.Sandbox.NetworkAccess &&
				c.Model == "openai:qwen2.5-coder"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.MkdirAll(filepath.Join(ws, ".warden"), 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join("testdata", "ws", tc.ws))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(WorkspacePath(ws), data, 0o644); err != nil {
				t.Fatal(err)
			}
			user := ""
			if tc.user != "" {
				user = filepath.Join("testdata", "user", tc.user)
			}
			c, err := Load(user, ws)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(c) {
				t.Fatalf("unexpected config: %+v", c)
			}
			if len(c.Warnings) != tc.warnings {
				t.Fatalf("warnings = %q, want %d", c.Warnings, tc.warnings)
			}
		})
	}
}

func TestUserPathFollowsXDG(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/cfg")
	p, err := UserPath()
	if err != nil || p != "/x/cfg/warden/config.toml" {
		t.Fatalf("UserPath = %q, %v", p, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata/user", "testdata/ws"} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Parse(data, "fuzz.toml")
		if err != nil {
			return
		}
		var c Config = Default()
		_ = c.apply(fl, "fuzz.toml")
		c2 := Default()
		_ = c2.narrow(fl, "fuzz.toml")
		if width(c2.Sandbox.Kind) > width(policy.WorkspaceWrite) || c2.Sandbox.NetworkAccess || c2.Model != "" {
			t.Fatalf("a workspace file widened the defaults: %+v", c2)
		}
	})
}
