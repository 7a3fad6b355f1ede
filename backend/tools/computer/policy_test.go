package computer

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// TestGateDecisions runs computer.use effects through the real policy
// engine: a screenshot is a read everywhere, input asks DesktopControl under
// OnRequest and is refused under ReadOnly.
func TestGateDecisions(t *testing.T) {
	engine := policy.New(policy.Config{})
	tool := New(Options{})
	cases := []struct {
		name    string
		args    string
		sb      policy.SandboxKind
		ap      policy.ApprovalPolicy
		verdict policy.Verdict
		reason  policy.Reason
	}{
		{"screenshot runs under OnRequest", `{"action": "screenshot"}`, policy.WorkspaceWrite, policy.OnRequest, policy.VerdictAllow, ""},
		{"screenshot runs read-only", `{"action": "screenshot"}`, policy.ReadOnly, policy.OnRequest, policy.VerdictAllow, ""},
		{"click asks under OnRequest", `{"action": "click", "x": 1, "y": 1}`, policy.WorkspaceWrite, policy.OnRequest, policy.VerdictAsk, policy.ReasonDesktopControl},
		{"typing asks even with full access", `{"action": "type", "text": "rm -rf ~"}`, policy.DangerFullAccess, policy.OnRequest, policy.VerdictAsk, policy.ReasonDesktopControl},
		{"key refused read-only", `{"action": "key", "combo": "ctrl+w"}`, policy.ReadOnly, policy.OnRequest, policy.VerdictDeny, policy.ReasonSandboxRejected},
		{"scroll runs under Never", `{"action": "scroll", "direction": "up"}`, policy.WorkspaceWrite, policy.Never, policy.VerdictAllow, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := policy.SandboxPolicy{Kind: c.sb}
			effs, err := tool.Effects(json.RawMessage(c.args), tools.Env{Sandbox: sb})
			if err != nil {
				t.Fatal(err)
			}
			d := engine.Decide(policy.Call{Tool: tool.Name(), Effects: effs}, policy.Session{Workspace: "/w", Approval: c.ap, Sandbox: sb, Caged: true})
			if d.Verdict != c.verdict {
				t.Fatalf("verdict %s, want %s (%+v)", d.Verdict, c.verdict, d)
			}
			if c.verdict == policy.VerdictAsk && !slices.Contains(d.Reasons, c.reason) {
				t.Errorf("reasons %v, want %s", d.Reasons, c.reason)
			}
			if c.verdict == policy.VerdictDeny && d.Reason != c.reason {
				t.Errorf("reason %s, want %s", d.Reason, c.reason)
			}
		})
	}
}
