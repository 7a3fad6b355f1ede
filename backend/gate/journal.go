package gate

import (
	"context"
	"errors"
	"strings"

	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/store"
)

// recorder is the log the gate's ask machine records to: the journal the
// gate was given. It writes even after the turn's context ended (a
// cancelled ask must still get its denial, or it would stay pending
// forever). Around the append it keeps the seat's live asks and the
// listeners in step with the log.
type recorder struct{ g *Gate }

func (r recorder) Append(ctx context.Context, sessionID string, ver int64, evs ...store.Event) (int64, error) {
	g := r.g
	ctx = context.WithoutCancel(ctx)
	out := make([]store.Event, 0, len(evs))
	var answered []string
	var asked []store.PermissionRequested
	for _, ev := range evs {
		switch x := ev.(type) {
		case store.PermissionDenied:
			if x.Via == string(ask.TimeOut) && g.closing.Load() {
				if !g.cfg.Headless {
					// The process is shutting down, not a human going
					// away: the ask stays requested (a pending approval
					// survives a restart) and the next start shows it
					// again. Refusing the record keeps the machine there
					// too, so log and machine agree.
					return 0, errLeftPending
				}
				// Nobody was attached to answer: the wait's end is the
				// time-out it would have been, recorded before the
				// process ends.
				x.Detail += "; Warden shut down while the call waited"
				ev = x
			}
			if wasAsked(x.Via) {
				answered = append(answered, x.RequestID)
			}
		case store.PermissionGranted:
			r.countUse(ctx, sessionID, x.Source, x.Signature)
			if wasAsked(x.Via) {
				answered = append(answered, x.RequestID)
			}
		case store.PermissionRequested:
			asked = append(asked, x)
		}
		out = append(out, ev)
	}
	if len(out) == 0 {
		return 0, nil
	}
	// Live before stored, so an answer that reads the store and arrives
	// before the gate waits still reaches it.
	live := g.seat != nil && !g.cfg.Headless
	if live {
		for _, pr := range asked {
			g.seat.register(sessionID, pr)
		}
	}
	v, err := g.log.Append(ctx, sessionID, ver, out...)
	if err != nil {
		if live {
			for _, pr := range asked {
				g.seat.unregister(pr)
			}
		}
		return v, err
	}
	for _, id := range answered {
		g.publish(AskClosed{SessionID: sessionID, RequestID: id})
	}
	return v, nil
}

// wasAsked says whether a decision recorded via this transition ends an
// ask a human was shown (it leaves requested), so the windows drop it.
func wasAsked(via string) bool {
	_, ok := ask.DefaultTable().Next(ask.Requested, ask.Transition(via))
	return ok
}

// errLeftPending refuses to record a no-approver denial at shutdown while
// a human is attached: the ask is left pending for the next start.
var errLeftPending = errors.New("the process is shutting down: the ask stays pending for the next start")

// countUse bumps the use count of the grant that allowed a call.
func (r recorder) countUse(ctx context.Context, sessionID, source, sig string) {
	st := r.g.cfg.Store
	if st == nil || (!strings.HasPrefix(source, "session-grant:") && !strings.HasPrefix(source, "workspace-rule:")) {
		return
	}
	ss, err := st.Session(ctx, sessionID)
	if err != nil {
		return
	}
	recs, err := st.Grants(ctx, store.GrantFilter{WorkspaceID: ss.WorkspaceID, SessionID: sessionID})
	if err != nil {
		return
	}
	for _, gr := range recs {
		if gr.Signature == sig && gr.Active(r.g.cfg.Now()) {
			_ = st.IncrementGrantUse(ctx, gr.ID)
			return
		}
	}
}

// interruptedByRestart is what an interrupted call's end says, in the
// stream, the audit and the model's next request.
const interruptedByRestart = "interrupted by a restart: Warden stopped while the call ran, so it did not finish; " +
	"it was not run again (check what it changed before calling it again)"

// InterruptUnfinished ends every ask the last process left running (a call
// started and never ended because the process died): each moves through
// the machine's interrupt transition, recorded as its
// ToolInvocationFailed{via: interrupt}. Nothing is run again. A front end
// that runs beside another process's sessions (`warden tool` beside a
// window) must not call it.
func (g *Gate) InterruptUnfinished(ctx context.Context) error {
	st := g.cfg.Store
	if st == nil {
		return nil
	}
	started, err := st.UnfinishedInvocations(ctx)
	if err != nil {
		return err
	}
	sessions := map[string]bool{}
	for _, e := range started {
		sessions[e.SessionID] = true
	}
	for id := range sessions {
		evs, err := st.Events(ctx, store.EventQuery{SessionID: id, Kinds: askKinds})
		if err != nil {
			return err
		}
		g.asks.Load(evs)
		for _, a := range ask.Fold(evs).Asks {
			if a.State != ask.Running || a.RequestID == "" {
				continue
			}
			if _, err := g.asks.Step(ctx, a.ID, ask.Interrupt, store.ToolInvocationFailed{Error: interruptedByRestart}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Interrupted says a recorded failure is a call interrupted by a restart.
func Interrupted(f store.ToolInvocationFailed) bool { return f.Via == string(ask.Interrupt) }
