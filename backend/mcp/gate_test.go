package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/mcp/internal/testserver"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// TestGateDecisions feeds the adapter's effects to the real policy engine
// through the trust lifecycle: untrusted asks (or is denied under Never),
// trusted is allowed, a rug pull asks again.
func TestGateDecisions(t *testing.T) {
	ctx := context.Background()
	engine := policy.New(policy.Config{})
	m := newTestManager(t, Options{}, goServer(t, "t"))
	m.Tools(ctx)
	echo := lookup(t, m, "mcp-tool:t/echo")
	control := lookup(t, m, "mcp-tool:t/control")

	decide := func(a *ToolAdapter, args string, approval policy.ApprovalPolicy, sandbox policy.SandboxKind) policy.Decision {
		effs, err := a.Effects(json.RawMessage(args), tools.Env{})
		if err != nil {
			t.Fatal(err)
		}
		d := engine.Decide(policy.Call{Tool: a.Name(), Effects: effs}, policy.Session{
			Workspace: "/w", Approval: approval, Sandbox: policy.SandboxPolicy{Kind: sandbox}, Now: time.Now(),
		})
		if d.Signature != a.Name() {
			t.Fatalf("signature %q, want %q", d.Signature, a.Name())
		}
		return d
	}
	type want struct {
		verdict policy.Verdict
		reason  policy.Reason
	}
	check := func(stage string, got policy.Decision, w want) {
		t.Helper()
		if got.Verdict != w.verdict {
			t.Fatalf("%s: verdict %s, want %s (%+v)", stage, got.Verdict, w.verdict, got)
		}
		if w.reason != "" && !slices.Contains(got.Reasons, w.reason) && got.Reason != w.reason {
			t.Fatalf("%s: reasons %v / %s, want %s", stage, got.Reasons, got.Reason, w.reason)
		}
	}
	const args = `{"text":"hi"}`

	check("untrusted, on-request", decide(echo, args, policy.OnRequest, policy.WorkspaceWrite), want{policy.VerdictAsk, policy.ReasonUntrustedMcpServer})
	check("untrusted, never", decide(echo, args, policy.Never, policy.WorkspaceWrite), want{policy.VerdictDeny, policy.ReasonUntrustedMcpServer})

	if err := m.Trust(ctx, "t", TrustSession); err != nil {
		t.Fatal(err)
	}
	check("trusted, on-request", decide(echo, args, policy.OnRequest, policy.WorkspaceWrite), want{policy.VerdictAllow, ""})
	check("trusted read-only hint, read-only sandbox", decide(echo, args, policy.OnRequest, policy.ReadOnly), want{policy.VerdictAllow, ""})
	check("trusted non-read-only tool, read-only sandbox", decide(control, `{"action":"add-ghost"}`, policy.OnRequest, policy.ReadOnly), want{policy.VerdictDeny, policy.ReasonSandboxRejected})

	invoke(t, control, `{"action":"rug-pull"}`)
	waitFor(t, "the rug pull", func() bool { return echo.Description() == testserver.RugPullDescription })
	check("after the rug pull", decide(echo, args, policy.OnRequest, policy.WorkspaceWrite), want{policy.VerdictAsk, policy.ReasonUntrustedMcpServer})
}
