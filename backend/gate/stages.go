package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// CallInfo is what a stage knows of the call it sees.
type CallInfo struct {
	SessionID string
	CallID    string
	RequestID string // the ask that decided it
	Tool      string
	Workspace string
	Sandbox   policy.SandboxPolicy
	Approval  policy.ApprovalPolicy
	// Caged: the session's commands run in the OS cage.
	Caged   bool
	Effects []policy.Effect
	// Args are the call's arguments as the model sent them.
	Args json.RawMessage
	// Decision is the chain's decision (before a hook: what it would be;
	// after the ask: the outcome, with its Layer).
	Decision policy.Decision
}

// Checkpointer is the stage around the invoke of an allowed call:
// *checkpoint.Tracker.
type Checkpointer interface {
	// Begin takes the checkpoint before the call; nil when the call
	// cannot change files (its effects say so). It never fails the call:
	// a checkpoint that cannot be taken is Finish's to record.
	Begin(ctx context.Context, c CallInfo) Checkpoint
}

// Checkpoint is one call between its two checkpoints.
type Checkpoint interface {
	// Finish takes the checkpoint after the call, records its change set
	// and returns it; it may add a note for the model to res.
	Finish(ctx context.Context, res *tools.Result) Changes
}

// Changes is what one call changed in its workspace.
type Changes struct {
	// Event is the change set as recorded (Files empty: nothing changed;
	// Error set: no checkpoint could be taken, so nothing is known).
	Event store.WorkspaceChanged
	// Checkpoint is the call's pair of checkpoints, to revert from.
	Checkpoint Checkpoint
}

// PostCall checks what an invoked call changed, after its checkpoint and
// before the call returns (the check that what the cage wrote never runs
// outside it). It may revert changes from the checkpoint; what it reports
// is recorded and told to the model.
type PostCall interface {
	AfterCall(ctx context.Context, c CallInfo, changes Changes) (PostReport, error)
}

// PostReport is what a post-call check found and did.
type PostReport struct {
	// Events are recorded in the call's session, in order.
	Events []store.Event
	// Note is added to the result the model reads ("" adds nothing).
	Note string
}

// Hook is a pre-call and after-call hook (user, workspace or org
// configured). Pre-call hooks may only tighten: they see a call the chain
// would allow or ask about, and may turn it into an ask or refuse it.
// After-call hooks only observe.
type Hook interface {
	// BeforeCall returns a refusal (Ask set: a human must answer the call
	// instead), or nil to let the call through as decided. An error
	// refuses the call (fail closed).
	BeforeCall(ctx context.Context, c CallInfo) (*Refusal, error)
	// AfterCall sees an invoked call's result.
	AfterCall(ctx context.Context, c CallInfo, res tools.Result)
	// Name names the hook in the decision's layer detail.
	Name() string
}

// Refusal is a hook's or an answerer's no, with why. Ask, from a pre-call
// hook, asks a human instead of denying.
type Refusal struct {
	Why string
	Ask bool
}

// Answerer answers an ask before the human does: an external command, a
// reviewer model. It never sees a Deny, never answers the reasons only a
// human may answer (NeedsHuman), never creates grants or changes an axis.
type Answerer interface {
	// Kind names it in the decision's layer detail ("command", "model").
	Kind() string
	// Answer is allow, deny or pass; an error is a deny (fail closed),
	// its text the reason the model reads.
	Answer(ctx context.Context, q Question) (Verdict, error)
}

// Named is an answerer with a name of its own (the config's name, a
// reviewer's model): the layer detail is then "kind:name".
type Named interface{ Name() string }

// Verdict is an answerer's answer.
type Verdict struct {
	Answer AnswererAnswer
	Why    string
}

// AnswererAnswer is allow, deny or pass.
type AnswererAnswer string

// An answerer's answers.
const (
	AnswererAllow AnswererAnswer = "allow"
	AnswererDeny  AnswererAnswer = "deny"
	AnswererPass  AnswererAnswer = "pass"
)

// Question is what an answerer sees of an ask: the request a human would
// see, without the preview's file contents, with the session's axes and
// the user's last message. Never the assistant's reasoning or any tool's
// output: injected text cannot argue with an answerer.
type Question struct {
	SessionID string
	CallID    string
	RequestID string
	Tool      string
	Args      json.RawMessage
	Effects   []policy.Effect
	Reasons   []policy.Reason
	Signature string
	Risk      policy.Risk
	Workspace string
	Approval  policy.ApprovalPolicy
	Sandbox   policy.SandboxPolicy
	Trace     []policy.Step
	// UserMessage is the user's last message in the session ("" when the
	// gate has no store to read it from).
	UserMessage string
}

// AnswerNote is one answer an answerer gave to an ask, as the human sees
// it when the ask reaches them (who passed it on, and why).
type AnswerNote struct {
	Kind      string         `json:"kind"`
	Name      string         `json:"name,omitempty"`
	Answer    AnswererAnswer `json:"answer" ts:"'allow' | 'deny' | 'pass'"`
	Why       string         `json:"why,omitempty"`
	LatencyMs int64          `json:"latency_ms"`
}

// Lineup is one session's answerers and hooks beyond the gate's own
// (Config.Answerers, Config.Hooks): those its workspace and user
// configured, trusted and allowed by the organisation.
type Lineup struct {
	Answerers []Answerer
	Hooks     []Hook
	// Notes are told to the human with each ask of the session: what was
	// left out and why (a workspace hook not trusted yet, or changed since
	// it was; a kind the organisation does not allow).
	Notes []string
}

// LineupFunc returns the lineup of a call's session. It must not fail the
// call: what it cannot build it leaves out, with a note.
type LineupFunc func(ctx context.Context, c CallInfo) Lineup

// NeedsHuman reports whether only a human may answer an ask with these
// reasons: a protected path, a read of a secret, an escalation out of the
// claim's cage, a write outside the workspace under full access, a hook's
// ask, control of the desktop, a call to an MCP server nobody trusted.
// Answerers pass such an ask on.
func NeedsHuman(reasons []policy.Reason, sb policy.SandboxPolicy) bool {
	return humanOnlyReason(reasons, sb) != ""
}

// humanOnlyReason is the reason only a human may answer, or "". Beyond the
// contract's list (protected path, secret read, full-access outside
// write), Warden keeps to the human what no cage holds: the desktop's
// mouse and keyboard (typing into a terminal runs anything), and an MCP
// server's tool before anyone trusted the server (trust is the human's).
func humanOnlyReason(reasons []policy.Reason, sb policy.SandboxPolicy) policy.Reason {
	for _, r := range reasons {
		switch {
		case r == policy.ReasonProtectedPath, r == policy.ReasonSecretRead, r == policy.ReasonEscalation, r == policy.ReasonHookAsked,
			r == policy.ReasonDesktopControl, r == policy.ReasonUntrustedMcpServer:
			return r
		case r == policy.ReasonOutsideWorkspace && sb.Kind == policy.DangerFullAccess:
			return r
		}
	}
	return ""
}

// humanOnly says why only a human may answer an ask, in words, or "": a
// reason only a human answers, or a command that would run outside the OS
// cage (an answerer's yes never runs anything unconfined; once the
// engine's claim shapes a cage for every mode, a full-access command no
// human answered runs in that cage, and the session says it is caged).
func humanOnly(reasons []policy.Reason, effects []policy.Effect, s policy.Session) string {
	if r := humanOnlyReason(reasons, s.Sandbox); r != "" {
		return policy.ReasonText(r)
	}
	if s.Caged {
		return ""
	}
	for _, e := range effects {
		if e.Kind == policy.EffectExec {
			return "the command would run outside the OS cage"
		}
	}
	return ""
}

// beforeCall runs the pre-call hooks (the gate's, then the session's) on
// a call the chain allows or asks about. A hook may only tighten: an ask
// turns an allow into an ask only a human answers (and adds its reason to
// an ask); the first refusal (or failure) denies. Each tightening is
// recorded as the hook's answer, with its latency.
func (g *Gate) beforeCall(ctx context.Context, c CallInfo, d policy.Decision, session []Hook, id ask.ID) (policy.Decision, error) {
	for _, h := range g.hooks(session) {
		start := g.cfg.Now()
		r, err := h.BeforeCall(ctx, c)
		took := g.cfg.Now().Sub(start).Milliseconds()
		if err != nil {
			r = &Refusal{Why: "the hook failed: " + err.Error()}
		}
		if r == nil {
			continue
		}
		answer := "deny"
		if r.Ask {
			answer = "ask"
		}
		if err := g.recordAnswer(ctx, id, store.AnswererAnswered{Kind: "hook", Name: h.Name(), Answer: answer, Reason: r.Why, LatencyMs: took}); err != nil {
			return d, err
		}
		if r.Ask {
			d = hookAsks(d, h.Name(), r.Why)
			c.Decision = d
			continue
		}
		out := policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonHookDenied, Detail: r.Why,
			Signature: d.Signature, Layer: policy.LayerAnswerer, LayerDetail: "hook:" + h.Name(),
			Remedy: "the hook " + h.Name() + " refuses this call; change the call or ask the human to change the hook"}
		out.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "hook", Saw: fmt.Sprintf("%s (%d ms): %s", h.Name(), took, r.Why),
			Concluded: "deny (" + string(policy.ReasonHookDenied) + ")"})
		return out, nil
	}
	return d, nil
}

// hookAsks is d tightened by a hook's ask: an allow becomes an ask, an ask
// gains the hook's reason; either way only a human answers it, and
// "always" is not offered (no grant is consulted after the hooks).
func hookAsks(d policy.Decision, name, why string) policy.Decision {
	out := d
	was := d.Verdict
	out.Verdict, out.Source = policy.VerdictAsk, ""
	out.Reasons = append(append([]policy.Reason(nil), d.Reasons...), policy.ReasonHookAsked)
	out.Layer, out.LayerDetail = policy.LayerAnswerer, "hook:"+name
	out.AlwaysRefused = "the hook " + name + " asks for this call each time: a standing grant would never apply to it"
	out.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "hook", Saw: name + ": " + why,
		Concluded: "ask (" + string(policy.ReasonHookAsked) + "; was " + string(was) + ")"})
	return out
}

// hooks are the gate's hooks followed by the session's.
func (g *Gate) hooks(session []Hook) []Hook {
	if len(session) == 0 {
		return g.cfg.Hooks
	}
	return append(append([]Hook(nil), g.cfg.Hooks...), session...)
}

// lineup is the call's session's own answerers and hooks.
func (g *Gate) lineup(ctx context.Context, c CallInfo) Lineup {
	if g.cfg.Lineup == nil {
		return Lineup{}
	}
	return g.cfg.Lineup(ctx, c)
}

// recordAnswer appends an answerer's or a hook's answer to the call's
// session: every answer is an event (layer answerer, kind, name, latency).
func (g *Gate) recordAnswer(ctx context.Context, id ask.ID, a store.AnswererAnswered) error {
	a.RequestID, a.CallID, a.Tool, a.Layer = id.RequestID, id.CallID, id.Tool, policy.LayerAnswerer
	if _, err := g.log.Append(ctx, id.SessionID, store.AnyVersion, a); err != nil {
		return fmt.Errorf("gate: record the answer of %s %s: %w", a.Kind, a.Name, err)
	}
	return nil
}

// invoke runs an allowed call between its checkpoints, then the post-call
// checks and the after-call hooks, each step recorded.
func (g *Gate) invoke(ctx context.Context, call tools.Prepared, c CallInfo, env tools.Env, id ask.ID, session []Hook, grant store.Event) (tools.Result, error) {
	started := ask.Move{On: ask.Start, Event: store.ToolInvocationStarted{Args: argsOf(call)}}
	moves := []ask.Move{started}
	if grant != nil { // allowed unasked: the grant is recorded with the start (Run)
		moves = []ask.Move{{On: ask.Allow, Event: grant}, started}
	}
	// A call that holds its effects is invoked at once: its set-up (the
	// cage) overlaps the recording and the checkpoint, and it acts only
	// once both are done (tools.Holder).
	early := startHeld(ctx, call, env)
	if _, err := g.asks.Steps(ctx, id, moves...); err != nil {
		early.callOff(err)
		return tools.Result{}, err
	}
	var cp Checkpoint
	if g.cfg.Checkpoint != nil {
		cp = g.cfg.Checkpoint.Begin(ctx, c)
	}
	start := g.cfg.Now()
	var res tools.Result
	var err error
	if early != nil {
		res, err = early.proceed()
	} else {
		res, err = call.Invoke(ctx, env)
	}
	took := g.cfg.Now().Sub(start).Milliseconds()
	if err != nil {
		res = tools.ErrorResult(fmt.Sprintf("%s failed: %v", c.Tool, err))
	}
	// The call ran; what follows is owed to the log even when ctx ended.
	wctx := context.WithoutCancel(ctx)
	if cp != nil {
		changes := cp.Finish(wctx, &res)
		g.postCall(wctx, c, changes, &res)
	}
	for _, h := range g.hooks(session) {
		h.AfterCall(wctx, c, res)
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
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

// heldCall is a call invoked before it was recorded (tools.Holder): it
// waits on its Proceed for the gate's word.
type heldCall struct {
	word chan error
	done chan struct{}
	res  tools.Result
	err  error
}

// startHeld invokes call at once when it holds its effects; nil otherwise
// (the gate then invokes it once the call is recorded).
func startHeld(ctx context.Context, call tools.Prepared, env tools.Env) *heldCall {
	if h, ok := call.(tools.Holder); !ok || !h.HoldsEffects() {
		return nil
	}
	hc := &heldCall{word: make(chan error, 1), done: make(chan struct{})}
	env.Proceed = hc.word
	go func() {
		defer close(hc.done)
		hc.res, hc.err = call.Invoke(ctx, env)
	}()
	return hc
}

// proceed lets the held call act and waits for its result.
func (hc *heldCall) proceed() (tools.Result, error) {
	hc.word <- nil
	<-hc.done
	return hc.res, hc.err
}

// callOff tells a held call it must not act (why: err) and waits until it
// has undone its set-up; a nil call is a no-op.
func (hc *heldCall) callOff(err error) {
	if hc == nil {
		return
	}
	hc.word <- err
	<-hc.done
}

// postCall runs the post-call checks on the call's change set; a check
// that fails is told to the model (its changes are then unchecked).
func (g *Gate) postCall(ctx context.Context, c CallInfo, changes Changes, res *tools.Result) {
	for _, pc := range g.cfg.PostCall {
		rep, err := pc.AfterCall(ctx, c, changes)
		if err != nil {
			rep.Note = strings.TrimSpace(rep.Note + "\n[warden] the post-call check failed: " + err.Error())
		}
		if len(rep.Events) > 0 {
			_, _ = g.log.Append(ctx, c.SessionID, store.AnyVersion, rep.Events...)
		}
		if rep.Note != "" {
			res.Content = append(res.Content, tools.Content{Type: "text", Text: rep.Note})
		}
	}
}

// argsOf is the arguments a prepared call records as started.
func argsOf(call tools.Prepared) json.RawMessage { return call.Args() }

func resultText(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}
