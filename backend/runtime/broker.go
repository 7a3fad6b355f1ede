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
	ch      chan tools.Approval // buffered 1: the first resolution wins
	direct  bool                // a tool's own ask (present_plan, Env.Ask): never re-decided
	turnKey string              // the session whose turn owns it
}

// broker keeps the asks waiting for a human. Asks are persisted as
// PermissionRequested events, so PendingRequests shows them after a
// restart; the broker adds the live waiters of this process.
type broker struct {
	s *Service

	mu       sync.Mutex
	live     map[string]*ask   // request id → waiter, registered by the journal
	answered map[string]string // request id → answer given
	asked    map[string]bool   // request ids the gate asked about, until answered
}

func newBroker(s *Service) *broker {
	return &broker{s: s, live: map[string]*ask{}, answered: map[string]string{}, asked: map[string]bool{}}
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
	b.asked[ev.RequestID] = true
	b.mu.Unlock()
}

// unregister undoes register when the request could not be stored.
func (b *broker) unregister(sessionID string, ev store.PermissionRequested) {
	b.mu.Lock()
	delete(b.live, ev.RequestID)
	delete(b.asked, ev.RequestID)
	b.mu.Unlock()
}

// wasAsked reports (once) whether an answered request had been asked.
func (b *broker) wasAsked(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok := b.asked[id]
	delete(b.asked, id)
	return ok
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
		// A cancel may have resolved it in the same instant; prefer that.
		select {
		case ans := <-a.ch:
			return ans, nil
		default:
		}
		return tools.Approval{}, ctx.Err()
	}
}

// resolve hands an answer to a live ask; false if it is not (or no
// longer) live. The caller holds no lock.
func (b *broker) resolve(id string, ans tools.Approval, given string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.live[id]
	if !ok {
		return false
	}
	if _, done := b.answered[id]; done {
		return false
	}
	select {
	case a.ch <- ans:
	default:
		return false
	}
	b.answered[id] = given
	delete(b.live, id)
	return true
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
		if _, done := b.answered[pr.RequestID]; done {
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
		b.resolve(id, tools.Approval{Note: detail, Decided: &d, On: askm.Cancel}, AnswerDeny)
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
			b.resolve(a.view.RequestID, tools.Approval{Note: d.Detail, Decided: &d, On: askm.SupersedeDeny}, AnswerDeny)
		case policy.VerdictAllow:
			b.resolve(a.view.RequestID, tools.Approval{Approved: true, Decided: &d, On: askm.SupersedeAllow}, AnswerOnce)
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
