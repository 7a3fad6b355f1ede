package settings_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
)

func everythingBin(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", "testdeps", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("server-everything is not installed: run `npm ci --prefix testdeps` (%v)", err)
	}
	return bin
}

func statusOf(t *testing.T, list []mcp.ServerStatus, name string) *mcp.ServerStatus {
	t.Helper()
	for i := range list {
		if list[i].Name == name {
			return &list[i]
		}
	}
	return nil
}

// A server added in Settings is in the user's config.toml as a person
// would write it, is read by the same code as `warden mcp list`, runs and is
// trusted without a restart, with the launch hash the CLI computes; an edit
// voids that trust, a removal stops it.
func TestMcpServerFromSettings(t *testing.T) {
	r := newRig(t, "")
	ctx := context.Background()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	sess, err := r.g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	bin := everythingBin(t)
	list, err := r.g.Settings.SaveMcpServer(ctx, settings.McpServerArgs{SessionID: sess.ID, Name: "everything",
		Command: bin, Args: []string{"stdio"}, Env: map[string]string{"EVERYTHING_TOKEN": "t0k3n"}})
	if err != nil {
		t.Fatal(err)
	}
	st := statusOf(t, list, "everything")
	if st == nil || st.Trust != nil || st.Source != r.path || strings.Join(st.EnvNames, ",") != "EVERYTHING_TOKEN" {
		t.Fatalf("after the add: %+v", list)
	}
	text := readFile(t, r.path)
	if !strings.Contains(text, "[mcp.servers.everything]") || !strings.Contains(text, `EVERYTHING_TOKEN = "t0k3n"`) {
		t.Fatalf("config.toml:\n%s", text)
	}
	// The CLI's reading of the same file.
	cfg := mcpconfig.LoadConfig(r.path, ws)
	srv, ok := cfg.Servers["everything"]
	if !ok || srv.Command != bin || len(cfg.Errors) > 0 {
		t.Fatalf("mcpconfig.LoadConfig: %+v %v", cfg.Servers, cfg.Errors)
	}
	key, err := mcpconfig.LoadHashKey(mcpconfig.HashKeyPath(r.path))
	if err != nil {
		t.Fatal(err)
	}

	// Trust for the workspace, as the Settings row's button does: the server
	// starts, its tools are listed, the trust binds to the CLI's hash.
	tctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := r.g.Service.TrustMcpServer(tctx, runtime.TrustMcpArgs{SessionID: sess.ID, Server: "everything", Scope: "workspace"}); err != nil {
		t.Fatal(err)
	}
	list, err = r.g.Settings.McpServers(ctx, settings.McpServersArgs{SessionID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	st = statusOf(t, list, "everything")
	if st == nil || st.State != mcp.StateRunning || len(st.Tools) == 0 || st.Trust == nil || !st.Trust.ConfigMatches ||
		st.Trust.Scope != mcp.TrustPersistent || st.ConfigHash != srv.LaunchHash(key) {
		t.Fatalf("after trust: %+v (want running, trusted, hash %s)", st, srv.LaunchHash(key))
	}

	// An edit that keeps the env value but changes the arguments voids it.
	list, err = r.g.Settings.SaveMcpServer(ctx, settings.McpServerArgs{SessionID: sess.ID, Name: "everything", Previous: "everything",
		Command: bin, Args: []string{"stdio", "--verbose"}, KeepEnv: []string{"EVERYTHING_TOKEN"}})
	if err != nil {
		t.Fatal(err)
	}
	st = statusOf(t, list, "everything")
	if st == nil || st.Trust != nil && st.Trust.ConfigMatches {
		t.Fatalf("an edited server is still trusted: %+v", st)
	}
	if text := readFile(t, r.path); !strings.Contains(text, `EVERYTHING_TOKEN = "t0k3n"`) || !strings.Contains(text, `"--verbose"`) {
		t.Fatalf("the kept env value or the new args are missing:\n%s", text)
	}

	// Refusals leave the file as it was.
	before := readFile(t, r.path)
	refusals := []struct {
		name string
		args settings.McpServerArgs
		want error
	}{
		{"no name", settings.McpServerArgs{Command: "x"}, settings.ErrInvalid},
		{"command and url", settings.McpServerArgs{Name: "b", Command: "x", URL: "https://a.example/mcp"}, settings.ErrInvalid},
		{"neither", settings.McpServerArgs{Name: "b"}, settings.ErrInvalid},
		{"a taken name", settings.McpServerArgs{Name: "everything", Command: "x"}, settings.ErrInvalid},
		{"a bad name", settings.McpServerArgs{Name: "no spaces please", Command: "x"}, settings.ErrInvalid},
		{"a bad sandbox", settings.McpServerArgs{Name: "b", Command: "x", Sandbox: "maybe"}, settings.ErrInvalid},
		{"editing what is not in config.toml", settings.McpServerArgs{Name: "b", Previous: "from-the-repo", Command: "x"}, settings.ErrNotUserServer},
	}
	for _, c := range refusals {
		if _, err := r.g.Settings.SaveMcpServer(ctx, c.args); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := r.g.Settings.RemoveMcpServer(ctx, settings.McpRemoveArgs{Name: "from-the-repo"}); !errors.Is(err, settings.ErrNotUserServer) {
		t.Errorf("removing what is not in config.toml: %v", err)
	}
	if after := readFile(t, r.path); after != before {
		t.Fatalf("a refused save changed the file:\n%s", after)
	}

	list, err = r.g.Settings.RemoveMcpServer(ctx, settings.McpRemoveArgs{SessionID: sess.ID, Name: "everything"})
	if err != nil {
		t.Fatal(err)
	}
	if statusOf(t, list, "everything") != nil || strings.Contains(readFile(t, r.path), "everything") {
		t.Fatalf("after the removal: %+v\n%s", list, readFile(t, r.path))
	}
}
