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
	// Caged: the session's commands run in the OS cage.
	Caged   bool
	Effects []policy.Effect
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

// Hook is a pre-call and after-call hook (user or org configured).
// Pre-call hooks may only tighten: they see a call the chain would allow
// or ask about, and may refuse it. After-call hooks only observe.
type Hook interface {
	// BeforeCall returns a refusal, or nil to let the call through as
	// decided. An error refuses the call (fail closed).
	BeforeCall(ctx context.Context, c CallInfo) (*Refusal, error)
	// AfterCall sees an invoked call's result.
	AfterCall(ctx context.Context, c CallInfo, res tools.Result)
	// Name names the hook in the decision's layer detail.
	Name() string
}

// Refusal is a hook's or an answerer's no, with why.
type Refusal struct{ Why string }

// Answerer answers an ask before the human does: an external command, a
// reviewer model. It never sees a Deny, never answers the reasons only a
// human may answer (NeedsHuman), never creates grants or changes an axis.
type Answerer interface {
	// Kind names it in the decision's layer detail ("command", "model").
	Kind() string
	// Answer is allow, deny or pass; an error is a deny (fail closed).
	Answer(ctx context.Context, q Question) (Verdict, error)
}

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
// see, without the preview's file contents.
type Question struct {
	SessionID string
	CallID    string
	Tool      string
	Args      json.RawMessage
	Effects   []policy.Effect
	Reasons   []policy.Reason
	Signature string
}

// NeedsHuman reports whether only a human may answer an ask with these
// reasons: a protected path, a read of a secret, a write outside the
// workspace under full access. Answerers pass such an ask on.
func NeedsHuman(reasons []policy.Reason, sb policy.SandboxPolicy) bool {
	for _, r := range reasons {
		switch {
		case r == policy.ReasonProtectedPath, r == policy.ReasonSecretRead, r == policy.ReasonEscalation:
			return true
		case r == policy.ReasonOutsideWorkspace && sb.Kind == policy.DangerFullAccess:
			return true
		}
	}
	return false
}

// beforeCall runs the pre-call hooks on a call the chain allows or asks
// about: the first refusal (or failure) denies it.
func (g *Gate) beforeCall(ctx context.Context, c CallInfo, d policy.Decision) policy.Decision {
	for _, h := range g.cfg.Hooks {
		r, err := h.BeforeCall(ctx, c)
		if err != nil {
			r = &Refusal{Why: "the hook failed: " + err.Error()}
		}
		if r == nil {
			continue
		}
		out := policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonHookDenied, Detail: r.Why,
			Signature: d.Signature, Layer: policy.LayerAnswerer, LayerDetail: "hook:" + h.Name(),
			Remedy: "the hook " + h.Name() + " refuses this call; change the call or ask the human to change the hook"}
		out.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "hook", Saw: h.Name() + ": " + r.Why,
			Concluded: "deny (" + string(policy.ReasonHookDenied) + ")"})
		return out
	}
	return d
}

// invoke runs an allowed call between its checkpoints, then the post-call
// checks and the after-call hooks, each step recorded.
func (g *Gate) invoke(ctx context.Context, call tools.Prepared, c CallInfo, env tools.Env, id ask.ID) (tools.Result, error) {
	if _, err := g.asks.Step(ctx, id, ask.Start, store.ToolInvocationStarted{Args: argsOf(call)}); err != nil {
		return tools.Result{}, err
	}
	var cp Checkpoint
	if g.cfg.Checkpoint != nil {
		cp = g.cfg.Checkpoint.Begin(ctx, c)
	}
	start := g.cfg.Now()
	res, err := call.Invoke(ctx, env)
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
	for _, h := range g.cfg.Hooks {
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
