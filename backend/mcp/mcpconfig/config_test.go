package mcpconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestParseConfigFiles(t *testing.T) {
	cases := []struct {
		file    string
		servers []string // valid servers loaded
		errs    []string // one substring per expected error, in order
	}{
		{"valid.mcp.json", []string{"everything", "remote", "typed-stdio"}, nil},
		{"unknown-field.mcp.json", []string{"ok"}, []string{`server "sneaky": field "autoApprove": unknown field`}},
		{"both-command-and-url.mcp.json", nil, []string{`server "x": field "url": set either "command" (stdio) or "url" (HTTP), not both`}},
		{"neither.mcp.json", nil, []string{`server "x": field "command": missing`}},
		{"bad-url.mcp.json", nil, []string{`server "x": field "url": want an absolute http:// or https:// URL, got "ftp://h/mcp"`, `server "y": field "url"`}},
		{"sse.mcp.json", nil, []string{`field "type": the legacy SSE transport is not supported`}},
		{"args-not-array.mcp.json", nil, []string{`field "args": want an array of strings`}},
		{"env-not-strings.mcp.json", nil, []string{`field "env": want an object of strings`}},
		{"bad-name.mcp.json", nil, []string{`server "../escape": server names use letters`, `server "has space": server names use letters`}},
		{"headers-on-stdio.mcp.json", nil, []string{`field "headers": headers apply to HTTP servers only`}},
		{"servers-not-object.mcp.json", nil, []string{`field "mcpServers": want an object`}},
		{"not-json.mcp.json", nil, []string{"not a JSON object"}},
		{"no-servers.mcp.json", nil, nil},
		{"type-mismatch.mcp.json", nil, []string{`field "type": "http" needs "url"`}},
		{"valid.toml", []string{"git", "remote"}, nil},
		{"unknown-field.toml", []string{"ok"}, []string{`server "git": field "trust": unknown field`}},
		{"wrong-type.toml", nil, []string{`server "git": bad value`}},
		{"not-toml.toml", nil, []string{"not valid TOML"}},
		{"sandbox.mcp.json", []string{"caged", "default", "free"}, []string{
			`server "number": field "sandbox": want a string`,
			`server "remote": field "sandbox": "sandbox" applies to stdio servers only`,
			`server "typo": field "sandbox": unknown value "off" (want "cage" or "none")`}},
		{"sandbox.toml", []string{"caged", "free"}, []string{`server "typo": field "sandbox": unknown value "yes"`}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "config", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			parse := ParseMCPJSON
			if strings.HasSuffix(tc.file, ".toml") {
				parse = ParseUserConfig
			}
			servers, err := parse(data, path)
			var got []string
			for name, s := range servers {
				got = append(got, name)
				if s.Source != path || s.Name != name {
					t.Errorf("server %s: source %q name %q", name, s.Source, s.Name)
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, tc.servers) {
				t.Fatalf("servers = %v, want %v", got, tc.servers)
			}
			var errs []error
			if err != nil {
				errs = unjoin(err)
			}
			if len(errs) != len(tc.errs) {
				t.Fatalf("errors = %v, want %d: %q", err, len(tc.errs), tc.errs)
			}
			for i, e := range errs {
				var ce *ConfigError
				if !errors.As(e, &ce) || ce.File != path {
					t.Errorf("error %v is not a ConfigError naming %s", e, path)
				}
				if !strings.Contains(e.Error(), tc.errs[i]) {
					t.Errorf("error %d = %q, want it to contain %q", i, e, tc.errs[i])
				}
			}
		})
	}
}

func TestValidConfigFields(t *testing.T) {
	path := filepath.Join("testdata", "config", "valid.mcp.json")
	data, _ := os.ReadFile(path)
	servers, err := ParseMCPJSON(data, path)
	if err != nil {
		t.Fatal(err)
	}
	e := servers["everything"]
	if e.Transport() != TransportStdio || e.Command != "npx" || len(e.Args) != 2 || e.Env["TOKEN"] != "s3cret" {
		t.Fatalf("everything = %+v", e)
	}
	r := servers["remote"]
	if r.Transport() != TransportHTTP || r.Headers["Authorization"] != "Bearer abc" {
		t.Fatalf("remote = %+v", r)
	}
}

// TestSandboxSetting: the setting is read as written, and changing it is a
// new launch config (a repository turning its server's cage off is trusted
// again).
func TestSandboxSetting(t *testing.T) {
	path := filepath.Join("testdata", "config", "sandbox.mcp.json")
	data, _ := os.ReadFile(path)
	servers, _ := ParseMCPJSON(data, path)
	for name, want := range map[string]string{"caged": SandboxCage, "free": SandboxNone, "default": ""} {
		if got := servers[name].Sandbox; got != want {
			t.Errorf("%s: sandbox %q, want %q", name, got, want)
		}
	}
	key := []byte("k")
	def, caged, free := servers["default"], servers["default"], servers["default"]
	caged.Sandbox, free.Sandbox = SandboxCage, SandboxNone
	if def.LaunchHash(key) == free.LaunchHash(key) || caged.LaunchHash(key) == free.LaunchHash(key) {
		t.Fatal("the sandbox setting is not part of the launch hash")
	}
	old := ServerConfig{Command: "mcp-server-filesystem", Args: []string{"."}}
	if old.LaunchHash(key) != def.LaunchHash(key) {
		t.Fatal("a config without the setting hashes differently than before it existed (trust would be voided)")
	}
}

func TestLoadConfigMerges(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(user, "[mcp.servers.shared]\ncommand = \"user-cmd\"\n[mcp.servers.mine]\ncommand = \"mine\"\n")
	write(filepath.Join(ws, ".mcp.json"), `{"mcpServers":{"shared":{"command":"ws-cmd"},"bad":{"command":1}}}`)

	cfg := LoadConfig(user, ws)
	if got := cfg.Servers["shared"]; got.Command != "ws-cmd" || got.Dir != ws {
		t.Fatalf("workspace did not override: %+v", got)
	}
	if got := cfg.Servers["mine"]; got.Command != "mine" || got.Dir != "" {
		t.Fatalf("user server: %+v", got)
	}
	if len(cfg.Errors) != 1 || !strings.Contains(cfg.Errors[0].Error(), `server "bad": field "command"`) {
		t.Fatalf("errors = %v", cfg.Errors)
	}
	// Missing files are not errors: nothing configured is a valid state.
	if cfg := LoadConfig(filepath.Join(dir, "none.toml"), filepath.Join(dir, "nowhere")); len(cfg.Servers) != 0 || len(cfg.Errors) != 0 {
		t.Fatalf("missing files: %+v", cfg)
	}
	// An oversized file is refused.
	write(filepath.Join(ws, ".mcp.json"), strings.Repeat(" ", maxConfigBytes+1))
	if cfg := LoadConfig("", ws); len(cfg.Errors) != 1 || !strings.Contains(cfg.Errors[0].Error(), "larger than") {
		t.Fatalf("oversized: %v", cfg.Errors)
	}
}

func TestLaunchHash(t *testing.T) {
	key := []byte("k1")
	base := ServerConfig{Command: "node", Args: []string{"s.js"}, Env: map[string]string{"A": "1"}}
	same := base
	same.Source = "elsewhere"
	same.RunDir = "/somewhere"
	if base.LaunchHash(key) != same.LaunchHash(key) {
		t.Fatal("source or run dir changed the hash")
	}
	variants := map[string]ServerConfig{
		"command":      {Command: "nodejs", Args: base.Args, Env: base.Env},
		"args":         {Command: "node", Args: []string{"s.js", "--x"}, Env: base.Env},
		"env name":     {Command: "node", Args: base.Args, Env: map[string]string{"B": "1"}},
		"env value":    {Command: "node", Args: base.Args, Env: map[string]string{"A": "2"}},
		"env added":    {Command: "node", Args: base.Args, Env: map[string]string{"A": "1", "B": ""}},
		"dir":          {Command: "node", Args: base.Args, Env: base.Env, Dir: "/ws"},
		"url":          {URL: "https://h/mcp"},
		"header value": {URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	}
	for name, v := range variants {
		if v.LaunchHash(key) == base.LaunchHash(key) {
			t.Errorf("changing %s kept the hash", name)
		}
	}
	if base.LaunchHash(key) == base.LaunchHash([]byte("k2")) {
		t.Error("the hash does not depend on the key")
	}
	// Keyed: without the key, the stored hash of a short secret cannot be
	// recomputed from a guess.
	secret := ServerConfig{Command: "gh-mcp", Env: map[string]string{"GITHUB_TOKEN": "1234"}}
	if secret.LaunchHash(key) == secret.LaunchHash(nil) {
		t.Error("the keyed hash equals the unkeyed one")
	}
}

// FuzzParseMCPJSON: any input gives servers or errors, never a panic, and
// every server that loads is internally consistent.
func FuzzParseMCPJSON(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "config"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			data, _ := os.ReadFile(filepath.Join("testdata", "config", e.Name()))
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _ := ParseMCPJSON(data, "f.json")
		checkServers(t, servers)
	})
}

func FuzzParseUserConfig(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "config"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".toml") {
			data, _ := os.ReadFile(filepath.Join("testdata", "config", e.Name()))
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _ := ParseUserConfig(data, "f.toml")
		checkServers(t, servers)
	})
}

func checkServers(t *testing.T, servers map[string]ServerConfig) {
	for name, s := range servers {
		if s.Name != name || !serverNameRE().MatchString(name) {
			t.Fatalf("bad name %q", name)
		}
		if (s.Command == "") == (s.URL == "") {
			t.Fatalf("server %q has both or neither of command and url: %+v", name, s)
		}
		if s.LaunchHash([]byte("k")) == "" {
			t.Fatal("empty hash")
		}
	}
}
