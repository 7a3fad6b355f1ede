package assemble

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/runtime"
)

func isolate(t *testing.T) string {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	return filepath.Join(cfg, "warden", "config.toml")
}

func TestOpen(t *testing.T) {
	cases := []struct {
		name    string
		config  string // written to the user config file; "" = none
		model   string
		wantErr string
		model2  bool // a *ModelError
		check   func(t *testing.T, g *Graph)
	}{
		{name: "nothing configured runs the demo with every tool", check: func(t *testing.T, g *Graph) {
			info, err := g.Service.Info(context.Background())
			if err != nil || !info.Demo {
				t.Fatalf("Info = %+v, %v; want the demo", info, err)
			}
		}},
		{name: "config picks the model", config: "[model]\nspec = \"script:/nonexistent.json\"\n", wantErr: "nonexistent.json", model2: true},
		{name: "bad spec flag is a model error", model: "nope:x", wantErr: "nope", model2: true},
		{name: "bad config names the file", config: "[defaults]\napproval = \"sometimes\"\n", wantErr: "config.toml"},
		{name: "config default axes reach new sessions", config: "[defaults]\napproval = \"always\"\nsandbox = \"read-only\"\n", check: func(t *testing.T, g *Graph) {
			s, err := g.Service.CreateSession(context.Background(), createArgs(t))
			if err != nil {
				t.Fatal(err)
			}
			if s.Approval.String() != "always" || s.Sandbox.Kind.String() != "read-only" {
				t.Fatalf("session axes = %s / %s, want always / read-only", s.Approval, s.Sandbox.Kind)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			userCfg := isolate(t)
			if tc.config != "" {
				if err := os.MkdirAll(filepath.Dir(userCfg), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(userCfg, []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			g, err := Open(context.Background(), Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Model: tc.model})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				var me *ModelError
				if errors.As(err, &me) != tc.model2 {
					t.Fatalf("err %v: ModelError = %v, want %v", err, !tc.model2, tc.model2)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			tc.check(t, g)
		})
	}
}

func createArgs(t *testing.T) runtime.CreateSessionArgs {
	return runtime.CreateSessionArgs{Workspace: t.TempDir()}
}
