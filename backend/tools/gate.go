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
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools/ask"
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
	RequestID string          `json:"request_id"`
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
	// On is the ask's transition a Decided answer is (cancel,
	// supersede-allow, supersede-deny); empty reads as a supersede.
	On ask.Transition `json:"on,omitempty"`
	// Recorded says the approver already moved the ask through the
	// gate's machine (GateConfig.Asks, shared) and recorded this answer:
	// Decided is the outcome and the gate records nothing more. Only an
	// approver sharing the gate's machine may set it.
	Recorded bool `json:"-"`
}

// Approver parks a call until a human answers. It returns an error when no
// answer can come (ctx done, nobody attached); the gate then denies.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, error)
}

// Journal is where the gate records a session's events: the store's own
// sealed event types (*store.Store is one). A failure to record a
// permission event stops the call: nothing runs unrecorded.
type Journal = ask.Log

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
	// Asks is the process's ask machine, recording to Journal; nil makes
	// one for this gate. A service shares one between its gates and the
	// answers it takes, so two answers to one ask record one.
	Asks  *ask.Machine
	Now   func() time.Time
	NewID func() string
	// Network decides the destinations of caged commands (gate_net.go).
	Network NetworkConfig
}

// Gate is the one path every tool call takes: effects, decision, approval,
// invocation, each step recorded. A tool never consults the policy itself.
type Gate struct {
	cfg  GateConfig
	asks *ask.Machine
}

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
	if cfg.Journal == nil {
		cfg.Journal = discard{}
	}
	g := &Gate{cfg: cfg, asks: cfg.Asks}
	if g.asks == nil {
		g.asks = ask.NewMachine(cfg.Journal)
	}
	return g, nil
}

type discard struct{}

func (discard) Append(context.Context, string, int64, ...store.Event) (int64, error) { return 0, nil }

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
	id := ask.ID{SessionID: env.SessionID, RequestID: g.cfg.NewID(), CallID: out.CallID, Tool: t.Name()}
	switch {
	case g.standing(id, d, false) != nil:
		// A human answered this very call's ask before a restart: that
		// ask carries on (allowed → running); nothing is asked twice.
		p := g.standing(id, d, false)
		d = stood(*p, "decided "+string(d.Verdict)+" again after a restart")
		id = p.ID
	case d.Verdict == policy.VerdictAllow:
		if _, err := g.asks.Step(ctx, id, ask.Allow, granted(d)); err != nil {
			return out, err
		}
	case d.Verdict == policy.VerdictAsk:
		d, err = g.ask(ctx, t, args, env, effects, policy.RiskOf(policy.Call{Tool: t.Name(), Effects: effects}, s), d, id, false)
		if err != nil {
			return out, err
		}
	default:
		if err := g.deny(ctx, id, ask.Deny, d); err != nil {
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
		msg := "the call's paths resolve differently than when it was decided (a symlink or folder changed); nothing ran"
		out.Result = ErrorResult(msg + "; call again")
		_, err := g.asks.Step(context.WithoutCancel(ctx), id, ask.Stale, store.ToolInvocationFailed{Error: msg})
		return out, err
	}
	out.Invoked = true
	env.Egress = g.egress(env, out.CallID, t.Name(), effects)
	env.Ask = func(ctx context.Context, q Question) (policy.Decision, error) { return g.toolAsk(ctx, t, env, q) }
	out.Result, err = g.invoke(ctx, t, args, env, id)
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
// (present_plan) is an ask of its own in the same machine — recorded,
// parked on the Approver, answered, timed out or cancelled, recorded again —
// under its own request id, for the same call. A prior answer to it (a
// restart) stands.
func (g *Gate) toolAsk(ctx context.Context, t Tool, env Env, q Question) (policy.Decision, error) {
	if q.Signature == "" {
		q.Signature = t.Name()
	}
	d := policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{}, Signature: q.Signature,
		Trace: []policy.Step{{Step: "tool", Saw: t.Name() + " asks the human: " + q.Why, Concluded: "ask"}}}
	id := ask.ID{SessionID: env.SessionID, RequestID: g.cfg.NewID(), CallID: env.CallID, Tool: t.Name()}
	if p := g.standing(id, d, true); p != nil {
		return stood(*p, "asked again after a restart"), nil
	}
	return g.ask(ctx, t, q.Args, env, nil, t.Risk(), d, id, true)
}

// standing is the ask of this call a human answered yes before a restart
// (restored into the machine from the log, still allowed, never started):
// same signature, a tool's own question or not like this one, and the
// engine would ask or allow now (it never stands over a Deny).
func (g *Gate) standing(id ask.ID, d policy.Decision, direct bool) *ask.Ask {
	if d.Verdict != policy.VerdictAsk && d.Verdict != policy.VerdictAllow {
		return nil
	}
	for _, a := range g.asks.ByCall(id.SessionID, id.CallID) {
		if a.State == ask.Allowed && strings.HasPrefix(a.Source, "human:") && a.Signature == d.Signature &&
			a.Question != nil && a.Question.Direct == direct && a.Tool == id.Tool {
			return &a
		}
	}
	return nil
}

// stood is the decision of a standing answer, its trace saying so.
func stood(a ask.Ask, saw string) policy.Decision {
	d := policy.Decision{Verdict: policy.VerdictAllow, Source: a.Source, Signature: a.Signature, Reasons: []policy.Reason{}}
	if a.Question != nil {
		d.Trace = append([]policy.Step(nil), a.Question.Trace...)
	}
	d.Trace = append(d.Trace, policy.Step{Step: "resume", Saw: saw + "; request " + a.RequestID + " was answered " + a.Source,
		Concluded: "that answer stands"})
	return d
}

// ask takes an Ask to a human: requested, then one of the answers the
// machine allows from there, each recorded before it counts.
// Its risk comes from the call's effects (policy.RiskOf), a tool's own
// question from the tool.
func (g *Gate) ask(ctx context.Context, t Tool, args json.RawMessage, env Env, effects []policy.Effect, risk policy.Risk, d policy.Decision, id ask.ID, direct bool) (policy.Decision, error) {
	req := ApprovalRequest{SessionID: env.SessionID, CallID: id.CallID, RequestID: id.RequestID, Tool: t.Name(), Args: args,
		Effects: effects, Risk: risk, Reasons: d.Reasons, Signature: d.Signature, Trace: d.Trace,
		AlwaysRefused: d.AlwaysRefused, Direct: direct}
	if pv, ok := t.(Previewer); ok && !direct {
		if p, err := pv.Preview(args, env); err == nil {
			req.Preview = p
		} else {
			req.Preview = "no preview: " + err.Error()
		}
	}
	if _, err := g.asks.Step(ctx, id, ask.Request, store.PermissionRequested{Args: args, Risk: req.Risk, Reasons: d.Reasons,
		Signature: d.Signature, Effects: effects, Trace: d.Trace, Preview: req.Preview, AlwaysRefused: d.AlwaysRefused,
		Direct: direct}); err != nil {
		return d, err
	}
	// The answer may be "none" because ctx ended; its record is still
	// owed to the log.
	wctx := context.WithoutCancel(ctx)
	ans, why := g.await(ctx, req)
	if why == "" && ans.Recorded {
		// The approver took the answer through the shared machine and
		// recorded it: the ask is decided, there is nothing left to record.
		if ans.Decided != nil {
			return *ans.Decided, nil
		}
		why = "the approver recorded an answer without its decision"
	}
	if why == "" {
		final, on, ev, err := Resolve(d, ans)
		if err == nil {
			_, err := g.asks.Step(wctx, id, on, ev)
			return final, err
		}
		why = err.Error()
	}
	final := d
	final.Reasons = nil
	final.Verdict = policy.VerdictDeny
	final.Reason, final.Detail = policy.ReasonNoApprover, why
	final.Remedy = "attach a human (the desktop app or an approval timeout), or add a grant for " + d.Signature
	final.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "approval", Saw: "asked: " + reasonList(d.Reasons), Concluded: "deny (" + string(final.Reason) + ")"})
	return final, g.deny(wctx, id, ask.TimeOut, final)
}

// Resolve is what an answer to an ask decided on d: the outcome, the ask's
// transition and the event that records it. The gate records it; an
// approver sharing the gate's machine may record it itself first and hand
// the gate the outcome (Approval.Recorded). A Decided answer must allow or
// deny.
func Resolve(d policy.Decision, ans Approval) (policy.Decision, ask.Transition, store.Event, error) {
	if ans.Decided != nil {
		final := *ans.Decided
		switch final.Verdict {
		case policy.VerdictAllow:
			if final.Source == "" {
				final.Source = "human:once"
			}
			on := ans.On
			if on == "" {
				on = ask.SupersedeAllow
			}
			return final, on, granted(final), nil
		case policy.VerdictDeny:
			on := ans.On
			if on == "" {
				on = ask.SupersedeDeny
			}
			return final, on, denied(final), nil
		}
		return d, "", nil, fmt.Errorf("the answer decided %q, which is neither allow nor deny", final.Verdict)
	}
	final := d
	final.Reasons = nil
	if ans.Approved {
		final.Verdict, final.Source = policy.VerdictAllow, "human:once"
		on := ask.AnswerOnce
		if ans.Always && d.AlwaysRefused == "" {
			final.Source, on = "human:always", ask.AnswerAlways
		}
		final.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "approval", Saw: "asked a human: " + reasonList(d.Reasons), Concluded: "allow (" + final.Source + ")"})
		return final, on, granted(final), nil
	}
	final.Verdict = policy.VerdictDeny
	final.Reason, final.Detail = policy.ReasonUserDenied, "a human denied the call"
	if ans.Note != "" {
		final.Detail += ": " + ans.Note
	}
	final.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "approval", Saw: "asked: " + reasonList(d.Reasons), Concluded: "deny (" + string(final.Reason) + ")"})
	return final, ask.AnswerDeny, denied(final), nil
}

// await gets an answer, or the reason none came.
func (g *Gate) await(ctx context.Context, req ApprovalRequest) (Approval, string) {
	if g.cfg.Approver == nil {
		if g.cfg.ApprovalTimeout > 0 {
			select {
			case <-ctx.Done():
				return Approval{}, "no human attached to answer; the wait was cut short: " + ctx.Err().Error()
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

// granted is the record of an allow.
func granted(d policy.Decision) store.PermissionGranted {
	return store.PermissionGranted{Signature: d.Signature, Source: d.Source, Trace: d.Trace}
}

func (g *Gate) deny(ctx context.Context, id ask.ID, on ask.Transition, d policy.Decision) error {
	_, err := g.asks.Step(ctx, id, on, denied(d))
	return err
}

// denied is the record of a deny.
func denied(d policy.Decision) store.PermissionDenied {
	return store.PermissionDenied{Signature: d.Signature, Reason: d.Reason, Detail: d.Detail,
		Remedy: d.Remedy, By: deniedBy(d.Reason), Trace: d.Trace}
}

// deniedBy says who refused, from the reason: sandbox, freeze, user, or
// no-approver for the fail-closed rest.
func deniedBy(r policy.Reason) store.DeniedBy {
	switch r {
	case policy.ReasonSandboxRejected:
		return store.DeniedBySandbox
	case policy.ReasonPlanningFreeze:
		return store.DeniedByFreeze
	case policy.ReasonUserDenied:
		return store.DeniedByUser
	}
	return store.DeniedByNoApprover
}

func (g *Gate) invoke(ctx context.Context, t Tool, args json.RawMessage, env Env, id ask.ID) (Result, error) {
	if _, err := g.asks.Step(ctx, id, ask.Start, store.ToolInvocationStarted{Args: args}); err != nil {
		return Result{}, err
	}
	start := g.cfg.Now()
	res, err := t.Invoke(ctx, args, env)
	took := g.cfg.Now().Sub(start).Milliseconds()
	msg := ""
	if err != nil {
		res = ErrorResult(fmt.Sprintf("%s failed: %v", t.Name(), err))
		msg = err.Error()
	}
	// The call ran; a journal failure now must not hide its result.
	wctx := context.WithoutCancel(ctx)
	if err != nil || res.IsError {
		if msg == "" {
			msg = resultText(res)
		}
		_, _ = g.asks.Step(wctx, id, ask.Fail, store.ToolInvocationFailed{Error: msg, DurationMs: took})
		return res, nil
	}
	done := store.ToolInvocationCompleted{Output: resultText(res), DurationMs: took}
	done.Result, _ = json.Marshal(res)
	var x struct {
		ExitCode *int `json:"exit_code"`
	}
	if json.Unmarshal(res.Structured, &x) == nil {
		done.ExitCode = x.ExitCode
	}
	_, _ = g.asks.Step(wctx, id, ask.Finish, done)
	return res, nil
}

func resultText(r Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
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
