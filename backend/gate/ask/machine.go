package ask

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Log is where the machine records; *store.Store is one.
type Log interface {
	Append(ctx context.Context, sessionID string, expectedVersion int64, events ...store.Event) (int64, error)
}

// ID names one ask: its request within a session, and the call it decides.
type ID struct {
	SessionID string
	RequestID string
	CallID    string
	Tool      string
}

type key struct{ session, request string }

// Ask is one ask as the machine knows it.
type Ask struct {
	ID
	State State
	// Path is every transition taken, in order.
	Path      []Transition
	Signature string
	// Question is what the human was asked; nil when it was decided
	// without asking.
	Question *store.PermissionRequested
	// Source is what allowed it; Reason what denied it.
	Source string
	Reason policy.Reason
}

// ErrIllegal is wrapped by every refused transition.
var ErrIllegal = errors.New("illegal transition")

// IllegalError refuses a transition the table does not list from the
// ask's state; nothing was recorded.
type IllegalError struct {
	ID    ID
	State State
	On    Transition
}

func (e *IllegalError) Error() string {
	return fmt.Sprintf("ask %s: %s does not leave %s", e.ID.RequestID, e.On, e.State)
}

func (e *IllegalError) Unwrap() error { return ErrIllegal }

// Machine holds a process's asks and moves them, recording each move
// first.
type Machine struct {
	log   Log
	table *Table

	mu   sync.Mutex
	asks map[key]*entry
}

type entry struct {
	mu sync.Mutex // held across the append: one move at a time per ask
	a  Ask
}

// NewMachine returns a machine on the default table recording to log,
// knowing the asks restored (Fold) from an earlier process.
func NewMachine(log Log, restored ...Ask) *Machine {
	return NewMachineWith(DefaultTable(), log, restored...)
}

// NewMachineWith is NewMachine on table t.
func NewMachineWith(t *Table, log Log, restored ...Ask) *Machine {
	m := &Machine{log: log, table: t, asks: map[key]*entry{}}
	for _, a := range restored {
		m.asks[key{a.SessionID, a.RequestID}] = &entry{a: a}
	}
	return m
}

// Get returns the ask, if the machine knows it.
func (m *Machine) Get(sessionID, requestID string) (Ask, bool) {
	m.mu.Lock()
	e, ok := m.asks[key{sessionID, requestID}]
	m.mu.Unlock()
	if !ok {
		return Ask{}, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.a.clone(), e.a.State != New
}

// Find returns the ask of a request id in any session (request ids are
// unique), if the machine knows it: for an answer that names only the
// request.
func (m *Machine) Find(requestID string) (Ask, bool) {
	m.mu.Lock()
	var e *entry
	for k, x := range m.asks {
		if k.request == requestID {
			e = x
			break
		}
	}
	m.mu.Unlock()
	if e == nil {
		return Ask{}, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.a.clone(), e.a.State != New
}

// Answer is the transition that took the ask out of requested (an answer,
// a time-out, a cancel, a supersede); "" while it waits, or when it was
// decided without asking.
func (a Ask) Answer() Transition {
	if len(a.Path) < 2 || a.Path[0] != Request {
		return ""
	}
	return a.Path[1]
}

// ByCall lists a session's asks of one call, oldest first is not
// guaranteed; callers filter by state.
func (m *Machine) ByCall(sessionID, callID string) []Ask {
	m.mu.Lock()
	var es []*entry
	for k, e := range m.asks {
		if k.session == sessionID {
			es = append(es, e)
		}
	}
	m.mu.Unlock()
	var out []Ask
	for _, e := range es {
		e.mu.Lock()
		if e.a.CallID == callID && e.a.State != New {
			out = append(out, e.a.clone())
		}
		e.mu.Unlock()
	}
	return out
}

// Step moves the ask id by on: it checks the pair against the table,
// stamps ev (which must be of the kind the rule records) with the ask's
// identity and the transition, appends it to the log and only then moves.
// A refused pair (IllegalError) or a failed append records nothing and
// leaves the ask where it was. For a new ask, id names it; afterwards its
// recorded CallID and Tool stand.
func (m *Machine) Step(ctx context.Context, id ID, on Transition, ev store.Event) (Ask, error) {
	return m.Steps(ctx, id, Move{On: on, Event: ev})
}

// Move is one transition of Steps with the event it records.
type Move struct {
	On    Transition
	Event store.Event
}

// Steps is Step for moves made back to back (a call's grant and its start):
// every pair is checked first, their events are appended in one
// transaction (one fsync), and only then does the ask move through them.
// Nothing is recorded if any pair is refused.
func (m *Machine) Steps(ctx context.Context, id ID, moves ...Move) (Ask, error) {
	if id.SessionID == "" || id.RequestID == "" {
		return Ask{}, errors.New("ask: step needs a session and a request id")
	}
	if len(moves) == 0 {
		return Ask{}, errors.New("ask: no step")
	}
	k := key{id.SessionID, id.RequestID}
	m.mu.Lock()
	e, ok := m.asks[k]
	if !ok {
		e = &entry{a: Ask{ID: id, State: New}}
		m.asks[k] = e
	}
	m.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.a.State != New {
		id = e.a.ID
	} else {
		// A first step that records nothing leaves nothing behind.
		defer func() {
			if e.a.State == New {
				m.mu.Lock()
				if m.asks[k] == e {
					delete(m.asks, k)
				}
				m.mu.Unlock()
			}
		}()
	}
	rules := make([]Rule, len(moves))
	evs := make([]store.Event, len(moves))
	state := e.a.State
	for n, mv := range moves {
		r, ok := m.table.Next(state, mv.On)
		if !ok {
			return e.a.clone(), &IllegalError{ID: id, State: state, On: mv.On}
		}
		if got := store.KindOf(mv.Event); got != r.Records {
			return e.a.clone(), fmt.Errorf("ask %s: %s records %s, not %q", id.RequestID, mv.On, r.Records, got)
		}
		rules[n], evs[n], state = r, stamp(mv.Event, id, mv.On), r.To
	}
	if _, err := m.log.Append(ctx, id.SessionID, store.AnyVersion, evs...); err != nil {
		return e.a.clone(), fmt.Errorf("ask %s: record %s: %w", id.RequestID, moves[len(moves)-1].On, err)
	}
	e.a.ID = id
	for n := range moves {
		e.a.move(rules[n], evs[n])
	}
	out := e.a.clone()
	if m.table.Final(e.a.State) {
		// A finished ask is kept only to refuse what comes late; its
		// question (arguments, preview) is in the log.
		e.a.Question = nil
	}
	return out, nil
}

func (a *Ask) move(r Rule, ev store.Event) {
	a.State = r.To
	a.Path = append(a.Path, r.On)
	switch x := ev.(type) {
	case store.PermissionRequested:
		a.Question, a.Signature = &x, x.Signature
	case store.PermissionGranted:
		a.Source, a.Signature = x.Source, x.Signature
	case store.PermissionDenied:
		a.Reason, a.Signature = x.Reason, x.Signature
	}
}

func (a Ask) clone() Ask {
	a.Path = append([]Transition(nil), a.Path...)
	return a
}

// stamp sets the ask's identity and the transition on ev.
func stamp(ev store.Event, id ID, on Transition) store.Event {
	switch x := ev.(type) {
	case store.PermissionRequested:
		x.RequestID, x.CallID, x.Tool = id.RequestID, id.CallID, id.Tool
		return x
	case store.PermissionGranted:
		x.RequestID, x.CallID, x.Tool, x.Via = id.RequestID, id.CallID, id.Tool, string(on)
		return x
	case store.PermissionDenied:
		x.RequestID, x.CallID, x.Tool, x.Via = id.RequestID, id.CallID, id.Tool, string(on)
		return x
	case store.ToolInvocationStarted:
		x.RequestID, x.CallID, x.Tool = id.RequestID, id.CallID, id.Tool
		return x
	case store.ToolInvocationCompleted:
		x.RequestID, x.CallID, x.Tool = id.RequestID, id.CallID, id.Tool
		return x
	case store.ToolInvocationFailed:
		x.RequestID, x.CallID, x.Tool, x.Via = id.RequestID, id.CallID, id.Tool, string(on)
		return x
	}
	return ev
}

// Restore adds asks recorded by an earlier process (Fold) that the machine
// does not know yet; an ask it knows keeps its state.
func (m *Machine) Restore(asks ...Ask) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range asks {
		k := key{a.SessionID, a.RequestID}
		if _, ok := m.asks[k]; ok {
			continue
		}
		m.asks[k] = &entry{a: a.clone()}
	}
}

// Load folds a session's log into the machine: asks recorded by an
// earlier process become known where they were left.
func (m *Machine) Load(evs []store.StoredEvent) { m.Restore(m.table.Fold(evs).Asks...) }
