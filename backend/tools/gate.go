package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools/netproxy"
)

// Decider is the policy engine; *policy.Engine satisfies it.
type Decider interface {
	Decide(call policy.Call, s policy.Session) policy.Decision
}

// Previewer is implemented by tools that can show a human what a call would
// change (fs.write's diff, patch.apply's patch) for the approval prompt.
type Previewer interface {
	Preview(args json.RawMessage, env Env) (string, error)
}

// ApprovalRequest is what a human is asked on an Ask.
type ApprovalRequest struct {
	SessionID string          `json:"session_id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Effects   []policy.Effect `json:"effects"`
	Risk      policy.Risk     `json:"risk"`
	Reasons   []policy.Reason `json:"reasons"`
	// Signature is exactly what "always" would remember.
	Signature string `json:"signature"`
	// AlwaysRefused says why "always" is not offered (a protected path is
	// approved one write at a time); empty when it is.
	AlwaysRefused string        `json:"always_refused,omitempty"`
	Preview       string        `json:"preview,omitempty"`
	Trace         []policy.Step `json:"trace"`
	// Direct marks an ask the tool raised itself (Env.Ask: present_plan),
	// not the engine: an axis change never re-decides it.
	Direct bool `json:"direct,omitempty"`
}

// Question is what a tool asks the human through Env.Ask.
type Question struct {
	Signature string          // what "always" would remember; the tool's name when empty
	Args      json.RawMessage // shown with the prompt
	Why       string          // one line for the trace
}

// Approval is the answer to an ask. Always means the broker has remembered
// a grant for the signature (the gate only records it as human:always).
//
// Decided, when set, is the whole outcome, decided by something other than
// a human's yes or no: a re-decision after an axis change (sandbox-rejected,
// with its remedy), a cancel, an answer given before a restart. The gate
// records it and hands it to the model as it is; Approved and Always are
// then ignored. Its verdict must be allow or deny.
type Approval struct {
	Approved bool             `json:"approved"`
	Always   bool             `json:"always,omitempty"`
	Note     string           `json:"note,omitempty"`
	Decided  *policy.Decision `json:"decided,omitempty"`
}

// Approver parks a call until a human answers. It returns an error when no
// answer can come (ctx done, nobody attached); the gate then denies.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, error)
}

// EventType names a gate event; the names are the store's event types.
type EventType string

const (
	EventPermissionRequested     EventType = "PermissionRequested"
	EventPermissionGranted       EventType = "PermissionGranted"
	EventPermissionDenied        EventType = "PermissionDenied"
	EventToolInvocationStarted   EventType = "ToolInvocationStarted"
	EventToolInvocationCompleted EventType = "ToolInvocationCompleted"
	EventToolInvocationFailed    EventType = "ToolInvocationFailed"
)

// Event is one step of a call through the gate. Only the fields of its Type
// are set.
type Event struct {
	Type   EventType `json:"type"`
	At     time.Time `json:"at"`
	CallID string    `json:"call_id"`
	// RequestID ties a permission answer to its question; an allow that
	// was never asked has its own.
	RequestID string           `json:"request_id"`
	Tool      string           `json:"tool"`
	Risk      policy.Risk      `json:"risk,omitempty"`     // Requested
	Args      json.RawMessage  `json:"args,omitempty"`     // Requested, Started
	Effects   []policy.Effect  `json:"effects,omitempty"`  // Requested, Granted, Denied
	Decision  *policy.Decision `json:"decision,omitempty"` // Requested, Granted, Denied
	Source    string           `json:"source,omitempty"`   // Granted
	Reason    policy.Reason    `json:"reason,omitempty"`   // Denied
	Detail    string           `json:"detail,omitempty"`   // Denied
	Preview   string           `json:"preview,omitempty"`  // Requested
	Direct    bool             `json:"direct,omitempty"`   // Requested: raised by the tool (Env.Ask)
	Result    *Result          `json:"result,omitempty"`   // Completed, Failed
	Error     string           `json:"error,omitempty"`    // Failed
	Duration  time.Duration    `json:"duration_ns,omitempty"`
	Conn      *netproxy.Conn   `json:"conn,omitempty"` // NetworkConnection (gate_net.go)
}

// Journal records a session's events, in order. A failure to record a
// permission event stops the call: nothing runs unrecorded.
type Journal interface {
	Record(ctx context.Context, sessionID string, events ...Event) error
}

// SessionFunc returns the policy view of the call's session: axes, freeze,
// grants, caged. Its Workspace and Sandbox override the Env's, so the cage
// enforces exactly what the engine decided on.
type SessionFunc func(ctx context.Context, env Env) (policy.Session, error)

// GateConfig wires a gate. Decider and Session are required.
type GateConfig struct {
	Decider Decider
	Session SessionFunc
	// Approver answers Asks; nil means no human is attached.
	Approver Approver
	// ApprovalTimeout bounds the wait for an answer (with no Approver, the
	// gate waits this long, then denies with no-approver). 0 with an
	// Approver waits until ctx ends.
	ApprovalTimeout time.Duration
	Journal         Journal // nil records nothing
	Now             func() time.Time
	NewID           func() string
	// Network decides the destinations of caged commands (gate_net.go).
	Network NetworkConfig
	// Prior is a human's answer, already recorded, to an ask of this very
	// call made before a restart. When the call decides to Ask (or Allow)
	// again under the same signature, that answer stands and nothing new is
	// recorded for its permission: the log keeps one ask and one answer.
	// A Deny (the policy tightened meanwhile) still denies.
	Prior *PriorAnswer
}

// PriorAnswer is an ask's recorded answer that a resumed call stands on.
type PriorAnswer struct {
	RequestID string
	Signature string
	Decision  policy.Decision // verdict allow, with its source (human:once|always)
}

// Gate is the one path every tool call takes: effects, decision, approval,
// invocation, each step recorded. A tool never consults the policy itself.
type Gate struct{ cfg GateConfig }

// NewGate returns a gate.
func NewGate(cfg GateConfig) (*Gate, error) {
	if cfg.Decider == nil || cfg.Session == nil {
		return nil, errors.New("tools: gate needs a Decider and a Session source")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.NewString
	}
	return &Gate{cfg: cfg}, nil
}

// Outcome is the full story of one call.
type Outcome struct {
	CallID   string           `json:"call_id"`
	Decision *policy.Decision `json:"decision"` // nil when the arguments were unusable
	Effects  []policy.Effect  `json:"effects,omitempty"`
	Result   Result           `json:"result"`
	Invoked  bool             `json:"invoked"`
}

// Call runs one tool call through the gate. The error is for failures of the
// gate itself (session lookup, journal); refusals and tool failures are in
// the Outcome's Result for the model to read.
func (g *Gate) Call(ctx context.Context, t Tool, args json.RawMessage, env Env) (Outcome, error) {
	// The caller names the call (the model's id) in env.CallID, so the log
	// and the conversation agree; a call without one gets a fresh id.
	out := Outcome{CallID: env.CallID}
	if out.CallID == "" {
		out.CallID = g.cfg.NewID()
	}
	env.CallID = out.CallID
	s, err := g.cfg.Session(ctx, env)
	if err != nil {
		return out, fmt.Errorf("gate: session: %w", err)
	}
	if s.Now.IsZero() {
		s.Now = g.cfg.Now()
	}
	env.Workspace, env.Sandbox = s.Workspace, s.Sandbox
	effects, err := t.Effects(args, env)
	if err != nil {
		out.Result = ErrorResult(fmt.Sprintf("%s: invalid arguments: %v", t.Name(), err))
		return out, nil
	}
	out.Effects = effects
	d := g.cfg.Decider.Decide(policy.Call{Tool: t.Name(), Effects: effects}, s)
	base := Event{CallID: out.CallID, RequestID: g.cfg.NewID(), Tool: t.Name()}
	switch {
	case g.stands(d):
		// The answer recorded before the restart is this call's answer.
		now := d
		d = g.cfg.Prior.Decision
		d.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "resume",
			Saw: "decided " + string(now.Verdict) + " again after a restart; request " + g.cfg.Prior.RequestID +
				" was answered " + d.Source,
			Concluded: "that answer stands"})
	case d.Verdict == policy.VerdictAllow:
		ev := g.ev(base, EventPermissionGranted)
		ev.Effects, ev.Decision, ev.Source = effects, &d, d.Source
		if err := g.record(ctx, env, ev); err != nil {
			return out, err
		}
	case d.Verdict == policy.VerdictAsk:
		d, err = g.ask(ctx, t, args, env, effects, d, base)
		if err != nil {
			return out, err
		}
	default:
		if err := g.deny(ctx, env, base, effects, &d); err != nil {
			return out, err
		}
	}
	out.Decision = &d
	if d.Verdict != policy.VerdictAllow {
		out.Result = denialResult(d)
		return out, nil
	}
	// A symlink can change while a human thinks: resolve the paths again
	// and run only what was decided on.
	if again, err := t.Effects(args, env); err != nil || !sameEffects(again, effects) {
		ev := g.ev(base, EventToolInvocationFailed)
		ev.Error = "the call's paths resolve differently than when it was decided (a symlink or folder changed); nothing ran"
		out.Result = ErrorResult(ev.Error + "; call again")
		ev.Result = &out.Result
		return out, g.record(ctx, env, ev)
	}
	out.Invoked = true
	env.Egress = g.egress(env, out.CallID)
	env.Ask = func(ctx context.Context, q Question) (policy.Decision, error) { return g.toolAsk(ctx, t, env, q, base) }
	out.Result, err = g.invoke(ctx, t, args, env, base)
	return out, err
}

// sameEffects compares the effects a call was decided on with those it has
// now. An MCP effect's Trusted flag is not part of what the call does: the
// human's "Trust this server" answer flips it while the call waits, and
// that answer approved this very call.
func sameEffects(now, decided []policy.Effect) bool {
	strip := func(effs []policy.Effect) []policy.Effect {
		out := append([]policy.Effect(nil), effs...)
		for i := range out {
			if out[i].Kind == policy.EffectMcp {
				out[i].Trusted = false
			}
		}
		return out
	}
	return reflect.DeepEqual(strip(now), strip(decided))
}

// toolAsk is Env.Ask: a question the running tool puts to the human
// (present_plan) takes the same path as the engine's asks — recorded,
// parked on the Approver, answered, timed out or cancelled, recorded again —
// under its own request id. A prior answer to it (a restart) stands.
func (g *Gate) toolAsk(ctx context.Context, t Tool, env Env, q Question, base Event) (policy.Decision, error) {
	if q.Signature == "" {
		q.Signature = t.Name()
	}
	d := policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{}, Signature: q.Signature,
		Trace: []policy.Step{{Step: "tool", Saw: t.Name() + " asks the human: " + q.Why, Concluded: "ask"}}}
	if g.stands(d) {
		p := g.cfg.Prior.Decision
		p.Trace = append(append([]policy.Step(nil), p.Trace...), policy.Step{Step: "resume",
			Saw: "asked again after a restart; request " + g.cfg.Prior.RequestID + " was answered " + p.Source, Concluded: "that answer stands"})
		return p, nil
	}
	base.RequestID = g.cfg.NewID()
	return g.askAs(ctx, t, q.Args, env, nil, d, base, true)
}

// stands reports whether the prior answer decides this call: same
// signature, and the engine would ask or allow (never over a Deny).
func (g *Gate) stands(d policy.Decision) bool {
	p := g.cfg.Prior
	return p != nil && p.Signature == d.Signature && p.Decision.Verdict == policy.VerdictAllow &&
		(d.Verdict == policy.VerdictAsk || d.Verdict == policy.VerdictAllow)
}

func (g *Gate) ask(ctx context.Context, t Tool, args json.RawMessage, env Env, effects []policy.Effect, d policy.Decision, base Event) (policy.Decision, error) {
	return g.askAs(ctx, t, args, env, effects, d, base, false)
}

func (g *Gate) askAs(ctx context.Context, t Tool, args json.RawMessage, env Env, effects []policy.Effect, d policy.Decision, base Event, direct bool) (policy.Decision, error) {
	req := ApprovalRequest{SessionID: env.SessionID, CallID: base.CallID, Tool: t.Name(), Args: args, Effects: effects,
		Risk: t.Risk(), Reasons: d.Reasons, Signature: d.Signature, Trace: d.Trace, AlwaysRefused: d.AlwaysRefused, Direct: direct}
	if pv, ok := t.(Previewer); ok && !direct {
		if p, err := pv.Preview(args, env); err == nil {
			req.Preview = p
		} else {
			req.Preview = "no preview: " + err.Error()
		}
	}
	ev := g.ev(base, EventPermissionRequested)
	ev.Args, ev.Effects, ev.Decision, ev.Preview, ev.Risk, ev.Direct = args, effects, &d, req.Preview, req.Risk, direct
	if err := g.record(ctx, env, ev); err != nil {
		return d, err
	}
	ans, why := g.await(ctx, req)
	if why == "" && ans.Decided != nil {
		final := *ans.Decided
		switch final.Verdict {
		case policy.VerdictAllow:
			if final.Source == "" {
				final.Source = "human:once"
			}
			ev := g.ev(base, EventPermissionGranted)
			ev.Effects, ev.Decision, ev.Source = effects, &final, final.Source
			return final, g.record(ctx, env, ev)
		case policy.VerdictDeny:
			return final, g.deny(context.WithoutCancel(ctx), env, base, effects, &final)
		}
		why = fmt.Sprintf("the answer decided %q, which is neither allow nor deny", final.Verdict)
	}
	final := d
	final.Reasons = nil
	if why == "" && ans.Approved {
		final.Verdict, final.Source = policy.VerdictAllow, "human:once"
		if ans.Always && d.AlwaysRefused == "" {
			final.Source = "human:always"
		}
		final.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "approval", Saw: "asked a human: " + reasonList(d.Reasons), Concluded: "allow (" + final.Source + ")"})
		ev := g.ev(base, EventPermissionGranted)
		ev.Effects, ev.Decision, ev.Source = effects, &final, final.Source
		return final, g.record(ctx, env, ev)
	}
	final.Verdict = policy.VerdictDeny
	if why != "" {
		final.Reason, final.Detail = policy.ReasonNoApprover, why
		final.Remedy = "attach a human (the desktop app or an approval timeout), or add a grant for " + d.Signature
	} else {
		final.Reason, final.Detail = policy.ReasonUserDenied, "a human denied the call"
		if ans.Note != "" {
			final.Detail += ": " + ans.Note
		}
	}
	final.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "approval", Saw: "asked: " + reasonList(d.Reasons), Concluded: "deny (" + string(final.Reason) + ")"})
	// The answer may be "none" because ctx ended; the denial is still owed
	// to the log.
	return final, g.deny(context.WithoutCancel(ctx), env, base, effects, &final)
}

// await gets an answer, or the reason none came.
func (g *Gate) await(ctx context.Context, req ApprovalRequest) (Approval, string) {
	if g.cfg.Approver == nil {
		if g.cfg.ApprovalTimeout > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(g.cfg.ApprovalTimeout):
			}
		}
		return Approval{}, fmt.Sprintf("no human attached to answer (waited %s)", g.cfg.ApprovalTimeout)
	}
	if g.cfg.ApprovalTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.cfg.ApprovalTimeout)
		defer cancel()
	}
	ans, err := g.cfg.Approver.Approve(ctx, req)
	if err != nil {
		return Approval{}, "no answer: " + err.Error()
	}
	return ans, ""
}

func (g *Gate) deny(ctx context.Context, env Env, base Event, effects []policy.Effect, d *policy.Decision) error {
	ev := g.ev(base, EventPermissionDenied)
	ev.Effects, ev.Decision, ev.Reason, ev.Detail = effects, d, d.Reason, d.Detail
	return g.record(ctx, env, ev)
}

func (g *Gate) invoke(ctx context.Context, t Tool, args json.RawMessage, env Env, base Event) (Result, error) {
	ev := g.ev(base, EventToolInvocationStarted)
	ev.Args = args
	if err := g.record(ctx, env, ev); err != nil {
		return Result{}, err
	}
	start := g.cfg.Now()
	res, err := t.Invoke(ctx, args, env)
	end := g.ev(base, EventToolInvocationCompleted)
	end.Duration = g.cfg.Now().Sub(start)
	if err != nil {
		res = ErrorResult(fmt.Sprintf("%s failed: %v", t.Name(), err))
		end.Error = err.Error()
	}
	if err != nil || res.IsError {
		end.Type = EventToolInvocationFailed
	}
	end.Result = &res
	// The call ran; a journal failure now must not hide its result.
	_ = g.record(context.WithoutCancel(ctx), env, end)
	return res, nil
}

func (g *Gate) ev(base Event, typ EventType) Event {
	base.Type, base.At = typ, g.cfg.Now()
	return base
}

func (g *Gate) record(ctx context.Context, env Env, ev Event) error {
	if g.cfg.Journal == nil {
		return nil
	}
	if err := g.cfg.Journal.Record(ctx, env.SessionID, ev); err != nil {
		return fmt.Errorf("gate: record %s: %w", ev.Type, err)
	}
	return nil
}

// denialResult is the refusal the model reads and re-plans from.
func denialResult(d policy.Decision) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "denied (%s)", d.Reason)
	if d.Detail != "" {
		b.WriteString(": " + d.Detail)
	}
	if d.Remedy != "" {
		b.WriteString(". Remedy: " + d.Remedy)
	}
	return ErrorResult(b.String())
}

func reasonList(rs []policy.Reason) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// Wrap returns t behind the gate: its Invoke takes the whole path.
func (g *Gate) Wrap(t Tool) Tool { return &gated{Tool: t, g: g} }

// WrapAll returns a registry holding every tool of r behind the gate.
func (g *Gate) WrapAll(r *Registry) (*Registry, error) { return r.Wrapped(g.Wrap) }

type gated struct {
	Tool
	g *Gate
}

func (t *gated) Invoke(ctx context.Context, args json.RawMessage, env Env) (Result, error) {
	out, err := t.g.Call(ctx, t.Tool, args, env)
	return out.Result, err
}

// Unwrap returns the tool behind the gate.
func (t *gated) Unwrap() Tool { return t.Tool }
