package command

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// Answerer is a `kind = "command"` answerer: one program run in the cage
// per ask it is asked.
type Answerer struct {
	name    string
	program Program
	timeout time.Duration
	runner  *Runner
	egress  *sandbox.Egress
}

// NewAnswerer returns the answerer name running program (already loaded
// and, for a workspace's, checked against its trust).
func NewAnswerer(name string, program Program, timeout time.Duration, runner *Runner, egress *sandbox.Egress) *Answerer {
	return &Answerer{name: name, program: program, timeout: timeout, runner: runner, egress: egress}
}

// Kind is "command".
func (a *Answerer) Kind() string { return "command" }

// Name is the configured name.
func (a *Answerer) Name() string { return a.name }

func (a *Answerer) who() string { return "answerer `" + a.name + "`" }

// Answer runs the program on the ask: allow, deny or pass. Every failure
// is an error (a denial, with its reason in words).
func (a *Answerer) Answer(ctx context.Context, q gate.Question) (gate.Verdict, error) {
	in := Input{Version: Version, Event: "ask", Tool: q.Tool, Arguments: q.Args, Effects: q.Effects, Reasons: q.Reasons,
		Signature: q.Signature, Risk: q.Risk, Session: SessionInfo{ID: q.SessionID, Workspace: q.Workspace, Approval: q.Approval,
			Sandbox: q.Sandbox}, Workspace: q.Workspace, Axes: Axes{Approval: q.Approval, Sandbox: q.Sandbox}, Trace: q.Trace,
		UserMessage: q.UserMessage}
	out, err := a.run(ctx, q.Workspace, in)
	if err != nil {
		return gate.Verdict{}, err
	}
	o, err := Parse(a.who(), out, "allow", "deny", "pass")
	if err != nil {
		return gate.Verdict{}, err
	}
	if o.Answer == "deny" && o.Reason == "" {
		o.Reason = a.who() + " refused the call (it gave no reason)"
	}
	return gate.Verdict{Answer: gate.AnswererAnswer(o.Answer), Why: o.Reason}, nil
}

func (a *Answerer) run(ctx context.Context, workspace string, in Input) ([]byte, error) {
	b, err := json.Marshal(normalise(in))
	if err != nil {
		return nil, fmt.Errorf("%s: the ask could not be encoded: %w", a.who(), err)
	}
	return a.runner.Run(ctx, Invocation{Who: a.who(), Workspace: workspace, Program: a.program, Stdin: b, Timeout: a.timeout, Egress: a.egress})
}

// Hook is a `[[hooks]]` entry: before the call (it may ask or refuse)
// or after it (it observes), one program run in the cage per call of the
// tools it names.
type Hook struct {
	name    string
	when    string
	tools   []string
	program Program
	timeout time.Duration
	runner  *Runner
	egress  *sandbox.Egress
}

// NewHook returns the hook name, run when ("before" or "after") on calls
// of tools (empty: every tool).
func NewHook(name, when string, toolNames []string, program Program, timeout time.Duration, runner *Runner, egress *sandbox.Egress) *Hook {
	return &Hook{name: name, when: when, tools: toolNames, program: program, timeout: timeout, runner: runner, egress: egress}
}

// Name is the configured name.
func (h *Hook) Name() string { return h.name }

func (h *Hook) who() string { return "hook `" + h.name + "`" }

func (h *Hook) covers(tool string) bool { return len(h.tools) == 0 || slices.Contains(h.tools, tool) }

// BeforeCall runs a before-hook: allow (or pass) leaves the decision as
// it is, ask turns it into an ask a human answers, deny refuses it. A
// failure is an error: the gate refuses the call.
func (h *Hook) BeforeCall(ctx context.Context, c gate.CallInfo) (*gate.Refusal, error) {
	if h.when != "before" || !h.covers(c.Tool) {
		return nil, nil
	}
	in := callInput("before_call", c)
	b, err := json.Marshal(normalise(in))
	if err != nil {
		return nil, fmt.Errorf("%s: the call could not be encoded: %w", h.who(), err)
	}
	out, err := h.runner.Run(ctx, Invocation{Who: h.who(), Workspace: c.Workspace, Program: h.program, Stdin: b, Timeout: h.timeout, Egress: h.egress})
	if err != nil {
		return nil, err
	}
	o, err := Parse(h.who(), out, "allow", "pass", "ask", "deny")
	if err != nil {
		return nil, err
	}
	switch o.Answer {
	case "ask":
		if o.Reason == "" {
			o.Reason = h.who() + " wants a human to answer this call"
		}
		return &gate.Refusal{Why: o.Reason, Ask: true}, nil
	case "deny":
		if o.Reason == "" {
			o.Reason = h.who() + " refused the call (it gave no reason)"
		}
		return &gate.Refusal{Why: o.Reason}, nil
	}
	return nil, nil
}

// maxResultText is how much of a result an after-hook sees.
const maxResultText = 16 << 10

// AfterCall runs an after-hook with the call's result; it can change
// nothing, and its failures are its own.
func (h *Hook) AfterCall(ctx context.Context, c gate.CallInfo, res tools.Result) {
	if h.when != "after" || !h.covers(c.Tool) {
		return
	}
	in := callInput("after_call", c)
	text := ""
	for _, p := range res.Content {
		text += p.Text
	}
	if len(text) > maxResultText {
		text = text[:maxResultText]
	}
	in.Result = &ResultInfo{IsError: res.IsError, Text: text}
	b, err := json.Marshal(normalise(in))
	if err != nil {
		return
	}
	_, _ = h.runner.Run(ctx, Invocation{Who: h.who(), Workspace: c.Workspace, Program: h.program, Stdin: b, Timeout: h.timeout, Egress: h.egress})
}

func callInput(event string, c gate.CallInfo) Input {
	d := c.Decision
	return Input{Version: Version, Event: event, Tool: c.Tool, Arguments: c.Args, Effects: c.Effects, Reasons: d.Reasons,
		Signature: d.Signature, Session: SessionInfo{ID: c.SessionID, Workspace: c.Workspace, Approval: c.Approval, Sandbox: c.Sandbox},
		Workspace: c.Workspace, Axes: Axes{Approval: c.Approval, Sandbox: c.Sandbox}, Trace: d.Trace,
		Decision: &DecisionInfo{Verdict: d.Verdict, Reasons: d.Reasons, Source: d.Source, Layer: d.Layer, Signature: d.Signature}}
}

// normalise gives the program arrays where Go has nils, and a JSON null
// for missing arguments, so every field has one shape.
func normalise(in Input) Input {
	if in.Effects == nil {
		in.Effects = []policy.Effect{}
	}
	if in.Reasons == nil {
		in.Reasons = []policy.Reason{}
	}
	if in.Trace == nil {
		in.Trace = []policy.Step{}
	}
	if len(in.Arguments) == 0 || !json.Valid(in.Arguments) {
		in.Arguments = json.RawMessage("null")
	}
	return in
}
