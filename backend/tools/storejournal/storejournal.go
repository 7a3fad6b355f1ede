// Package storejournal records the gate's events as the store's typed
// events (PermissionRequested/Granted/Denied, ToolInvocationStarted/
// Completed/Failed, NetworkConnection), so `warden audit` and the UI read one log. A denial's
// "by" comes from its reason: sandbox, freeze, user, or no-approver for the
// fail-closed rest.
package storejournal

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// Journal records gate events in the store.
type Journal struct{ st Appender }

// Appender is the part of the store a Journal needs; *store.Store has it.
type Appender interface {
	Append(ctx context.Context, sessionID string, expectedVersion int64, events ...store.Event) (int64, error)
}

// New returns a journal appending to st.
func New(st Appender) *Journal { return &Journal{st: st} }

// Record appends the events, in order, in one transaction.
func (j *Journal) Record(ctx context.Context, sessionID string, evs ...tools.Event) error {
	out := make([]store.Event, 0, len(evs))
	for _, e := range evs {
		if se := Event(e); se != nil {
			out = append(out, se)
		}
	}
	if len(out) == 0 {
		return nil
	}
	_, err := j.st.Append(ctx, sessionID, store.AnyVersion, out...)
	return err
}

// Event is the store's typed event for a gate event.
func Event(e tools.Event) store.Event {
	var d policy.Decision
	if e.Decision != nil {
		d = *e.Decision
	}
	switch e.Type {
	case tools.EventPermissionRequested:
		return store.PermissionRequested{RequestID: e.RequestID, CallID: e.CallID, Tool: e.Tool, Args: e.Args, Risk: e.Risk,
			Reasons: d.Reasons, Signature: d.Signature, Effects: e.Effects, Trace: d.Trace}
	case tools.EventPermissionGranted:
		return store.PermissionGranted{RequestID: e.RequestID, CallID: e.CallID, Tool: e.Tool, Signature: d.Signature,
			Source: e.Source, Trace: d.Trace}
	case tools.EventPermissionDenied:
		return store.PermissionDenied{RequestID: e.RequestID, CallID: e.CallID, Tool: e.Tool, Signature: d.Signature,
			Reason: e.Reason, Detail: e.Detail, Remedy: d.Remedy, By: deniedBy(e.Reason), Trace: d.Trace}
	case tools.EventNetworkConnection:
		if e.Conn == nil {
			return nil
		}
		c := e.Conn
		return store.NetworkConnection{CallID: e.CallID, Host: c.Host, Port: c.Port, Addr: c.Addr, Proto: c.Proto,
			Allowed: c.Allowed, AllowedBy: c.By, Reason: c.Reason, Detail: c.Detail, Error: c.Error,
			BytesUp: c.BytesUp, BytesDown: c.BytesDown, DurationMs: c.Duration.Milliseconds()}
	case tools.EventToolInvocationStarted:
		return store.ToolInvocationStarted{CallID: e.CallID, Tool: e.Tool, Args: e.Args}
	case tools.EventToolInvocationFailed:
		msg := e.Error
		if msg == "" && e.Result != nil {
			msg = resultText(*e.Result)
		}
		return store.ToolInvocationFailed{CallID: e.CallID, Tool: e.Tool, Error: msg, DurationMs: e.Duration.Milliseconds()}
	default:
		c := store.ToolInvocationCompleted{CallID: e.CallID, Tool: e.Tool, DurationMs: e.Duration.Milliseconds()}
		if e.Result != nil {
			c.Result, _ = json.Marshal(e.Result)
			c.Output = resultText(*e.Result)
			var x struct {
				ExitCode *int `json:"exit_code"`
			}
			if json.Unmarshal(e.Result.Structured, &x) == nil {
				c.ExitCode = x.ExitCode
			}
		}
		return c
	}
}

func deniedBy(r policy.Reason) store.DeniedBy {
	switch r {
	case policy.ReasonSandboxRejected:
		return store.DeniedBySandbox
	case policy.ReasonPlanningFreeze:
		return store.DeniedByFreeze
	case policy.ReasonUserDenied:
		return store.DeniedByUser
	}
	return store.DeniedByNoApprover
}

func resultText(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}
