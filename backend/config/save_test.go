package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
	"github.com/warden-dev/warden/backend/policy"
)

// copyFixture copies testdata/save/name into a temp dir; "" gives a path
// with no file yet.
func copyFixture(t *testing.T, name string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "warden", "config.toml")
	if name == "" {
		return path
	}
	data, err := os.ReadFile(filepath.Join("testdata", "save", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func setModel(spec, base, key string) func(*UserFile) error {
	return func(u *UserFile) error {
		u.Model = UserModel{Spec: spec, BaseURL: base, APIKey: key}
		return nil
	}
}

func TestSaveUser(t *testing.T) {
	yes := true
	cases := []struct {
		name    string
		fixture string
		edit    func(*UserFile) error
		wantErr string
		check   func(t *testing.T, c Config, text string)
	}{
		{name: "no file yet creates one", edit: setModel("openai:gpt-4.1", "", "sk-new-1234"),
			check: func(t *testing.T, c Config, text string) {
				if c.Model != "openai:gpt-4.1" || c.APIKey != "sk-new-1234" || c.Approval != policy.OnRequest {
					t.Errorf("config %+v", c)
				}
			}},
		{name: "comments, sandbox and mcp survive a model change", fixture: "commented.toml",
			edit: func(u *UserFile) error {
				if u.Model.APIKey != "sk-ant-old-0000" || u.Defaults.Approval != "always" {
					t.Errorf("read back %+v", u)
				}
				u.Model.Spec = "anthropic:claude-sonnet-4-5"
				return nil
			},
			check: func(t *testing.T, c Config, text string) {
				if c.Model != "anthropic:claude-sonnet-4-5" || c.APIKey != "sk-ant-old-0000" || c.SandboxMode != "container" ||
					c.Approval != policy.Always || c.ApprovalTimeout != 45*time.Second {
					t.Errorf("config %+v", c)
				}
				for _, kept := range []string{"# Warden user settings", "# Trust the outer container.", "# Servers the agent may call."} {
					if !strings.Contains(text, kept) {
						t.Errorf("comment %q lost:\n%s", kept, text)
					}
				}
			}},
		{name: "defaults change keeps the timeout", fixture: "commented.toml",
			edit: func(u *UserFile) error {
				u.Defaults.Approval, u.Defaults.Sandbox, u.Defaults.Network = "never", "read-only", &yes
				u.Defaults.WritableRoots = []string{"/srv/cache"}
				return nil
			},
			check: func(t *testing.T, c Config, text string) {
				if c.Approval != policy.Never || c.Sandbox.Kind != policy.ReadOnly || !c.Sandbox.NetworkAccess ||
					len(c.Sandbox.WritableRoots) != 1 || c.ApprovalTimeout != 45*time.Second || c.Model != "anthropic:claude-3-haiku" {
					t.Errorf("config %+v", c)
				}
			}},
		{name: "clearing the key removes it", fixture: "commented.toml",
			edit: func(u *UserFile) error { u.Model.APIKey = ""; return nil },
			check: func(t *testing.T, c Config, text string) {
				if c.APIKey != "" || strings.Contains(text, "sk-ant-old") {
					t.Errorf("key still there:\n%s", text)
				}
			}},
		{name: "dotted keys are re-encoded", fixture: "dotted.toml", edit: setModel("openai:gpt-4.1-mini", "", ""),
			check: func(t *testing.T, c Config, text string) {
				if c.Model != "openai:gpt-4.1-mini" || c.Approval != policy.Never {
					t.Errorf("config %+v", c)
				}
			}},
		{name: "inline table is re-encoded", fixture: "inline.toml", edit: setModel("demo", "", ""),
			check: func(t *testing.T, c Config, text string) {
				if c.Model != "demo" || c.BaseURL != "" {
					t.Errorf("config %+v\n%s", c, text)
				}
			}},
		{name: "a header inside a string does not fool the splice", fixture: "twice-header.toml",
			edit: setModel("openai:gpt-4.1", "", ""),
			check: func(t *testing.T, c Config, text string) {
				var g map[string]any
				if _, err := toml.Decode(text, &g); err != nil {
					t.Fatal(err)
				}
				srv := g["mcp"].(map[string]any)["servers"].(map[string]any)["a"].(map[string]any)
				if args := srv["args"].([]any); len(args) != 1 || args[0] != "[model]\n" || c.Model != "openai:gpt-4.1" {
					t.Errorf("args %q model %q", args, c.Model)
				}
			}},
		{name: "unparseable file is refused", fixture: "broken.toml", edit: setModel("demo", "", ""), wantErr: "config.toml"},
		{name: "unknown key is refused", fixture: "unknown-key.toml", edit: setModel("demo", "", ""), wantErr: "model.colour"},
		{name: "edit error writes nothing", fixture: "commented.toml",
			edit: func(*UserFile) error { return errors.New("no thanks") }, wantErr: "no thanks"},
		{name: "invalid result writes nothing", fixture: "commented.toml",
			edit: func(u *UserFile) error { u.Defaults.Approval = "sometimes"; return nil }, wantErr: "defaults.approval"},
		{name: "relative root writes nothing", fixture: "commented.toml",
			edit: func(u *UserFile) error { u.Defaults.WritableRoots = []string{"cache"}; return nil }, wantErr: "absolute"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := copyFixture(t, tc.fixture, 0o644)
			before, _ := os.ReadFile(path)
			err := SaveUser(path, tc.edit)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				after, _ := os.ReadFile(path)
				if string(after) != string(before) {
					t.Errorf("the file changed on error:\n%s", after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			c, err := Load(path, "")
			if err != nil {
				t.Fatal(err)
			}
			text, _ := os.ReadFile(path)
			tc.check(t, c, string(text))
			leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".config-*"))
			if len(leftovers) > 0 {
				t.Errorf("temp files left: %v", leftovers)
			}
		})
	}
}

func TestSaveUserWritesThroughASymlink(t *testing.T) {
	target := copyFixture(t, "commented.toml", 0o600)
	link := filepath.Join(t.TempDir(), "config.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := SaveUser(link, setModel("demo", "", "")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if c, err := Load(target, ""); err != nil || c.Model != "demo" {
		t.Errorf("target: %+v %v", c, err)
	}
}

// The [mcp.servers] tables are backend/mcp's: after a save they load
// exactly as before.
func TestSaveUserKeepsMCPServers(t *testing.T) {
	path := copyFixture(t, "commented.toml", 0o600)
	before := mcpconfig.LoadConfig(path, "")
	if err := SaveUser(path, setModel("openai:gpt-4.1", "http://127.0.0.1:11434/v1", "")); err != nil {
		t.Fatal(err)
	}
	after := mcpconfig.LoadConfig(path, "")
	if len(after.Errors) > 0 || len(after.Servers) != 1 {
		t.Fatalf("after: %+v", after)
	}
	b, a := before.Servers["everything"], after.Servers["everything"]
	if a.LaunchHash(nil) != b.LaunchHash(nil) {
		t.Errorf("server changed: %+v → %+v", b, a)
	}
}

func FuzzSplice(f *testing.F) {
	for _, name := range []string{"commented.toml", "dotted.toml", "inline.toml", "twice-header.toml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "save", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	model := []byte("[model]\nspec = \"demo\"\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		out := splice(data, map[string][]byte{"model": model, "defaults": nil})
		if out == nil {
			return
		}
		var g map[string]any
		if _, err := toml.Decode(string(data), &g); err != nil {
			return
		}
		// render must always produce a document that decodes to the intent.
		text, err := render(data, g, UserFile{Model: UserModel{Spec: "demo"}})
		if err != nil {
			return
		}
		var got map[string]any
		if _, err := toml.Decode(string(text), &got); err != nil {
			t.Fatalf("render gave bad TOML: %v\n%s", err, text)
		}
		if m, _ := got["model"].(map[string]any); m == nil || m["spec"] != "demo" || got["defaults"] != nil {
			t.Fatalf("render lost the intent:\n%s", text)
		}
	})
}
