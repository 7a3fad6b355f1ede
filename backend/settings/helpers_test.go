package settings_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
)

// rig is the real graph (SQLite file, runtime, MCP manager) on a temp
// config; its Settings service is the one under test.
type rig struct {
	g    *assemble.Graph
	path string // the user's config.toml
}

// isolate points every location and provider variable at nothing.
func isolate(t *testing.T) string {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, v := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"} {
		t.Setenv(v, "")
	}
	return filepath.Join(cfg, "warden", "config.toml")
}

// newRig opens a graph; fixture (under testdata) becomes config.toml.
func newRig(t *testing.T, fixture string) *rig {
	t.Helper()
	path := isolate(t)
	if fixture != "" {
		writeConfig(t, path, readFile(t, filepath.Join("testdata", fixture)))
	}
	g, err := assemble.Open(context.Background(), assemble.Options{DBPath: filepath.Join(t.TempDir(), "w.db"),
		MCPListTimeout: 10 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	if g.ConfigPath != path {
		t.Fatalf("config path %s, want %s", g.ConfigPath, path)
	}
	return &rig{g: g, path: path}
}

func writeConfig(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fileOrNone reads a file, "" when it does not exist.
func fileOrNone(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

func (r *rig) activeModel(t *testing.T) string {
	t.Helper()
	info, err := r.g.Service.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.Model
}
