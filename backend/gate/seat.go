package gate

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Pending is an ask waiting for a human, as a window shows it.
type Pending struct {
	RequestID string          `json:"request_id"`
	SessionID string          `json:"session_id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Risk      policy.Risk     `json:"risk"`
	Reasons   []policy.Reason `json:"reasons"`
	Signature string          `json:"signature"`
	// AlwaysRefused says why "always" is not offered (a protected path is
	// approved one write at a time); an "always" answer is then refused.
	AlwaysRefused string          `json:"always_refused,omitempty"`
	Effects       []policy.Effect `json:"effects"`
	Trace         []policy.Step   `json:"trace"`
	Preview       string          `json:"preview,omitempty"`
	// Mcp is what the human needs to judge an MCP tool; the front end's
	// service fills it (the gate knows no MCP servers).
	Mcp       *McpInfo `json:"mcp,omitempty"`
	CreatedAt int64    `json:"created_at"`
	// Answers are what the answerers said before the ask reached a human
	// (each passed it on, and why); Notes what the human should know of
	// the session's answerers. Live asks only.
	Answers []AnswerNote `json:"answers,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
	// Live is false for an ask restored after a restart: its turn is gone,
	// so an answer is recorded (and "always" remembered) but nothing runs
	// until the service resumes it.
	Live bool `json:"live"`
}

// McpInfo is the MCP part of an approval. Description, OldDescription and
// Schema are server data, escaped for display: show them as text.
type McpInfo struct {
	Server string `json:"server"`
	Tool   string `json:"tool,omitempty"`
	// Change says why the tool is not trusted (mcp.ToolReview.Change):
	// server | config | new | changed; "" when it is.
	Change          string `json:"change,omitempty" ts:"'server' | 'config' | 'new' | 'changed'"`
	Description     string `json:"description,omitempty"`
	OldDescription  string `json:"old_description,omitempty"` // as trusted, when Change is "changed"
	Schema          string `json:"schema,omitempty"`          // the input schema, indented JSON
	DescriptionDiff string `json:"description_diff,omitempty"`
}

// waiter is a call parked until a human answers.
type waiter struct {
	view   Pending
	ch     chan Approval // buffered 1: the one recorded resolution
	direct bool          // a tool's own ask (present_plan, Env.Ask): never re-decided

	// mu is held across recording a resolution and handing it over, so
	// the waiter, once it stops waiting (closed), never misses one that
	// was recorded.
	mu     sync.Mutex
	closed bool
}

// seat is the human's place at the gate: the asks waiting for an answer
// from a window, the TUI, `warden serve` or a remote link. Asks are
// persisted as PermissionRequested events, so Pending shows them after a
// restart; the seat adds the live waiters of this process. Whether an ask
// is answered is the ask machine's to say: the seat records every
// resolution through it, so there is no second account.
type seat struct {
	g *Gate

	mu   sync.Mutex
	live map[string]*waiter // request id → waiter, registered by the recorder
	// notes are what the human must read with an ask, known before it is
	// recorded (expect), so the ask is never listed without them.
	notes map[string][]string
}

func newSeat(g *Gate) *seat {
	return &seat{g: g, live: map[string]*waiter{}, notes: map[string][]string{}}
}

// expect keeps the notes an ask about to be recorded is listed with.
func (b *seat) expect(requestID string, notes []string) {
	b.mu.Lock()
	b.notes[requestID] = append([]string(nil), notes...)
	b.mu.Unlock()
}

// register makes an ask live before its PermissionRequested is stored, so
// an answer that reads the store and arrives before the gate starts
// waiting still reaches it (the channel holds it).
func (b *seat) register(sessionID string, ev store.PermissionRequested) {
	a := &waiter{ch: make(chan Approval, 1), direct: ev.Direct, view: Pending{RequestID: ev.RequestID,
		SessionID: sessionID, CallID: ev.CallID, Tool: ev.Tool, Args: ev.Args, Risk: ev.Risk, Reasons: ev.Reasons,
		Signature: ev.Signature, AlwaysRefused: ev.AlwaysRefused, Effects: ev.Effects, Trace: ev.Trace, Preview: ev.Preview,
		CreatedAt: b.g.cfg.Now().UnixMilli(), Live: true}}
	b.mu.Lock()
	if n, ok := b.notes[ev.RequestID]; ok {
		a.view.Notes = n
		delete(b.notes, ev.RequestID)
	}
	b.live[ev.RequestID] = a
	b.mu.Unlock()
}

// annotate adds what the answerers said to a live ask's view before the
// human is asked.
func (b *seat) annotate(requestID string, answers []AnswerNote, notes []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if a, ok := b.live[requestID]; ok {
		a.view.Answers = append([]AnswerNote(nil), answers...)
		a.view.Notes = append([]string(nil), notes...)
	}
}

// unregister undoes register when the request could not be stored.
func (b *seat) unregister(ev store.PermissionRequested) {
	b.mu.Lock()
	delete(b.live, ev.RequestID)
	delete(b.notes, ev.RequestID)
	b.mu.Unlock()
}

// Approve parks the call until Answer, a re-decision, a cancel or ctx's
// end.
func (b *seat) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	b.mu.Lock()
	a, ok := b.live[req.RequestID]
	b.mu.Unlock()
	if !ok || a.view.SessionID != req.SessionID {
		return Approval{}, errors.New("the request was not recorded")
	}
	return b.wait(ctx, a)
}

func (b *seat) wait(ctx context.Context, a *waiter) (Approval, error) {
	id := a.view.RequestID
	if len(a.ch) == 0 { // an answer may have come before the gate waited
		b.g.publish(AskOpened{Pending: a.view})
	}
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
		return Approval{}, ctx.Err()
	}
}

// resolve records an answer to a live ask through the ask machine and
// hands the outcome to its waiting call; false (and nothing recorded) if
// the ask is not, or no longer, waiting. The caller holds no lock.
func (b *seat) resolve(ctx context.Context, id string, ans Approval) (bool, error) {
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
	final, on, ev, err := Resolve(d, ans)
	if err != nil {
		return false, err
	}
	id2 := ask.ID{SessionID: v.SessionID, RequestID: v.RequestID, CallID: v.CallID, Tool: v.Tool}
	if _, err := b.g.asks.Step(context.WithoutCancel(ctx), id2, on, ev); err != nil {
		if errors.Is(err, ask.ErrIllegal) {
			return false, nil // decided another way first
		}
		return false, err
	}
	// Buffered, the only send; the waiter (or the answerers' loop) takes
	// it and drops the request, so one that starts waiting late finds it.
	a.ch <- Approval{Decided: &final, On: on, Recorded: true}
	a.closed = true
	return true, nil
}

// decideLive records an answerer's outcome for a live ask through the
// seat, so a human answering in the same instant is arbitrated by the
// machine: whichever was recorded first is the outcome, and it is returned.
func (b *seat) decideLive(ctx context.Context, requestID string, ans Approval) (Approval, error) {
	b.mu.Lock()
	a, ok := b.live[requestID]
	b.mu.Unlock()
	if !ok {
		return Approval{}, errors.New("the request was not recorded")
	}
	if _, err := b.resolve(ctx, requestID, ans); err != nil {
		return Approval{}, err
	}
	select {
	case got := <-a.ch:
		return got, nil
	default:
		return Approval{}, errors.New("the ask ended without an answer")
	}
}

// drop forgets a request once its ask is decided, whoever waited for it.
func (b *seat) drop(requestID string) {
	b.mu.Lock()
	delete(b.live, requestID)
	delete(b.notes, requestID)
	b.mu.Unlock()
}

// pending lists the asks waiting for a human: live ones with their
// preview, and those restored from the store after a restart.
func (b *seat) pending(ctx context.Context, sessionID string) ([]Pending, error) {
	evs, err := b.g.cfg.Store.PendingRequests(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := []Pending{}
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
		out = append(out, Pending{RequestID: pr.RequestID, SessionID: e.SessionID, CallID: pr.CallID, Tool: pr.Tool,
			Args: pr.Args, Risk: pr.Risk, Reasons: pr.Reasons, Signature: pr.Signature, AlwaysRefused: restoredAlwaysRefused(pr),
			Effects: pr.Effects, Trace: pr.Trace, Preview: pr.Preview, CreatedAt: e.Time.UnixMilli()})
	}
	return out, nil
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
