package browser

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// TestGateDecisions runs the effects this package computes through the real
// policy engine: loopback pages are admitted with network off, other origins
// are refused without network and asked about with it, by origin signature.
func TestGateDecisions(t *testing.T) {
	site := newSite(t)
	m := newManager(t)
	act := NewActionTool(m)
	engine := policy.New(policy.Config{})
	noNet := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	withNet := policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}
	readOnly := policy.SandboxPolicy{Kind: policy.ReadOnly}
	local := `{"action": "navigate", "url": "` + site.URL + `/form.html"}`
	remote := `{"action": "navigate", "url": "https://example.com/login"}`

	decide := func(t *testing.T, args string, sb policy.SandboxPolicy, ap policy.ApprovalPolicy) policy.Decision {
		t.Helper()
		env := tools.Env{SessionID: "gate", Sandbox: sb}
		effs, err := act.Effects(json.RawMessage(args), env)
		if err != nil {
			t.Fatalf("Effects(%s): %v", args, err)
		}
		return engine.Decide(policy.Call{Tool: act.Name(), Effects: effs}, policy.Session{Workspace: "/w", Approval: ap, Sandbox: sb, Caged: true})
	}
	cases := []struct {
		name    string
		args    string
		sb      policy.SandboxPolicy
		ap      policy.ApprovalPolicy
		verdict policy.Verdict
		reason  policy.Reason
		sig     string
	}{
		{"loopback navigate runs with network off", local, noNet, policy.OnRequest, policy.VerdictAllow, "", ""},
		{"other origin is refused with network off", remote, noNet, policy.OnRequest, policy.VerdictDeny, policy.ReasonSandboxRejected, ""},
		{"other origin is asked with network on", remote, withNet, policy.OnRequest, policy.VerdictAsk, policy.ReasonNetworkRequest, "browser:navigate:https://example.com:443"},
		{"other origin runs under Never with network on", remote, withNet, policy.Never, policy.VerdictAllow, "", ""},
		{"read-only refuses the browser", local, readOnly, policy.OnRequest, policy.VerdictDeny, policy.ReasonSandboxRejected, ""},
		{"Always asks even for loopback", local, noNet, policy.Always, policy.VerdictAsk, policy.ReasonPolicyAlways, "browser:navigate:" + OriginOf(site.URL)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := decide(t, c.args, c.sb, c.ap)
			if d.Verdict != c.verdict {
				t.Fatalf("verdict %s, want %s (%+v)", d.Verdict, c.verdict, d)
			}
			if c.verdict == policy.VerdictDeny && d.Reason != c.reason {
				t.Errorf("deny reason %s, want %s", d.Reason, c.reason)
			}
			if c.verdict == policy.VerdictAsk && !slices.Contains(d.Reasons, c.reason) {
				t.Errorf("ask reasons %v, want %s", d.Reasons, c.reason)
			}
			if c.sig != "" && d.Signature != c.sig {
				t.Errorf("signature %q, want %q", d.Signature, c.sig)
			}
		})
	}
	t.Run("actions on a loopback page are signed by verb", func(t *testing.T) {
		mustOK(t, call(t, act, tools.Env{SessionID: "gate", Sandbox: noNet}, local))
		d := decide(t, `{"action": "click", "selector": "#send"}`, noNet, policy.Always)
		if d.Verdict != policy.VerdictAsk || d.Signature != "browser:click" {
			t.Errorf("click: %s %q, want ask with signature browser:click", d.Verdict, d.Signature)
		}
		if d := decide(t, `{"action": "click", "selector": "#send"}`, noNet, policy.OnRequest); d.Verdict != policy.VerdictAllow {
			t.Errorf("click on a loopback page with network off: %s %+v", d.Verdict, d)
		}
	})
}
