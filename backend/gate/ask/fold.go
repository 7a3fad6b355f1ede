package ask

import (
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/store"
)

// Folded is the asks a log holds, and the events that did not fit.
type Folded struct {
	Asks []Ask // in the order they began
	// Skipped says why an event of an ask's kinds was not applied (a
	// transition the table does not list from where its ask was).
	Skipped []string
}

// Fold rebuilds the asks from log events (any sessions, in seq order)
// with the default table.
func Fold(evs []store.StoredEvent) Folded { return DefaultTable().Fold(evs) }

// Fold rebuilds the asks from log events with t. Events of other kinds
// are ignored. Invocation events name their request; those of logs
// written before that are matched to the latest ask of their call from
// which the transition is legal.
func (t *Table) Fold(evs []store.StoredEvent) Folded {
	var f Folded
	idx := map[key]int{}
	for _, se := range evs {
		id, ok := identity(se)
		if !ok {
			continue
		}
		k := key{id.SessionID, id.RequestID}
		i, known := idx[k]
		if id.RequestID == "" { // an old invocation event: find its ask
			i, known = -1, false
			for j := len(f.Asks) - 1; j >= 0; j-- {
				a := f.Asks[j]
				if a.SessionID == id.SessionID && a.CallID == id.CallID {
					if _, legal := t.Next(a.State, transitionOf(se.Event, a.State)); legal {
						i, known = j, true
						break
					}
				}
			}
			if !known {
				f.Skipped = append(f.Skipped, fmt.Sprintf("seq %d: %s of call %q follows no ask", se.Seq, store.KindOf(se.Event), id.CallID))
				continue
			}
		}
		var a Ask
		if known {
			a = f.Asks[i]
		} else {
			a = Ask{ID: id, State: New}
		}
		on := transitionOf(se.Event, a.State)
		r, legal := t.Next(a.State, on)
		if !legal || r.Records != store.KindOf(se.Event) {
			f.Skipped = append(f.Skipped, fmt.Sprintf("seq %d: %s (%s) does not leave %s", se.Seq, store.KindOf(se.Event), on, a.State))
			continue
		}
		a.move(r, se.Event)
		if known {
			f.Asks[i] = a
		} else {
			idx[k] = len(f.Asks)
			f.Asks = append(f.Asks, a)
		}
	}
	return f
}

// identity is the ask an event belongs to; false for other kinds.
func identity(se store.StoredEvent) (ID, bool) {
	id := ID{SessionID: se.SessionID}
	switch x := se.Event.(type) {
	case store.PermissionRequested:
		id.RequestID, id.CallID, id.Tool = x.RequestID, x.CallID, x.Tool
	case store.PermissionGranted:
		id.RequestID, id.CallID, id.Tool = x.RequestID, x.CallID, x.Tool
	case store.PermissionDenied:
		id.RequestID, id.CallID, id.Tool = x.RequestID, x.CallID, x.Tool
	case store.ToolInvocationStarted:
		id.RequestID, id.CallID, id.Tool = x.RequestID, x.CallID, x.Tool
	case store.ToolInvocationCompleted:
		id.RequestID, id.CallID, id.Tool = x.RequestID, x.CallID, x.Tool
	case store.ToolInvocationFailed:
		id.RequestID, id.CallID, id.Tool = x.RequestID, x.CallID, x.Tool
	default:
		return id, false
	}
	return id, true
}

// transitionOf is the transition ev records: its Via, or for logs written
// before Via, what its fields and the ask's state say.
func transitionOf(ev store.Event, from State) Transition {
	switch x := ev.(type) {
	case store.PermissionRequested:
		return Request
	case store.PermissionGranted:
		switch {
		case x.Via != "":
			return Transition(x.Via)
		case from == New:
			return Allow
		case x.Source == "human:always":
			return AnswerAlways
		case strings.HasPrefix(x.Source, "human:"):
			return AnswerOnce
		}
		return SupersedeAllow
	case store.PermissionDenied:
		switch {
		case x.Via != "":
			return Transition(x.Via)
		case from == New:
			return Deny
		case x.By == store.DeniedByUser:
			return AnswerDeny
		case x.By == store.DeniedByNoApprover:
			return TimeOut
		}
		return SupersedeDeny
	case store.ToolInvocationStarted:
		return Start
	case store.ToolInvocationCompleted:
		return Finish
	case store.ToolInvocationFailed:
		switch {
		case x.Via != "":
			return Transition(x.Via)
		case from == Allowed:
			return Stale
		}
		return Fail
	}
	return ""
}
