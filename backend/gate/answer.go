package gate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// ErrUnknownRequest is wrapped by every refusal of an answer whose request
// is unknown, already answered differently, or from another session.
var ErrUnknownRequest = errors.New("unknown or stale permission request")

// ErrNoSeat refuses an answer to a gate whose asks no human answers (no
// store, or an Approver stands in for the human).
var ErrNoSeat = errors.New("no human answers asks in this process")

// RequestError refuses an answer; errors.Is(err, ErrUnknownRequest) holds.
type RequestError struct {
	RequestID string
	Why       string
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("permission request %q: %s", e.RequestID, e.Why)
}

func (e *RequestError) Unwrap() error { return ErrUnknownRequest }

// Answer kinds.
const (
	AnswerOnce   = "once"
	AnswerAlways = "always"
	AnswerDeny   = "deny"
)

// The front ends a human answers from (AnswerArgs.Via): the decision's
// layer detail names it.
const (
	ViaWindow = "window"
	ViaTUI    = "tui"
	ViaServe  = "serve"
	ViaCLI    = "cli"
	ViaRemote = "remote"
)

// AnswerArgs is a human's answer to one ask.
type AnswerArgs struct {
	RequestID    string            `json:"request_id"`
	Answer       string            `json:"answer" ts:"'once' | 'always' | 'deny'"`
	Scope        policy.GrantScope `json:"scope,omitempty"`
	ExpiresInSec int64             `json:"expires_in_sec,omitempty"`
	Note         string            `json:"note,omitempty"`
	TrustServer  string            `json:"trust_server,omitempty" ts:"'session' | 'persistent'"` // session | persistent
	// Via is the front end the human answered from; the transport sets
	// it when the caller does not.
	Via string `json:"via,omitempty" ts:"'window' | 'tui' | 'serve' | 'cli' | 'remote'"`
}

// Answered is what an answer did.
type Answered struct {
	// Restored: the ask's call ended with an earlier process. The answer
	// is recorded; carrying the call on is the caller's (the runtime
	// resumes the interrupted turn).
	Restored bool
	// Ask is the ask answered, as it was pending.
	Ask Pending
}

// Before runs after an answer is checked and before it is recorded, with
// the ask it answers (the runtime trusts an MCP server there); an error
// refuses the answer.
type Before func(ctx context.Context, p Pending, a AnswerArgs) error

// Answer applies a human's answer. Repeating the same answer is a no-op
// (Answered zero); a different answer to an answered request, or an
// unknown id, is refused with a *RequestError.
func (g *Gate) Answer(ctx context.Context, a AnswerArgs, before Before) (Answered, error) {
	b := g.seat
	if b == nil {
		return Answered{}, ErrNoSeat
	}
	if a.RequestID == "" {
		return Answered{}, errors.New("answer: request_id is empty")
	}
	switch a.Answer {
	case AnswerOnce, AnswerAlways, AnswerDeny:
	default:
		return Answered{}, fmt.Errorf("answer %q is not once, always or deny", a.Answer)
	}
	switch a.Via {
	case "", ViaWindow, ViaTUI, ViaServe, ViaCLI, ViaRemote:
	default:
		return Answered{}, fmt.Errorf("via %q is not window, tui, serve, cli or remote", a.Via)
	}
	if a.Answer == AnswerAlways {
		if a.Scope == "" {
			a.Scope = policy.ScopeSession
		}
		if a.Scope != policy.ScopeSession && a.Scope != policy.ScopeWorkspace {
			return Answered{}, fmt.Errorf("scope %q is not session or workspace", a.Scope)
		}
	}
	if a.ExpiresInSec < 0 {
		return Answered{}, errors.New("expires_in_sec is negative")
	}
	if settled, err := g.answeredAlready(a); settled {
		return Answered{}, err
	}
	var view Pending
	b.mu.Lock()
	live, isLive := b.live[a.RequestID]
	if isLive {
		view = live.view // annotate writes it under b.mu
	}
	b.mu.Unlock()
	if !isLive {
		all, err := b.pending(ctx, "")
		if err != nil {
			return Answered{}, err
		}
		found := false
		for _, p := range all {
			if p.RequestID == a.RequestID {
				view, found = p, true
			}
		}
		if !found {
			return Answered{}, &RequestError{RequestID: a.RequestID, Why: "no such pending request (unknown, or answered already)"}
		}
	}
	if a.Answer == AnswerAlways && view.AlwaysRefused != "" {
		// Refused at the prompt, with the reason, rather than stored as a
		// grant that could never apply.
		return Answered{}, &RequestError{RequestID: a.RequestID, Why: "always is not offered here: " + view.AlwaysRefused}
	}
	if before != nil {
		if err := before(ctx, view, a); err != nil {
			return Answered{}, err
		}
	}
	if a.Answer == AnswerAlways && len(view.Reasons) > 0 && (!isLive || !live.direct) {
		if err := g.grant(ctx, view, a); err != nil {
			return Answered{}, err
		}
	}
	ans := Approval{Approved: a.Answer != AnswerDeny, Always: a.Answer == AnswerAlways, Note: a.Note, Via: a.Via}
	if isLive {
		ok, err := b.resolve(ctx, a.RequestID, ans)
		if ok || err != nil {
			return Answered{Ask: view}, err
		}
		// It stopped waiting in between: a racing answer (the same one
		// is a no-op), or its own end (cancel, timeout) was recorded.
		if settled, err := g.answeredAlready(a); settled {
			return Answered{}, err
		}
		return Answered{}, &RequestError{RequestID: a.RequestID, Why: "the ask ended before the answer arrived"}
	}
	if err := g.answerRestored(ctx, view, a); err != nil {
		return Answered{}, err
	}
	return Answered{Restored: true, Ask: view}, nil
}

// answerOf is the ask transition a human's answer is.
var answerOf = map[string]ask.Transition{AnswerOnce: ask.AnswerOnce, AnswerAlways: ask.AnswerAlways, AnswerDeny: ask.AnswerDeny}

// answeredAlready asks the machine whether the request is decided
// (settled) and what that means for a: the same answer again is a no-op
// (nil), anything else is refused. One read of the machine: asking "decided?"
// and "which answer?" separately let a decision recorded in between turn a
// refused answer into a silent success.
func (g *Gate) answeredAlready(a AnswerArgs) (settled bool, err error) {
	got, ok := g.asks.Find(a.RequestID)
	if !ok || got.Answer() == "" {
		return false, nil
	}
	if got.Answer() == answerOf[a.Answer] {
		return true, nil
	}
	return true, &RequestError{RequestID: a.RequestID, Why: "already " + describe(got.Answer())}
}

// describe says how an ask left requested, for a refused answer.
func describe(on ask.Transition) string {
	for k, v := range answerOf {
		if v == on {
			return "answered " + k
		}
	}
	return "ended (" + string(on) + ")"
}

// answerRestored records the answer to an ask whose turn ended with the
// previous process.
func (g *Gate) answerRestored(ctx context.Context, v Pending, a AnswerArgs) error {
	var ev store.Event
	step := func(concluded string) []policy.Step {
		return append(append([]policy.Step(nil), v.Trace...), policy.Step{Step: "approval",
			Saw: "asked a human before a restart: " + reasonList(v.Reasons), Concluded: concluded})
	}
	on := ask.AnswerOnce
	switch a.Answer {
	case AnswerDeny:
		detail := "a human denied the call"
		if a.Note != "" {
			detail += ": " + a.Note
		}
		on = ask.AnswerDeny
		ev = store.PermissionDenied{Signature: v.Signature, Reason: policy.ReasonUserDenied, Detail: detail,
			By: store.DeniedByUser, Trace: step("deny (user-denied)"), Layer: policy.LayerHuman, LayerDetail: a.Via}
	case AnswerAlways:
		on = ask.AnswerAlways
		fallthrough
	default:
		ev = store.PermissionGranted{Signature: v.Signature, Source: "human:" + a.Answer, Trace: step("allow (human:" + a.Answer + ")"),
			Layer: policy.LayerHuman, LayerDetail: a.Via}
	}
	// The ask's life before the restart is in the log: fold it into the
	// machine, which then takes this answer once (a second, racing
	// answer finds it decided and is refused).
	if err := g.loadSession(ctx, v.SessionID); err != nil {
		return err
	}
	id := ask.ID{SessionID: v.SessionID, RequestID: v.RequestID, CallID: v.CallID, Tool: v.Tool}
	if _, err := g.asks.Step(ctx, id, on, ev); err != nil {
		if errors.Is(err, ask.ErrIllegal) {
			// A racing answer was recorded first: the same one is a
			// no-op, a different one is refused.
			if settled, err := g.answeredAlready(a); settled {
				return err
			}
			return &RequestError{RequestID: v.RequestID, Why: "already answered"}
		}
		return err
	}
	return nil
}

// askKinds are the kinds an ask's life is recorded in.
var askKinds = []store.Kind{store.KindPermissionRequested, store.KindPermissionGranted, store.KindPermissionDenied,
	store.KindToolInvocationStarted, store.KindToolInvocationCompleted, store.KindToolInvocationFailed}

// loadSession folds a session's recorded asks into the machine.
func (g *Gate) loadSession(ctx context.Context, sessionID string) error {
	evs, err := g.cfg.Store.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: askKinds})
	if err != nil {
		return err
	}
	g.asks.Load(evs)
	return nil
}

func (g *Gate) grant(ctx context.Context, v Pending, a AnswerArgs) error {
	st := g.cfg.Store
	ss, err := st.Session(ctx, v.SessionID)
	if err != nil {
		return err
	}
	n := store.NewGrant{WorkspaceID: ss.WorkspaceID, SessionID: ss.ID, Signature: v.Signature, Scope: a.Scope,
		Reasons: v.Reasons, RequestID: v.RequestID}
	if a.ExpiresInSec > 0 {
		n.ExpiresAt = g.cfg.Now().Add(time.Duration(a.ExpiresInSec) * time.Second)
	}
	_, err = st.AddGrant(ctx, n)
	return err
}

// Pending lists the asks waiting for a human ("" for every session),
// oldest first; after a restart they come back from the store.
func (g *Gate) Pending(ctx context.Context, sessionID string) ([]Pending, error) {
	if g.seat == nil {
		return []Pending{}, nil
	}
	return g.seat.pending(ctx, sessionID)
}

// Cancel denies every live ask of a session (the turn was stopped):
// recorded as cancel, with detail as the reason the model reads.
func (g *Gate) Cancel(sessionID, detail string) {
	b := g.seat
	if b == nil {
		return
	}
	b.mu.Lock()
	var ws []*waiter
	for _, a := range b.live {
		if a.view.SessionID == sessionID {
			ws = append(ws, a)
		}
	}
	b.mu.Unlock()
	for _, a := range ws {
		d := policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonUserDenied, Detail: detail,
			Signature: a.view.Signature, Layer: policy.LayerHuman, LayerDetail: "cancel",
			Trace: append(append([]policy.Step(nil), a.view.Trace...),
				policy.Step{Step: "approval", Saw: "asked: " + reasonList(a.view.Reasons), Concluded: "deny (" + detail + ")"})}
		_, _ = b.resolve(context.Background(), a.view.RequestID, Approval{Note: detail, Decided: &d, On: ask.Cancel})
	}
}

// Redecide runs the engine again on a session's live asks after an axis
// change (s is the session as it is now): a Deny resolves the ask as that
// denial, an Allow as that allow; an Ask keeps waiting.
func (g *Gate) Redecide(ctx context.Context, sessionID string, s policy.Session) {
	b := g.seat
	if b == nil {
		return
	}
	b.mu.Lock()
	var ws []*waiter
	for _, a := range b.live {
		if a.view.SessionID == sessionID && !a.direct {
			ws = append(ws, a)
		}
	}
	b.mu.Unlock()
	if s.Now.IsZero() {
		s.Now = g.cfg.Now()
	}
	for _, a := range ws {
		d := g.cfg.Decider.Decide(policy.Call{Tool: a.view.Tool, Effects: a.view.Effects}, s)
		// The re-decision is the outcome, as the engine gave it: what
		// decided (sandbox, freeze, a grant) and its remedy reach the
		// model and the log, never a made-up human answer.
		step := policy.Step{Step: "approval", Saw: "asked: " + reasonList(a.view.Reasons) + "; the session's policy changed while it waited",
			Concluded: "re-decided: " + string(d.Verdict)}
		d.Trace = append(append([]policy.Step(nil), d.Trace...), step)
		switch d.Verdict {
		case policy.VerdictDeny:
			d.Detail = "re-decided after a policy change while the call waited for a human: " + d.Detail
			_, _ = b.resolve(ctx, a.view.RequestID, Approval{Note: d.Detail, Decided: &d, On: ask.SupersedeDeny})
		case policy.VerdictAllow:
			_, _ = b.resolve(ctx, a.view.RequestID, Approval{Approved: true, Decided: &d, On: ask.SupersedeAllow})
		}
	}
}
