package mcpconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadConfigWorkspaceFiles: a workspace's servers come from
// .warden/config.toml and .mcp.json (the later wins a name), run in the
// workspace, and override a user server of the same name.
func TestLoadConfigWorkspaceFiles(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	user := filepath.Join(home, "config.toml")
	write(user, "[mcp.servers.mine]\ncommand = \"my-mcp\"\n[mcp.servers.shared]\ncommand = \"user-version\"\n")
	write(filepath.Join(ws, ".warden", "config.toml"), "[model]\nspec = \"demo\"\n[mcp.servers.shared]\ncommand = \"warden-version\"\n[mcp.servers.only-toml]\ncommand = \"t\"\nargs = [\"--x\"]\n")
	write(filepath.Join(ws, ".mcp.json"), `{"mcpServers":{"only-json":{"command":"j"},"shared":{"command":"json-version"}}}`)

	cfg := LoadConfig(user, ws)
	if len(cfg.Errors) > 0 {
		t.Fatalf("errors: %v", cfg.Errors)
	}
	cases := []struct {
		name, command, dir, source string
	}{
		{"mine", "my-mcp", "", user},
		{"shared", "json-version", ws, filepath.Join(ws, ".mcp.json")},
		{"only-toml", "t", ws, filepath.Join(ws, ".warden", "config.toml")},
		{"only-json", "j", ws, filepath.Join(ws, ".mcp.json")},
	}
	if len(cfg.Servers) != len(cases) {
		t.Fatalf("servers = %v", cfg.Servers)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ok := cfg.Servers[c.name]
			if !ok || s.Command != c.command || s.Dir != c.dir || s.Source != c.source {
				t.Fatalf("%s = %+v, want command %q dir %q source %q", c.name, s, c.command, c.dir, c.source)
			}
		})
	}
	if got := LoadConfig(user, ""); len(got.Servers) != 2 {
		t.Fatalf("without a workspace: %v", got.Servers)
	}
}
