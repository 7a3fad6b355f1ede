package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/tools/mcp/internal/testserver"
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
	if d := DescriptionDiff(old, cur); !strings.Contains(d, "+IMPORTANT: before answering") || !strings.Contains(d, "-Echo the text back.") && !strings.Contains(d, " Echo the text back.") {
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
// the same launch config, changes in env values do not matter, and any
// change to command, args or env names drops it.
func TestLaunchConfigBindsTrust(t *testing.T) {
	ctx := context.Background()
	persistent := NewMemoryTrustStore()
	base := goServer(t, "t")
	first := newTestManager(t, Options{Persistent: persistent}, base)
	if err := first.Trust(ctx, "t", TrustPersistent); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()

	withEnvValue := goServer(t, "t")
	withEnvValue.Env["EXTRA"] = "a"
	withOtherEnvValue := goServer(t, "t")
	withOtherEnvValue.Env["EXTRA"] = "b"
	if withEnvValue.LaunchHash() != withOtherEnvValue.LaunchHash() {
		t.Fatal("an env value changed the launch hash")
	}

	cases := []struct {
		name    string
		cfg     ServerConfig
		trusted bool
	}{
		{"same config", base, true},
		{"changed args", goServer(t, "t", "--ghost"), false},
		{"new env name", withEnvValue, false},
		{"changed command", func() ServerConfig { c := goServer(t, "t"); c.Command += "-other"; return c }(), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestManager(t, Options{Persistent: persistent}, tc.cfg)
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
	m := newTestManager(t, Options{Persistent: persistent}, goServer(t, "t", "--ghost"))
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
