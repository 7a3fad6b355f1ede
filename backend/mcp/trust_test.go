package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/mcp/internal/testserver"

	"github.com/warden-dev/warden/backend/mcp/mcpport"
)

// TestRugPullAndListChanged walks one server through trust, a description
// change, a tool re-appearing through tools/list_changed, and revocation.
func TestRugPullAndListChanged(t *testing.T) {
	ctx := context.Background()
	m := newTestManager(t, Options{}, goServer(t, "t", "--ghost"))
	if got := len(m.Tools(ctx)); got == 0 {
		t.Fatalf("no tools listed; status: %+v", m.Status(ctx))
	}
	echo := lookup(t, m, "mcp-tool:t/echo")
	ghost := lookup(t, m, "mcp__t__ghost")
	control := lookup(t, m, "mcp-tool:t/control")

	if e := effect(t, echo, `{"text":"hi"}`); e.Trusted || e.Server != "t" || e.Tool != "echo" || !e.ReadOnlyHint {
		t.Fatalf("before trust: %+v, want untrusted read-only-hinted t/echo", e)
	}
	if err := m.Trust(ctx, "t", TrustSession); err != nil {
		t.Fatal(err)
	}
	if e := effect(t, echo, `{"text":"hi"}`); !e.Trusted {
		t.Fatalf("after trust: %+v, want trusted", e)
	}

	// Rug pull: the server rewrites echo's description and says so.
	if r := invoke(t, control, `{"action":"rug-pull"}`); r.IsError {
		t.Fatal(resultText(r))
	}
	waitFor(t, "the new echo description", func() bool { return echo.Description() == testserver.RugPullDescription })
	if e := effect(t, echo, `{"text":"hi"}`); e.Trusted {
		t.Fatal("echo still trusted after its description changed")
	}
	if ts, _ := toolStatus(m, "t", "echo"); !strings.Contains(ts.Untrusted, "description or schema changed") {
		t.Fatalf("echo status reason = %q", ts.Untrusted)
	}
	if e := effect(t, ghost, `{}`); !e.Trusted {
		t.Fatal("an unchanged tool lost trust after another tool changed")
	}
	old, cur, err := m.TrustDiff(ctx, "t", "echo")
	if err != nil || old != testserver.EchoDescription || cur != testserver.RugPullDescription {
		t.Fatalf("TrustDiff = %q, %q, %v", old, cur, err)
	}
	if d := mcpport.DescriptionDiff(old, cur); !strings.Contains(d, "+IMPORTANT: before answering") || !strings.Contains(d, "-Echo the text back.") && !strings.Contains(d, " Echo the text back.") {
		t.Fatalf("diff does not show the change:\n%s", d)
	}
	if err := m.TrustTool(ctx, "t", "echo", TrustSession); err != nil {
		t.Fatal(err)
	}
	if e := effect(t, echo, `{"text":"hi"}`); !e.Trusted {
		t.Fatal("echo not trusted after TrustTool")
	}

	// A tool that leaves and comes back through tools/list_changed prompts
	// again, even with the very same description.
	invoke(t, control, `{"action":"remove-ghost"}`)
	waitFor(t, "ghost to go", func() bool { _, ok := m.Lookup("mcp-tool:t/ghost"); return !ok })
	invoke(t, control, `{"action":"add-ghost"}`)
	waitFor(t, "ghost to come back", func() bool { _, ok := m.Lookup("mcp-tool:t/ghost"); return ok })
	if e := effect(t, ghost, `{}`); e.Trusted {
		t.Fatal("ghost trusted after re-appearing through tools/list_changed")
	}
	if ts, _ := toolStatus(m, "t", "ghost"); !strings.Contains(ts.Untrusted, "list_changed") {
		t.Fatalf("ghost status reason = %q", ts.Untrusted)
	}

	if err := m.Untrust(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if e := effect(t, echo, `{"text":"hi"}`); e.Trusted {
		t.Fatal("echo trusted after Untrust")
	}
}

// TestLaunchConfigBindsTrust: persistent trust survives a new manager with
// the same launch config and hash key, and any change to command, args, env
// names or env values drops it.
func TestLaunchConfigBindsTrust(t *testing.T) {
	ctx := context.Background()
	persistent := NewMemoryTrustStore()
	base := goServer(t, "t")
	base.Env["EXTRA"] = "a"
	key := []byte("launch-hash-key")
	first := newTestManager(t, Options{Persistent: persistent, HashKey: key}, base)
	if err := first.Trust(ctx, "t", TrustPersistent); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()

	withoutEnv := goServer(t, "t")
	withOtherEnvName := goServer(t, "t")
	withOtherEnvName.Env["OTHER"] = "a"
	withOtherEnvValue := goServer(t, "t")
	withOtherEnvValue.Env["EXTRA"] = "b"

	cases := []struct {
		name    string
		cfg     ServerConfig
		trusted bool
	}{
		{"same config", base, true},
		{"changed args", func() ServerConfig { c := goServer(t, "t", "--ghost"); c.Env["EXTRA"] = "a"; return c }(), false},
		{"env removed", withoutEnv, false},
		{"other env name", withOtherEnvName, false},
		{"changed env value", withOtherEnvValue, false},
		{"changed command", func() ServerConfig { c := goServer(t, "t"); c.Command += "-other"; return c }(), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestManager(t, Options{Persistent: persistent, HashKey: key}, tc.cfg)
			if err := m.Start(ctx, "t"); err != nil && tc.trusted {
				t.Fatal(err)
			}
			st := m.Status(ctx)[0]
			if st.Trust == nil || st.Trust.ConfigMatches != tc.trusted {
				t.Fatalf("trust status = %+v, want config match %v", st.Trust, tc.trusted)
			}
			if !tc.trusted {
				return
			}
			if e := effect(t, lookup(t, m, "mcp-tool:t/echo"), `{"text":"x"}`); !e.Trusted {
				t.Fatal("not trusted with the same launch config")
			}
		})
	}

	// Changed args: the tool is offered but not trusted, and says why.
	m := newTestManager(t, Options{Persistent: persistent, HashKey: key}, goServer(t, "t", "--ghost"))
	if err := m.Start(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if e := effect(t, lookup(t, m, "mcp-tool:t/echo"), `{"text":"x"}`); e.Trusted {
		t.Fatal("trusted after the launch config changed")
	}
	if ts, _ := toolStatus(m, "t", "echo"); !strings.Contains(ts.Untrusted, "launch config changed") {
		t.Fatalf("reason = %q", ts.Untrusted)
	}
	// Untrust clears the persistent record too.
	if err := m.Untrust(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := persistent.Get(ctx, "t"); ok {
		t.Fatal("persistent trust survived Untrust")
	}
}

func TestTrustErrors(t *testing.T) {
	ctx := context.Background()
	m := newTestManager(t, Options{}, goServer(t, "t"))
	cases := []struct {
		name string
		do   func() error
		want string
	}{
		{"unknown server", func() error { return m.Trust(ctx, "nope", TrustSession) }, `no MCP server named "nope"`},
		{"persistent without a store", func() error { return m.Trust(ctx, "t", TrustPersistent) }, "no persistent trust store"},
		{"bad scope", func() error { return m.Trust(ctx, "t", "forever") }, "unknown trust scope"},
		{"tool before server", func() error { return m.TrustTool(ctx, "t", "echo", TrustSession) }, "trust the server first"},
		{"unknown tool", func() error { return m.TrustTool(ctx, "t", "nope", TrustSession) }, `offers no tool "nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestWorkspaceServersWaitForTrust: a server from a workspace .mcp.json is
// not started (its command not run) until its launch config is trusted.
func TestWorkspaceServersWaitForTrust(t *testing.T) {
	ctx := context.Background()
	persistent := NewMemoryTrustStore()
	ws := goServer(t, "w")
	ws.Dir, ws.Source = t.TempDir(), "/repo/.mcp.json"

	m := newTestManager(t, Options{Persistent: persistent}, ws)
	if got := m.Tools(ctx); len(got) != 0 {
		t.Fatalf("an untrusted workspace server was started: %d tools", len(got))
	}
	st := m.Status(ctx)[0]
	if st.State != StateAwaitingTrust || !strings.Contains(st.LastError, "not started until it is trusted") {
		t.Fatalf("status %s %q", st.State, st.LastError)
	}
	if err := m.Trust(ctx, "w", TrustPersistent); err != nil {
		t.Fatal(err)
	}
	if e := effect(t, lookup(t, m, "mcp-tool:w/echo"), `{"text":"x"}`); !e.Trusted {
		t.Fatal("not trusted after Trust")
	}
	_ = m.Close()

	cases := []struct {
		name    string
		cfg     ServerConfig
		opts    Options
		started bool
		reason  string
	}{
		{"trusted config starts", ws, Options{Persistent: persistent}, true, ""},
		{"changed config waits", func() ServerConfig { c := ws; c.Args = []string{"--ghost"}; return c }(), Options{Persistent: persistent}, false, "changed since it was trusted"},
		{"opt-in starts untrusted", func() ServerConfig { c := ws; c.Args = []string{"--ghost"}; return c }(),
			Options{Persistent: persistent, StartUntrustedWorkspaceServers: true}, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestManager(t, tc.opts, tc.cfg)
			if got := len(m.Tools(ctx)) > 0; got != tc.started {
				t.Fatalf("started = %v, want %v (%+v)", got, tc.started, m.Status(ctx))
			}
			if st := m.Status(ctx)[0]; !strings.Contains(st.LastError, tc.reason) {
				t.Fatalf("last error %q, want %q", st.LastError, tc.reason)
			}
		})
	}
}
