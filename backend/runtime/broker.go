package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
	askm "github.com/warden-dev/warden/backend/tools/ask"
)

// ErrUnknownRequest is wrapped by every refusal of an answer whose request
// is unknown, already answered differently, or from another session.
var ErrUnknownRequest = errors.New("unknown or stale permission request")

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

// AnswerArgs is a human's answer to one ask.
type AnswerArgs struct {
	RequestID    string            `json:"request_id"`
	Answer       string            `json:"answer" ts:"'once' | 'always' | 'deny'"`
	Scope        policy.GrantScope `json:"scope,omitempty"`
	ExpiresInSec int64             `json:"expires_in_sec,omitempty"`
	Note         string            `json:"note,omitempty"`
	TrustServer  string            `json:"trust_server,omitempty" ts:"'session' | 'persistent'"` // session | persistent
}

// ask is a call parked until a human answers.
type ask struct {
	view    Approval
	ch      chan tools.Approval // buffered 1: the one recorded resolution
	direct  bool                // a tool's own ask (present_plan, Env.Ask): never re-decided
	turnKey string              // the session whose turn owns it

	// mu is held across recording a resolution and handing it over, so
	// the waiter, once it stops waiting (closed), never misses one that
	// was recorded.
	mu     sync.Mutex
	closed bool
}

// broker keeps the asks waiting for a human. Asks are persisted as
// PermissionRequested events, so PendingRequests shows them after a
// restart; the broker adds the live waiters of this process. Whether an
// ask is answered is the ask machine's to say (Service.asks): the broker
// records every resolution through it, so there is no second account.
type broker struct {
	s *Service

	mu   sync.Mutex
	live map[string]*ask // request id → waiter, registered by the journal
}

func newBroker(s *Service) *broker {
	return &broker{s: s, live: map[string]*ask{}}
}

// register makes an ask live before its PermissionRequested is stored, so
// an answer that reads the store and arrives before the gate starts
// waiting still reaches it (the channel holds it).
func (b *broker) register(sessionID string, ev store.PermissionRequested) {
	a := &ask{ch: make(chan tools.Approval, 1), direct: ev.Direct, turnKey: sessionID, view: Approval{RequestID: ev.RequestID,
		SessionID: sessionID, CallID: ev.CallID, Tool: ev.Tool, Args: ev.Args, Risk: ev.Risk, Reasons: ev.Reasons,
		Signature: ev.Signature, AlwaysRefused: ev.AlwaysRefused, Effects: ev.Effects, Trace: ev.Trace, Preview: ev.Preview,
		Mcp: b.s.mcpInfo(sessionID, ev.Effects), CreatedAt: b.s.cfg.Now().UnixMilli(), Live: true}}
	b.mu.Lock()
	b.live[ev.RequestID] = a
	b.mu.Unlock()
}

// unregister undoes register when the request could not be stored.
func (b *broker) unregister(sessionID string, ev store.PermissionRequested) {
	b.mu.Lock()
	delete(b.live, ev.RequestID)
	b.mu.Unlock()
}

// Approve implements tools.Approver: it parks the call until Answer,
// re-decision, cancel or ctx's end.
func (b *broker) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Approval, error) {
	b.mu.Lock()
	a, ok := b.live[req.RequestID]
	b.mu.Unlock()
	if !ok || a.view.SessionID != req.SessionID {
		return tools.Approval{}, errors.New("the request was not recorded")
	}
	return b.wait(ctx, a)
}

func (b *broker) wait(ctx context.Context, a *ask) (tools.Approval, error) {
	id := a.view.RequestID
	v := a.view
	if len(a.ch) == 0 { // an answer may have come before the gate waited
		b.s.hub.publish(Push{Type: PushApproval, Approval: &v})
	}
	b.s.touch(a.view.SessionID)
	defer func() {
		b.mu.Lock()
		delete(b.live, id)
		b.mu.Unlock()
	}()
	select {
	case ans := <-a.ch:
		return ans, nil
	case <-ctx.Done():
		// No resolution is recorded once closed; one recorded before
		// (a cancel in the same instant) is already in the channel.
		a.mu.Lock()
		a.closed = true
		a.mu.Unlock()
		select {
		case ans := <-a.ch:
			return ans, nil
		default:
		}
		return tools.Approval{}, ctx.Err()
	}
}

// resolve records an answer to a live ask through the ask machine and
// hands the outcome to its waiting gate; false (and nothing recorded) if
// the ask is not, or no longer, waiting. The caller holds no lock.
func (b *broker) resolve(ctx context.Context, id string, ans tools.Approval) (bool, error) {
	b.mu.Lock()
	a, ok := b.live[id]
	b.mu.Unlock()
	if !ok {
		return false, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false, nil
	}
	v := a.view
	d := policy.Decision{Verdict: policy.VerdictAsk, Reasons: v.Reasons, Signature: v.Signature, Trace: v.Trace,
		AlwaysRefused: v.AlwaysRefused}
	final, on, ev, err := tools.Resolve(d, ans)
	if err != nil {
		return false, err
	}
	id2 := askm.ID{SessionID: v.SessionID, RequestID: v.RequestID, CallID: v.CallID, Tool: v.Tool}
	if _, err := b.s.asks.Step(context.WithoutCancel(ctx), id2, on, ev); err != nil {
		if errors.Is(err, askm.ErrIllegal) {
			return false, nil // decided another way first
		}
		return false, err
	}
	a.ch <- tools.Approval{Decided: &final, On: on, Recorded: true} // buffered; the only send
	a.closed = true
	b.mu.Lock()
	delete(b.live, id)
	b.mu.Unlock()
	return true, nil
}

// pending lists the asks waiting for a human: live ones with their preview,
// and those restored from the store after a restart.
func (b *broker) pending(ctx context.Context, sessionID string) ([]Approval, error) {
	evs, err := b.s.st.PendingRequests(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := []Approval{}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range evs {
		pr, ok := e.Event.(store.PermissionRequested)
		if !ok {
			continue
		}
		if a, ok := b.live[pr.RequestID]; ok {
			out = append(out, a.view)
			continue
		}
		out = append(out, Approval{RequestID: pr.RequestID, SessionID: e.SessionID, CallID: pr.CallID, Tool: pr.Tool,
			Args: pr.Args, Risk: pr.Risk, Reasons: pr.Reasons, Signature: pr.Signature, AlwaysRefused: restoredAlwaysRefused(pr),
			Effects: pr.Effects, Trace: pr.Trace, Preview: pr.Preview, Mcp: b.s.mcpInfo(e.SessionID, pr.Effects), CreatedAt: e.Time.UnixMilli()})
	}
	return out, nil
}

// denyAll denies every live ask of a session (cancel).
func (b *broker) denyAll(sessionID, detail string) {
	b.mu.Lock()
	var ids []string
	for id, a := range b.live {
		if a.turnKey == sessionID {
			ids = append(ids, id)
		}
	}
	b.mu.Unlock()
	for _, id := range ids {
		b.mu.Lock()
		a := b.live[id]
		b.mu.Unlock()
		if a == nil {
			continue
		}
		d := policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonUserDenied, Detail: detail,
			Signature: a.view.Signature, Trace: append(append([]policy.Step(nil), a.view.Trace...),
				policy.Step{Step: "approval", Saw: "asked: " + reasonList(a.view.Reasons), Concluded: "deny (" + detail + ")"})}
		_, _ = b.resolve(context.Background(), id, tools.Approval{Note: detail, Decided: &d, On: askm.Cancel})
	}
}

// redecide runs the engine again on a session's live asks after an axis
// change: a Deny resolves the ask as that denial, an Allow as that allow.
func (b *broker) redecide(ctx context.Context, sessionID string) {
	b.mu.Lock()
	var asks []*ask
	for _, a := range b.live {
		if a.view.SessionID == sessionID && !a.direct {
			asks = append(asks, a)
		}
	}
	b.mu.Unlock()
	if len(asks) == 0 {
		return
	}
	ps, _, err := b.s.policySession(ctx, sessionID)
	if err != nil {
		return
	}
	for _, a := range asks {
		d := b.s.cfg.Engine.Decide(policy.Call{Tool: a.view.Tool, Effects: a.view.Effects}, ps)
		// The re-decision is the outcome, as the engine gave it: what
		// decided (sandbox, freeze, a grant) and its remedy reach the
		// model and the log, never a made-up human answer.
		step := policy.Step{Step: "approval", Saw: "asked: " + reasonList(a.view.Reasons) + "; the session's policy changed while it waited",
			Concluded: "re-decided: " + string(d.Verdict)}
		d.Trace = append(append([]policy.Step(nil), d.Trace...), step)
		switch d.Verdict {
		case policy.VerdictDeny:
			d.Detail = "re-decided after a policy change while the call waited for a human: " + d.Detail
			_, _ = b.resolve(ctx, a.view.RequestID, tools.Approval{Note: d.Detail, Decided: &d, On: askm.SupersedeDeny})
		case policy.VerdictAllow:
			_, _ = b.resolve(ctx, a.view.RequestID, tools.Approval{Approved: true, Decided: &d, On: askm.SupersedeAllow})
		}
	}
}

func reasonList(rs []policy.Reason) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return strings.Join(out, ", ")
}

// restoredAlwaysRefused is AlwaysRefused for an ask recorded before a
// restart: as recorded, or for logs older than that field, what the engine
// says (it refuses "always" exactly when a protected path asks).
func restoredAlwaysRefused(pr store.PermissionRequested) string {
	if pr.AlwaysRefused != "" {
		return pr.AlwaysRefused
	}
	for _, r := range pr.Reasons {
		if r == policy.ReasonProtectedPath {
			return "a protected path is approved one write at a time: a standing grant would never apply to it"
		}
	}
	return ""
}
