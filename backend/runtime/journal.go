package runtime

import (
	"context"
	"errors"
	"strings"

	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
	askm "github.com/warden-dev/warden/backend/tools/ask"
)

// journal is the log the service's ask machine and gates record to (the
// store's own event types). It writes even after the turn's context ended:
// a cancelled ask must still get its denial, or it would stay pending
// forever. Around the append it keeps the broker's live asks and the
// pushes in step with the log.
type journal struct{ s *Service }

func (j journal) Append(ctx context.Context, sessionID string, ver int64, evs ...store.Event) (int64, error) {
	ctx = context.WithoutCancel(ctx)
	out := make([]store.Event, 0, len(evs))
	var answered []string
	var asked []store.PermissionRequested
	for _, ev := range evs {
		switch x := ev.(type) {
		case store.PermissionDenied:
			if x.Via == string(askm.TimeOut) && j.s.ctx.Err() != nil {
				if !j.s.cfg.Headless {
					// The service is shutting down, not a human going
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
			j.countUse(ctx, sessionID, x.Source, x.Signature)
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
	for _, pr := range asked {
		j.s.br.register(sessionID, pr)
	}
	v, err := j.s.st.Append(ctx, sessionID, ver, out...)
	if err != nil {
		for _, pr := range asked {
			j.s.br.unregister(sessionID, pr)
		}
		return v, err
	}
	for _, id := range answered {
		j.s.hub.publish(Push{Type: PushApprovalResolved, RequestID: id, SessionID: sessionID})
		j.s.touch(sessionID)
	}
	return v, nil
}

// wasAsked says whether a decision recorded via this transition ends an
// ask a human was shown (it leaves requested), so the windows drop it.
func wasAsked(via string) bool {
	_, ok := askm.DefaultTable().Next(askm.Requested, askm.Transition(via))
	return ok
}

// errLeftPending refuses to record a no-approver denial at shutdown while
// a human is attached: the ask is left pending for the next start.
var errLeftPending = errors.New("the service is shutting down: the ask stays pending for the next start")

// countUse bumps the use count of the grant that allowed a call.
func (j journal) countUse(ctx context.Context, sessionID, source, sig string) {
	if !strings.HasPrefix(source, "session-grant:") && !strings.HasPrefix(source, "workspace-rule:") {
		return
	}
	ss, err := j.s.st.Session(ctx, sessionID)
	if err != nil {
		return
	}
	recs, err := j.s.st.Grants(ctx, store.GrantFilter{WorkspaceID: ss.WorkspaceID, SessionID: sessionID})
	if err != nil {
		return
	}
	for _, g := range recs {
		if g.Signature == sig && g.Active(j.s.cfg.Now()) {
			_ = j.s.st.IncrementGrantUse(ctx, g.ID)
			return
		}
	}
}

func resultText(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}
