package runtime

import (
	"context"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
	"github.com/warden-dev/warden/backend/tools/storejournal"
)

// journal records the gate's events in the store (tools.Journal). It
// writes even after the turn's context ended: a cancelled ask must still
// get its denial, or it would stay pending forever.
type journal struct{ s *Service }

func (j journal) Record(ctx context.Context, sessionID string, evs ...tools.Event) error {
	ctx = context.WithoutCancel(ctx)
	out := make([]store.Event, 0, len(evs))
	var answered []string
	for _, ev := range evs {
		if ev.Type == tools.EventPermissionDenied && ev.Reason == policy.ReasonNoApprover && j.s.ctx.Err() != nil {
			// The service is shutting down, not a human going away: the
			// ask stays pending in the store and the next start shows it
			// again, as after a crash.
			continue
		}
		se, err := j.convert(ctx, sessionID, ev)
		if err != nil {
			return err
		}
		out = append(out, se)
		switch ev.Type {
		case tools.EventPermissionGranted, tools.EventPermissionDenied:
			answered = append(answered, ev.RequestID)
		}
	}
	if len(out) == 0 {
		return nil
	}
	for _, ev := range evs {
		if ev.Type == tools.EventPermissionRequested {
			j.s.br.register(sessionID, ev)
		}
	}
	if _, err := j.s.st.Append(ctx, sessionID, store.AnyVersion, out...); err != nil {
		for _, ev := range evs {
			if ev.Type == tools.EventPermissionRequested {
				j.s.br.unregister(sessionID, ev)
			}
		}
		return err
	}
	for _, id := range answered {
		if j.s.br.wasAsked(id) {
			j.s.hub.publish(Push{Type: PushApprovalResolved, RequestID: id, SessionID: sessionID})
			j.s.touch(sessionID)
		}
	}
	return nil
}

// convert is the shared gate→store mapping plus grant use counts. An
// answer the runtime gave on a human's behalf (cancel, re-decision) comes
// through the gate as the answer's whole Decision, so it needs nothing here.
func (j journal) convert(ctx context.Context, sessionID string, ev tools.Event) (store.Event, error) {
	switch se := storejournal.Event(ev).(type) {
	case store.PermissionGranted:
		j.countUse(ctx, sessionID, se.Source, se.Signature)
		return se, nil
	case nil:
		return nil, &unknownEventError{string(ev.Type)}
	default:
		return se, nil
	}
}

type unknownEventError struct{ t string }

func (e *unknownEventError) Error() string { return "runtime: unknown gate event " + e.t }

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
