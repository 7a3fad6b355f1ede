package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
	askm "github.com/warden-dev/warden/backend/tools/ask"
)

// answer applies a human's answer. Repeating the same answer is a no-op;
// a different answer to an answered request, or an unknown id, is refused.
func (b *broker) answer(ctx context.Context, a AnswerArgs) error {
	switch a.Answer {
	case AnswerOnce, AnswerAlways, AnswerDeny:
	default:
		return fmt.Errorf("answer %q is not once, always or deny", a.Answer)
	}
	if a.Answer == AnswerAlways {
		if a.Scope == "" {
			a.Scope = policy.ScopeSession
		}
		if a.Scope != policy.ScopeSession && a.Scope != policy.ScopeWorkspace {
			return fmt.Errorf("scope %q is not session or workspace", a.Scope)
		}
	}
	if a.ExpiresInSec < 0 {
		return errors.New("expires_in_sec is negative")
	}
	if err := b.answeredAlready(a); err != nil || b.decided(a.RequestID) {
		return err
	}
	b.mu.Lock()
	live, isLive := b.live[a.RequestID]
	b.mu.Unlock()
	var view Approval
	if isLive {
		view = live.view
	} else {
		all, err := b.pending(ctx, "")
		if err != nil {
			return err
		}
		found := false
		for _, p := range all {
			if p.RequestID == a.RequestID {
				view, found = p, true
			}
		}
		if !found {
			return &RequestError{RequestID: a.RequestID, Why: "no such pending request (unknown, or answered already)"}
		}
	}
	if a.Answer == AnswerAlways && view.AlwaysRefused != "" {
		// Refused at the prompt, with the reason, rather than stored as a
		// grant that could never apply.
		return &RequestError{RequestID: a.RequestID, Why: "always is not offered here: " + view.AlwaysRefused}
	}
	if a.TrustServer != "" {
		if err := b.trust(ctx, view, a); err != nil {
			return err
		}
	}
	if a.Answer == AnswerAlways && len(view.Reasons) > 0 && (!isLive || !live.direct) {
		if err := b.grant(ctx, view, a); err != nil {
			return err
		}
	}
	ans := tools.Approval{Approved: a.Answer != AnswerDeny, Always: a.Answer == AnswerAlways, Note: a.Note}
	if isLive {
		ok, err := b.resolve(ctx, a.RequestID, ans)
		if ok || err != nil {
			return err
		}
		// It stopped waiting in between: a racing answer (the same one
		// is a no-op), or its own end (cancel, timeout) was recorded.
		if err := b.answeredAlready(a); err != nil || b.decided(a.RequestID) {
			return err
		}
		return &RequestError{RequestID: a.RequestID, Why: "the ask ended before the answer arrived"}
	}
	return b.answerRestored(ctx, view, a)
}

// answerOf is the ask transition a human's answer is.
var answerOf = map[string]askm.Transition{AnswerOnce: askm.AnswerOnce, AnswerAlways: askm.AnswerAlways, AnswerDeny: askm.AnswerDeny}

// answeredAlready asks the machine whether the request is decided: the
// same answer again is a no-op (nil), anything else is refused.
func (b *broker) answeredAlready(a AnswerArgs) error {
	got, ok := b.s.asks.Find(a.RequestID)
	if !ok || got.Answer() == "" {
		return nil
	}
	if got.Answer() == answerOf[a.Answer] {
		return nil
	}
	return &RequestError{RequestID: a.RequestID, Why: "already " + describe(got.Answer())}
}

// decided says whether the machine knows the request as decided.
func (b *broker) decided(requestID string) bool {
	got, ok := b.s.asks.Find(requestID)
	return ok && got.Answer() != ""
}

// describe says how an ask left requested, for a refused answer.
func describe(on askm.Transition) string {
	for k, v := range answerOf {
		if v == on {
			return "answered " + k
		}
	}
	return "ended (" + string(on) + ")"
}

// answerRestored records the answer to an ask whose turn ended with the
// previous process, then carries the interrupted turn on (resume.go).
func (b *broker) answerRestored(ctx context.Context, v Approval, a AnswerArgs) error {
	var ev store.Event
	step := func(concluded string) []policy.Step {
		return append(append([]policy.Step(nil), v.Trace...), policy.Step{Step: "approval",
			Saw: "asked a human before a restart: " + reasonList(v.Reasons), Concluded: concluded})
	}
	on := askm.AnswerOnce
	switch a.Answer {
	case AnswerDeny:
		detail := "a human denied the call"
		if a.Note != "" {
			detail += ": " + a.Note
		}
		on = askm.AnswerDeny
		ev = store.PermissionDenied{Signature: v.Signature, Reason: policy.ReasonUserDenied, Detail: detail,
			By: store.DeniedByUser, Trace: step("deny (user-denied)")}
	case AnswerAlways:
		on = askm.AnswerAlways
		fallthrough
	default:
		ev = store.PermissionGranted{Signature: v.Signature, Source: "human:" + a.Answer, Trace: step("allow (human:" + a.Answer + ")")}
	}
	// The ask's life before the restart is in the log: fold it into the
	// machine, which then takes this answer once (a second, racing
	// answer finds it decided and is refused).
	evs, err := b.s.st.Events(ctx, store.EventQuery{SessionID: v.SessionID, Kinds: askKinds})
	if err != nil {
		return err
	}
	b.s.asks.Load(evs)
	id := askm.ID{SessionID: v.SessionID, RequestID: v.RequestID, CallID: v.CallID, Tool: v.Tool}
	if _, err := b.s.asks.Step(ctx, id, on, ev); err != nil {
		if errors.Is(err, askm.ErrIllegal) {
			// A racing answer was recorded first: the same one is a
			// no-op, a different one is refused.
			if err := b.answeredAlready(a); err != nil || b.decided(a.RequestID) {
				return err
			}
			return &RequestError{RequestID: v.RequestID, Why: "already answered"}
		}
		return err
	}
	b.s.resumeRestored(ctx, v, a)
	return nil
}

// askKinds are the kinds an ask's life is recorded in.
var askKinds = []store.Kind{store.KindPermissionRequested, store.KindPermissionGranted, store.KindPermissionDenied,
	store.KindToolInvocationStarted, store.KindToolInvocationCompleted, store.KindToolInvocationFailed}

func (b *broker) grant(ctx context.Context, v Approval, a AnswerArgs) error {
	ss, err := b.s.st.Session(ctx, v.SessionID)
	if err != nil {
		return err
	}
	n := store.NewGrant{WorkspaceID: ss.WorkspaceID, SessionID: ss.ID, Signature: v.Signature, Scope: a.Scope,
		Reasons: v.Reasons, RequestID: v.RequestID}
	if a.ExpiresInSec > 0 {
		n.ExpiresAt = b.s.cfg.Now().Add(time.Duration(a.ExpiresInSec) * time.Second)
	}
	_, err = b.s.st.AddGrant(ctx, n)
	return err
}

func (b *broker) trust(ctx context.Context, v Approval, a AnswerArgs) error {
	if v.Mcp == nil {
		return errors.New("trust_server: this request is not an MCP tool call")
	}
	if a.TrustServer != "session" && a.TrustServer != "persistent" {
		return fmt.Errorf("trust_server %q is not session or persistent", a.TrustServer)
	}
	if b.s.cfg.TrustMcp == nil {
		return errors.New("trust_server: no MCP servers are configured in this process")
	}
	return b.s.cfg.TrustMcp(ctx, v.SessionID, v.Mcp.Server, a.TrustServer == "persistent")
}
