package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// TestGateAnswerOutcomes: an answer that carries its whole Decision is
// recorded and read by the model as that decision; a prior answer to the
// same call stands without a second ask, never over a Deny.
func TestGateAnswerOutcomes(t *testing.T) {
	ask := policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{policy.ReasonProtectedPath}, Signature: "fs.write"}
	deny := policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonSandboxRejected, Detail: "read-only", Remedy: "switch the sandbox to WorkspaceWrite", Signature: "fs.write"}
	sandboxed := policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonSandboxRejected, Detail: "re-decided: read-only",
		Remedy: "switch the sandbox to WorkspaceWrite", Signature: "fs.write"}
	granted := policy.Decision{Verdict: policy.VerdictAllow, Source: "session-grant:fs.write", Signature: "fs.write"}
	prior := &PriorAnswer{RequestID: "req-before", Signature: "fs.write",
		Decision: policy.Decision{Verdict: policy.VerdictAllow, Source: "human:once", Signature: "fs.write"}}
	cases := []struct {
		name     string
		decision policy.Decision
		answer   *Approval
		prior    *PriorAnswer
		verdict  policy.Verdict
		source   string
		reason   policy.Reason
		events   string
		written  bool
		toModel  string
	}{
		{name: "a re-decided sandbox denial is what the model reads", decision: ask, answer: &Approval{Decided: &sandboxed},
			verdict: policy.VerdictDeny, reason: policy.ReasonSandboxRejected, events: "PermissionRequested,PermissionDenied",
			toModel: "denied (sandbox-rejected): re-decided: read-only. Remedy: switch the sandbox to WorkspaceWrite"},
		{name: "a re-decided allow keeps what allowed it", decision: ask, answer: &Approval{Decided: &granted},
			verdict: policy.VerdictAllow, source: "session-grant:fs.write",
			events: "PermissionRequested,PermissionGranted,ToolInvocationStarted,ToolInvocationCompleted", written: true},
		{name: "a decided ask is no answer", decision: ask, answer: &Approval{Decided: &ask},
			verdict: policy.VerdictDeny, reason: policy.ReasonNoApprover, events: "PermissionRequested,PermissionDenied"},
		{name: "a prior answer stands over an ask", decision: ask, prior: prior,
			verdict: policy.VerdictAllow, source: "human:once", events: "ToolInvocationStarted,ToolInvocationCompleted", written: true},
		{name: "a prior answer for another signature does not", decision: ask,
			prior:   &PriorAnswer{RequestID: "r", Signature: "shell:rm", Decision: prior.Decision},
			verdict: policy.VerdictDeny, reason: policy.ReasonNoApprover, events: "PermissionRequested,PermissionDenied"},
		{name: "a prior answer never overrides a deny", decision: deny, prior: prior,
			verdict: policy.VerdictDeny, reason: policy.ReasonSandboxRejected, events: "PermissionDenied", toModel: "Remedy: switch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			writeFile(t, filepath.Join(env.Workspace, "f.txt"), "old\n")
			j := &journal{}
			cfg := GateConfig{Decider: &fixedDecider{d: tc.decision}, Journal: j, Prior: tc.prior,
				Session: func(context.Context, Env) (policy.Session, error) {
					return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true}, nil
				}}
			if tc.answer != nil {
				cfg.Approver = &answer{a: *tc.answer}
			}
			g, err := NewGate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			out, err := g.Call(context.Background(), NewFsWrite(), json.RawMessage(`{"path":"f.txt","content":"new\n"}`), env)
			if err != nil {
				t.Fatal(err)
			}
			if d := out.Decision; d == nil || d.Verdict != tc.verdict || d.Source != tc.source || d.Reason != tc.reason {
				t.Fatalf("decision %+v", out.Decision)
			}
			if got := j.types(); got != tc.events {
				t.Fatalf("events %s, want %s", got, tc.events)
			}
			if written := readFile(t, filepath.Join(env.Workspace, "f.txt")) == "new\n"; written != tc.written {
				t.Fatalf("written = %v", written)
			}
			if tc.toModel != "" && !strings.Contains(text(out.Result), tc.toModel) {
				t.Fatalf("the model reads %q, want %q", text(out.Result), tc.toModel)
			}
			if tc.prior != nil && tc.written {
				last := out.Decision.Trace[len(out.Decision.Trace)-1]
				if last.Step != "resume" || !strings.Contains(last.Saw, tc.prior.RequestID) {
					t.Fatalf("the trace does not name the answer it stood on: %+v", last)
				}
			}
		})
	}
}
