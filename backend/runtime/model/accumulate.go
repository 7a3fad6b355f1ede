package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Response is a finished model turn.
type Response struct {
	Message    Message    // RoleAssistant: text and tool calls
	Usage      Usage      // totals of this response
	StopReason StopReason // StopOther if the stream never said
}

// Accumulator folds a stream's events into a Response. The zero value is
// ready to use.
type Accumulator struct {
	text    strings.Builder
	open    map[int]*pendingCall
	done    []indexedCall
	usage   Usage
	stop    StopReason
	stopped bool
}

type pendingCall struct {
	id, name string
	args     strings.Builder
}

type indexedCall struct {
	index int
	call  ToolCall
}

// Add folds one event in. It fails on events that contradict each other
// (a delta for a call that never started, arguments that are not JSON).
func (a *Accumulator) Add(ev Event) error {
	switch ev.Type {
	case EventTextDelta:
		a.text.WriteString(ev.Text)
	case EventToolCallStart:
		if a.open == nil {
			a.open = map[int]*pendingCall{}
		}
		if _, dup := a.open[ev.Index]; dup {
			return fmt.Errorf("%w: tool call %d started twice", ErrProtocol, ev.Index)
		}
		a.open[ev.Index] = &pendingCall{id: ev.CallID, name: ev.Name}
	case EventToolCallDelta:
		p, ok := a.open[ev.Index]
		if !ok {
			return fmt.Errorf("%w: arguments for tool call %d that never started", ErrProtocol, ev.Index)
		}
		p.args.WriteString(ev.ArgsDelta)
	case EventToolCallDone:
		if ev.Call == nil {
			return fmt.Errorf("%w: tool call %d done without the call", ErrProtocol, ev.Index)
		}
		call := *ev.Call
		if len(call.Args) == 0 {
			if p, ok := a.open[ev.Index]; ok {
				call.Args = json.RawMessage(p.args.String())
			}
		}
		if len(call.Args) == 0 {
			call.Args = json.RawMessage("{}")
		}
		if !json.Valid(call.Args) {
			return fmt.Errorf("%w: tool call %s (%s): arguments are not valid JSON", ErrProtocol, call.ID, call.Name)
		}
		delete(a.open, ev.Index)
		a.done = append(a.done, indexedCall{index: ev.Index, call: call})
	case EventUsage:
		if ev.Usage != nil {
			a.usage = *ev.Usage
		}
	case EventStop:
		a.stop = ev.StopReason
		a.stopped = true
	default:
		return fmt.Errorf("%w: unknown event type %q", ErrProtocol, ev.Type)
	}
	return nil
}

// Response returns what has been accumulated so far. Calls that started but
// never finished are left out: their arguments may be cut short.
func (a *Accumulator) Response() Response {
	calls := make([]indexedCall, len(a.done))
	copy(calls, a.done)
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].index < calls[j].index })
	msg := Message{Role: RoleAssistant}
	if t := a.text.String(); t != "" {
		msg.Content = []Part{TextPart(t)}
	}
	for _, c := range calls {
		msg.ToolCalls = append(msg.ToolCalls, c.call)
	}
	stop := a.stop
	if !a.stopped {
		stop = StopOther
	}
	return Response{Message: msg, Usage: a.usage, StopReason: stop}
}

// Collect drains s into a Response, calling onEvent (if not nil) for each
// event first so a caller can show streaming text. It closes s.
func Collect(s Stream, onEvent func(Event)) (Response, error) {
	defer s.Close()
	var acc Accumulator
	for {
		ev, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return acc.Response(), nil
		}
		if err != nil {
			return acc.Response(), err
		}
		if onEvent != nil {
			onEvent(ev)
		}
		if err := acc.Add(ev); err != nil {
			return acc.Response(), err
		}
	}
}
