package gate

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
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
	prior := &priorAnswer{requestID: "req-before", signature: "fs.write", source: "human:once", tool: "fs.write"}
	cases := []struct {
		name     string
		decision policy.Decision
		answer   *Approval
		prior    *priorAnswer
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
			prior:   &priorAnswer{requestID: "r", signature: "shell:rm", source: "human:once", tool: "fs.write"},
			verdict: policy.VerdictDeny, reason: policy.ReasonNoApprover, events: "PermissionRequested,PermissionDenied"},
		{name: "a prior answer never overrides a deny", decision: deny, prior: prior,
			verdict: policy.VerdictDeny, reason: policy.ReasonSandboxRejected, events: "PermissionDenied", toModel: "Remedy: switch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			writeFile(t, filepath.Join(env.Workspace, "f.txt"), "old\n")
			env.CallID = "c1"
			j := &journal{}
			cfg := Config{Decider: &fixedDecider{d: tc.decision}, Journal: j, Asks: tc.prior.machine(j, env.SessionID, false),
				Session: func(context.Context, tools.Env) (policy.Session, error) {
					return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true}, nil
				}}
			if tc.answer != nil {
				cfg.Approver = &answer{a: *tc.answer}
			}
			g, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			out, err := callGate(g, context.Background(), tools.NewFsWrite(), json.RawMessage(`{"path":"f.txt","content":"new\n"}`), env)
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
				if last.Step != "resume" || !strings.Contains(last.Saw, tc.prior.requestID) {
					t.Fatalf("the trace does not name the answer it stood on: %+v", last)
				}
			}
		})
	}
}

// asker is a tool that asks the human from inside its call.
type asker struct{ got policy.Decision }

func (*asker) Name() string            { return "asker" }
func (*asker) Description() string     { return "asks" }
func (*asker) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (*asker) Risk() policy.Risk       { return policy.RiskLow }
func (*asker) Effects(json.RawMessage, tools.Env) ([]policy.Effect, error) {
	return []policy.Effect{{Kind: policy.EffectMeta}}, nil
}
func (a *asker) Invoke(ctx context.Context, _ json.RawMessage, env tools.Env) (tools.Result, error) {
	d, err := env.Ask(ctx, tools.Question{Args: json.RawMessage(`{"plan":"x"}`), Why: "approve"})
	a.got = d
	return tools.TextResult(string(d.Verdict)), err
}

// TestGateToolAsk: a tool's own question takes the ask path — recorded as
// a direct ask under its own request id, answered through the Approver.
func TestGateToolAsk(t *testing.T) {
	cases := []struct {
		name    string
		approve *answer
		prior   *priorAnswer
		verdict policy.Verdict
		events  string
	}{
		{"approved", &answer{a: Approval{Approved: true}}, nil, policy.VerdictAllow,
			"PermissionGranted,ToolInvocationStarted,PermissionRequested,PermissionGranted,ToolInvocationCompleted"},
		{"refused", &answer{a: Approval{Note: "no"}}, nil, policy.VerdictDeny,
			"PermissionGranted,ToolInvocationStarted,PermissionRequested,PermissionDenied,ToolInvocationCompleted"},
		{"nobody attached", nil, nil, policy.VerdictDeny,
			"PermissionGranted,ToolInvocationStarted,PermissionRequested,PermissionDenied,ToolInvocationCompleted"},
		{"a prior answer stands without asking", &answer{never: true},
			&priorAnswer{requestID: "r0", signature: "asker", source: "human:once", tool: "asker"},
			policy.VerdictAllow, "PermissionGranted,ToolInvocationStarted,ToolInvocationCompleted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := &journal{}
			cfg := Config{Decider: &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAllow, Source: "sandbox+policy", Signature: "asker"}},
				Journal: j, Asks: tc.prior.machine(j, "s", true),
				Session: func(context.Context, tools.Env) (policy.Session, error) { return policy.Session{}, nil }}
			if tc.approve != nil {
				cfg.Approver = tc.approve
			}
			g, _ := New(cfg)
			tool := &asker{}
			if _, err := callGate(g, context.Background(), tool, json.RawMessage(`{}`), tools.Env{SessionID: "s", CallID: "c1"}); err != nil {
				t.Fatal(err)
			}
			if tool.got.Verdict != tc.verdict {
				t.Fatalf("the tool got %+v", tool.got)
			}
			if got := j.types(); got != tc.events {
				t.Fatalf("events %s, want %s", got, tc.events)
			}
			for _, e := range j.evs {
				if e.CallID != "c1" {
					t.Fatalf("event %s for call %q", e.Type, e.CallID)
				}
				if e.Type == EventPermissionRequested && (!e.Direct || e.RequestID == j.evs[0].RequestID) {
					t.Fatalf("the tool's ask is not a direct ask of its own: %+v", e)
				}
			}
		})
	}
}

// priorAnswer is a human's yes to an ask of call c1, recorded before a
// restart: the machine a resumed gate shares knows it, allowed.
type priorAnswer struct{ requestID, signature, source, tool string }

func (p *priorAnswer) machine(j Journal, sessionID string, direct bool) *ask.Machine {
	if p == nil {
		return nil
	}
	return ask.NewMachine(j, ask.Ask{
		ID:    ask.ID{SessionID: sessionID, RequestID: p.requestID, CallID: "c1", Tool: p.tool},
		State: ask.Allowed, Path: []ask.Transition{ask.Request, ask.AnswerOnce}, Signature: p.signature, Source: p.source,
		Question: &store.PermissionRequested{RequestID: p.requestID, CallID: "c1", Tool: p.tool, Signature: p.signature, Direct: direct},
	})
}

// recordingApprover answers through the gate's own machine, as the
// runtime's broker does, and hands the gate the recorded outcome.
type recordingApprover struct {
	asks *ask.Machine
	deny bool
}

func (r *recordingApprover) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	d := policy.Decision{Verdict: policy.VerdictAsk, Reasons: req.Reasons, Signature: req.Signature, Trace: req.Trace}
	final, on, ev, err := Resolve(d, Approval{Approved: !r.deny})
	if err != nil {
		return Approval{}, err
	}
	id := ask.ID{SessionID: req.SessionID, RequestID: req.RequestID, CallID: req.CallID, Tool: req.Tool}
	if _, err := r.asks.Step(ctx, id, on, ev); err != nil {
		return Approval{}, err
	}
	return Approval{Decided: &final, On: on, Recorded: true}, nil
}

// TestGateTakesARecordedAnswer: an answer the approver recorded through
// the shared machine is recorded once; the gate runs (or refuses) on it.
func TestGateTakesARecordedAnswer(t *testing.T) {
	cases := []struct {
		name    string
		deny    bool
		events  string
		written bool
	}{
		{"a recorded yes runs the call", false, "PermissionRequested,PermissionGranted,ToolInvocationStarted,ToolInvocationCompleted", true},
		{"a recorded no refuses it", true, "PermissionRequested,PermissionDenied", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			writeFile(t, filepath.Join(env.Workspace, "f.txt"), "old\n")
			j := &journal{}
			m := ask.NewMachine(j)
			g, err := New(Config{Decider: &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAsk,
				Reasons: []policy.Reason{policy.ReasonProtectedPath}, Signature: "fs.write"}}, Journal: j, Asks: m,
				Approver: &recordingApprover{asks: m, deny: tc.deny},
				Session: func(context.Context, tools.Env) (policy.Session, error) {
					return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := callGate(g, context.Background(), tools.NewFsWrite(), json.RawMessage(`{"path":"f.txt","content":"new\n"}`), env); err != nil {
				t.Fatal(err)
			}
			if got := j.types(); got != tc.events {
				t.Fatalf("events %s, want %s", got, tc.events)
			}
			if written := readFile(t, filepath.Join(env.Workspace, "f.txt")) == "new\n"; written != tc.written {
				t.Fatalf("written = %v", written)
			}
		})
	}
}
