package runtime

import (
	"context"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
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
			if x.Reason == policy.ReasonNoApprover && j.s.ctx.Err() != nil {
				// The service is shutting down, not a human going away:
				// the ask stays pending in the store and the next start
				// shows it again, as after a crash.
				continue
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
