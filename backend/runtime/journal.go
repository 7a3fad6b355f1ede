package runtime

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
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
	if _, err := j.s.st.Append(ctx, sessionID, store.AnyVersion, out...); err != nil {
		return err
	}
	for _, ev := range evs {
		if ev.Type == tools.EventPermissionRequested {
			j.s.br.registered(sessionID, ev.CallID, ev.RequestID)
		}
	}
	for _, id := range answered {
		if j.s.br.wasAsked(id) {
			j.s.hub.publish(Push{Type: PushApprovalResolved, RequestID: id, SessionID: sessionID})
			j.s.touch(sessionID)
		}
	}
	return nil
}

func (j journal) convert(ctx context.Context, sessionID string, ev tools.Event) (store.Event, error) {
	var d policy.Decision
	if ev.Decision != nil {
		d = *ev.Decision
	}
	switch ev.Type {
	case tools.EventPermissionRequested:
		return store.PermissionRequested{RequestID: ev.RequestID, CallID: ev.CallID, Tool: ev.Tool, Args: ev.Args,
			Risk: ev.Risk, Reasons: d.Reasons, Signature: d.Signature, Effects: ev.Effects, Trace: d.Trace}, nil
	case tools.EventPermissionGranted:
		src := ev.Source
		if o := j.s.br.takeOverride(ev.RequestID); o != nil && o.source != "" {
			src = o.source
		}
		j.countUse(ctx, sessionID, src, d.Signature)
		return store.PermissionGranted{RequestID: ev.RequestID, CallID: ev.CallID, Tool: ev.Tool, Signature: d.Signature,
			Source: src, Trace: d.Trace}, nil
	case tools.EventPermissionDenied:
		pd := store.PermissionDenied{RequestID: ev.RequestID, CallID: ev.CallID, Tool: ev.Tool, Signature: d.Signature,
			Reason: ev.Reason, Detail: ev.Detail, Remedy: d.Remedy, By: deniedBy(ev.Reason), Trace: d.Trace}
		if o := j.s.br.takeOverride(ev.RequestID); o != nil && o.deny != nil {
			pd.Reason, pd.Detail, pd.Remedy, pd.By = o.deny.Reason, o.deny.Detail, o.deny.Remedy, o.deny.By
			if o.deny.Trace != nil {
				pd.Trace = o.deny.Trace
			}
		}
		return pd, nil
	case tools.EventToolInvocationStarted:
		return store.ToolInvocationStarted{CallID: ev.CallID, Tool: ev.Tool, Args: ev.Args}, nil
	case tools.EventToolInvocationCompleted, tools.EventToolInvocationFailed:
		var res tools.Result
		if ev.Result != nil {
			res = *ev.Result
		}
		if ev.Type == tools.EventToolInvocationFailed {
			msg := ev.Error
			if msg == "" {
				msg = resultText(res)
			}
			return store.ToolInvocationFailed{CallID: ev.CallID, Tool: ev.Tool, Error: msg, DurationMs: ev.Duration.Milliseconds()}, nil
		}
		raw, _ := json.Marshal(res)
		c := store.ToolInvocationCompleted{CallID: ev.CallID, Tool: ev.Tool, Result: raw, Output: resultText(res),
			DurationMs: ev.Duration.Milliseconds()}
		var ex struct {
			ExitCode *int `json:"exit_code"`
		}
		if len(res.Structured) > 0 && json.Unmarshal(res.Structured, &ex) == nil {
			c.ExitCode = ex.ExitCode
		}
		return c, nil
	}
	return nil, &unknownEventError{string(ev.Type)}
}

type unknownEventError struct{ t string }

func (e *unknownEventError) Error() string { return "runtime: unknown gate event " + e.t }

func deniedBy(r policy.Reason) store.DeniedBy {
	switch r {
	case policy.ReasonPlanningFreeze:
		return store.DeniedByFreeze
	case policy.ReasonNoApprover:
		return store.DeniedByNoApprover
	case policy.ReasonUserDenied:
		return store.DeniedByUser
	}
	return store.DeniedBySandbox
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
