package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
)

type mcpSaveCase struct {
	Note   string          `json:"note"`
	Before *string         `json:"before"`
	Name   string          `json:"name"`
	Rename string          `json:"rename"`
	Entry  *McpServerEntry `json:"entry"`
	Keep   []string        `json:"keep"`
	Error  string          `json:"error"`
	Want   map[string]struct {
		Command     string            `json:"command"`
		Args        []string          `json:"args"`
		URL         string            `json:"url"`
		Sandbox     string            `json:"sandbox"`
		EnvNames    []string          `json:"env_names"`
		Env         map[string]string `json:"env"`
		HeaderNames []string          `json:"header_names"`
	} `json:"want"`
}

// mcpCheck is the check the Settings screen passes: backend/mcp must read
// every server of the new file.
func mcpCheck(path string) func([]byte) error {
	return func(data []byte) error {
		_, err := mcpconfig.ParseUserConfig(data, path)
		return err
	}
}

func TestSaveUserMcpServer(t *testing.T) {
	raw, err := os.ReadFile("testdata/mcp-save.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []mcpSaveCase }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, c := range file.Cases {
		t.Run(c.Note, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "warden", "config.toml")
			if c.Before != nil {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(*c.Before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := SaveUserMcpServer(path, c.Name, c.Rename, c.Entry, mcpCheck(path))
			if c.Error != "" {
				if err == nil || !strings.Contains(err.Error(), c.Error) {
					t.Fatalf("err = %v, want one containing %q", err, c.Error)
				}
				after, _ := os.ReadFile(path)
				if c.Before == nil && after != nil || c.Before != nil && string(after) != *c.Before {
					t.Fatalf("the file changed on a refused save:\n%s", after)
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
				t.Errorf("mode %v, want 0600 (the file may hold keys)", fi.Mode().Perm())
			}
			text, _ := os.ReadFile(path)
			for _, k := range c.Keep {
				if !strings.Contains(string(text), k) {
					t.Errorf("lost %q:\n%s", k, text)
				}
			}
			if _, err := Load(path, ""); err != nil {
				t.Fatalf("Load refuses the written file: %v\n%s", err, text)
			}
			got, err := mcpconfig.ParseUserConfig(text, path)
			if err != nil {
				t.Fatalf("mcp reads: %v\n%s", err, text)
			}
			if len(got) != len(c.Want) {
				t.Fatalf("servers %v, want %d:\n%s", keys(got), len(c.Want), text)
			}
			for name, w := range c.Want {
				g, ok := got[name]
				if !ok {
					t.Fatalf("no server %q:\n%s", name, text)
				}
				if g.Command != w.Command || g.URL != w.URL || g.Sandbox != w.Sandbox || !reflect.DeepEqual(g.Args, w.Args) {
					t.Errorf("%s = %+v, want %+v\n%s", name, g, w, text)
				}
				if len(w.EnvNames) > 0 && !reflect.DeepEqual(g.EnvNames(), w.EnvNames) {
					t.Errorf("%s env names %v, want %v", name, g.EnvNames(), w.EnvNames)
				}
				for k, v := range w.Env {
					if g.Env[k] != v {
						t.Errorf("%s env %s = %q, want %q", name, k, g.Env[k], v)
					}
				}
				if len(w.HeaderNames) > 0 && len(g.Headers) != len(w.HeaderNames) {
					t.Errorf("%s headers %v, want names %v", name, g.Headers, w.HeaderNames)
				}
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// FuzzTomlString: what tomlString writes always reads back as the same
// string, whatever the bytes.
func FuzzTomlString(f *testing.F) {
	for _, s := range []string{"", "a", `"`, `\`, "\n\t\r", "\u0000\u007f", "café", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v struct{ K string }
		if _, err := decodeTOML("K = "+tomlString(s)+"\n", &v); err != nil {
			t.Fatalf("%q → %s: %v", s, tomlString(s), err)
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if v.K != want {
			t.Fatalf("%q read back as %q", want, v.K)
		}
	})
}

func decodeTOML(s string, v any) (any, error) {
	_, err := toml.Decode(s, v)
	return nil, err
}
