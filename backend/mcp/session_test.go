package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/mcp/internal/testserver"
)

func offeredNames(as []*ToolAdapter) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.MCPTool())
	}
	return out
}

// workspaceServer is the test server as if read from a workspace's
// .mcp.json.
func workspaceServer(t *testing.T, name, dir string, flags ...string) ServerConfig {
	c := goServer(t, name, flags...)
	c.Dir, c.Source = dir, filepath.Join(dir, ".mcp.json")
	return c
}

// TestSessionTrustIsPerSession: one session's trust is not another's, it
// ends with the session, and the process of an untrusted workspace server
// stops when the last session trusting it ends.
func TestSessionTrustIsPerSession(t *testing.T) {
	ctx := context.Background()
	m := newTestManager(t, Options{}, workspaceServer(t, "w", t.TempDir()))

	if got := m.Offered(ctx, "A"); len(got) != 0 {
		t.Fatalf("untrusted workspace server offered: %v", offeredNames(got))
	}
	if p := m.Pending(ctx, "A"); len(p) != 1 || p[0].Name != "w" || p[0].Command == "" {
		t.Fatalf("pending = %+v, want w with its command", p)
	}
	if err := m.TrustFor(ctx, "A", "w", TrustSession); err != nil {
		t.Fatal(err)
	}
	if got := offeredNames(m.Offered(ctx, "A")); !slices.Contains(got, "echo") {
		t.Fatalf("A after trust offered %v", got)
	}
	if len(m.Pending(ctx, "A")) != 0 {
		t.Fatal("A still has a card after trusting")
	}
	// B runs in the same workspace: the process is shared, the trust not.
	// B is offered the running server's tools, and each call asks.
	if got := offeredNames(m.Offered(ctx, "B")); !slices.Contains(got, "echo") {
		t.Fatalf("B is not offered the running server's tools: %v", got)
	}
	if p := m.Pending(ctx, "B"); len(p) != 1 {
		t.Fatal("B has no trust card")
	}
	echoB, ok := m.Find("B", "mcp-tool:w/echo")
	if !ok {
		t.Fatal("B cannot reach the running tool to be asked about it")
	}
	if e := effect(t, echoB, `{"text":"x"}`); e.Trusted {
		t.Fatal("B's call is trusted by A's session trust")
	}
	echoA, _ := m.Find("A", "mcp-tool:w/echo")
	if e := effect(t, echoA, `{"text":"x"}`); !e.Trusted {
		t.Fatal("A's call is not trusted")
	}
	if got := m.SessionTrusts("A"); len(got) != 1 || got[0].Server != "w" {
		t.Fatalf("SessionTrusts(A) = %+v", got)
	}

	m.EndSession("A")
	if len(m.SessionTrusts("A")) != 0 {
		t.Fatal("session trust outlived the session")
	}
	if s, _ := m.server("w"); s.running() {
		t.Fatal("the workspace server kept running with no trust left")
	}
	if got := m.Offered(ctx, "A"); len(got) != 0 {
		t.Fatalf("an ended session's trust still offers %v", offeredNames(got))
	}
}

// TestOfferedAfterRugPullAndListChanged: a changed tool is withheld until
// re-trusted and Review shows old and new text; a new tool is offered and
// its first call asks; a removed tool disappears.
func TestOfferedAfterRugPullAndListChanged(t *testing.T) {
	ctx := context.Background()
	m := newTestManager(t, Options{}, workspaceServer(t, "w", t.TempDir()))
	if err := m.TrustFor(ctx, "S", "w", TrustSession); err != nil {
		t.Fatal(err)
	}
	control, _ := m.Find("S", "mcp-tool:w/control")

	invoke(t, control, `{"action":"add-ghost"}`)
	waitFor(t, "ghost offered", func() bool { return slices.Contains(offeredNames(m.Offered(ctx, "S")), "ghost") })
	ghost, _ := m.Find("S", "mcp-tool:w/ghost")
	if e := effect(t, ghost, `{}`); e.Trusted {
		t.Fatal("a tool that appeared through list_changed is trusted")
	}
	if r, err := m.Review(ctx, "S", "w", "ghost"); err != nil || r.Change != "new" || r.Description == "" || len(r.Schema) == 0 {
		t.Fatalf("Review(ghost) = %+v, %v", r, err)
	}

	invoke(t, control, `{"action":"rug-pull"}`)
	waitFor(t, "echo withheld", func() bool { return !slices.Contains(offeredNames(m.Offered(ctx, "S")), "echo") })
	r, err := m.Review(ctx, "S", "w", "echo")
	if err != nil || r.Change != "changed" || r.OldDescription != testserver.EchoDescription || r.Description != testserver.RugPullDescription {
		t.Fatalf("Review(echo) = %+v, %v", r, err)
	}
	if err := m.TrustFor(ctx, "S", "w", TrustSession); err != nil {
		t.Fatal(err)
	}
	if got := offeredNames(m.Offered(ctx, "S")); !slices.Contains(got, "echo") {
		t.Fatalf("echo not offered after re-trust: %v", got)
	}

	invoke(t, control, `{"action":"remove-ghost"}`)
	waitFor(t, "ghost gone", func() bool { return !slices.Contains(offeredNames(m.Offered(ctx, "S")), "ghost") })
	if _, ok := m.Find("S", "mcp-tool:w/ghost"); ok {
		t.Fatal("a removed tool is still found")
	}
}

// TestReloadVoidsChangedLaunchConfig: a changed .mcp.json stops the server
// and voids every trust in it; an unchanged one keeps both.
func TestReloadVoidsChangedLaunchConfig(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	persistent := NewMemoryTrustStore()
	base := workspaceServer(t, "w", dir)
	m := newTestManager(t, Options{Persistent: persistent}, base)
	if err := m.TrustFor(ctx, "S", "w", TrustPersistent); err != nil {
		t.Fatal(err)
	}
	if err := m.TrustFor(ctx, "T", "w", TrustSession); err != nil {
		t.Fatal(err)
	}
	if voided := m.Reload(ctx, Config{Servers: map[string]ServerConfig{"w": base}}); len(voided) != 0 {
		t.Fatalf("an unchanged config voided %v", voided)
	}
	if s, _ := m.server("w"); !s.running() {
		t.Fatal("an unchanged config stopped the server")
	}
	changed := base
	changed.Env = map[string]string{"WARDEN_MCP_TESTSERVER": "1", "EXTRA": "2"}
	if voided := m.Reload(ctx, Config{Servers: map[string]ServerConfig{"w": changed}}); !slices.Equal(voided, []string{"w"}) {
		t.Fatalf("voided = %v, want [w]", voided)
	}
	if _, ok, _ := persistent.Get(ctx, "w"); ok {
		t.Fatal("the persistent trust survived a changed launch config")
	}
	if len(m.SessionTrusts("T")) != 0 {
		t.Fatal("a session trust survived a changed launch config")
	}
	if len(m.Pending(ctx, "S")) != 1 || len(m.Offered(ctx, "S")) != 0 {
		t.Fatal("the changed server is not back on the card")
	}
}

// TestPoolWatchesMCPJSON: one manager per workspace, running in it, and
// an edit of .mcp.json reaches the manager without a restart.
func TestPoolWatchesMCPJSON(t *testing.T) {
	ctx := context.Background()
	exe, _ := os.Executable()
	write := func(dir, env string) {
		body := `{"mcpServers":{"w":{"command":` + quote(exe) + `,"env":{"WARDEN_MCP_TESTSERVER":"1","X":"` + env + `"}}}}`
		if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, b := t.TempDir(), t.TempDir()
	write(a, "1")
	write(b, "1")
	reloaded := make(chan []string, 4)
	p, err := NewPool(PoolOptions{Watch: true, Manager: Options{LogDir: t.TempDir()},
		OnReload: func(ws string, voided []string) {
			if ws == a {
				reloaded <- voided
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	ma, err := p.For(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := p.For(ctx, b)
	if again, _ := p.For(ctx, a); again != ma || ma == mb {
		t.Fatal("not one manager per workspace")
	}
	if err := ma.TrustFor(ctx, "S", "w", TrustSession); err != nil {
		t.Fatal(err)
	}
	if st := ma.StatusFor(ctx, "S")[0]; st.Workspace != a {
		t.Fatalf("server workspace = %q, want %q", st.Workspace, a)
	}
	if len(mb.Offered(ctx, "S")) != 0 {
		t.Fatal("a session's trust in workspace a counts in workspace b")
	}
	write(a, "2")
	select {
	case voided := <-reloaded:
		if !slices.Equal(voided, []string{"w"}) {
			t.Fatalf("voided = %v", voided)
		}
	case <-waitCh(t):
		t.Fatal("no reload after .mcp.json changed")
	}
	if len(ma.Pending(ctx, "S")) != 1 {
		t.Fatal("the changed server is not waiting for trust again")
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// TestPoolWatchesEveryConfigFile: a change to any file that configures a
// workspace's servers reaches its manager without a restart — .mcp.json,
// a .warden/config.toml (even one whose folder appears later) and the user
// config, which concerns every workspace.
func TestPoolWatchesEveryConfigFile(t *testing.T) {
	type files struct{ user, ws string }
	cases := []struct {
		name   string
		change func(t *testing.T, f files)
		want   string // a server that must appear
	}{
		{"edit .mcp.json", func(t *testing.T, f files) {
			writeFile(t, filepath.Join(f.ws, ".mcp.json"), `{"mcpServers":{"from-json":{"command":"x"}}}`)
		}, "from-json"},
		{".warden folder appears with a config", func(t *testing.T, f files) {
			writeFile(t, filepath.Join(f.ws, ".warden", "config.toml"), "[mcp.servers.from-toml]\ncommand = \"x\"\n")
		}, "from-toml"},
		{"edit the user config", func(t *testing.T, f files) {
			writeFile(t, f.user, "[mcp.servers.from-user]\ncommand = \"x\"\n")
		}, "from-user"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			f := files{user: filepath.Join(home, "warden", "config.toml"), ws: ws}
			writeFile(t, f.user, "")
			p, err := NewPool(PoolOptions{UserConfigPath: f.user, Watch: true, Manager: Options{LogDir: t.TempDir()}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			m, err := p.For(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			c.change(t, f)
			waitFor(t, c.want+" to load", func() bool { return slices.Contains(m.Servers(), c.want) })
		})
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
