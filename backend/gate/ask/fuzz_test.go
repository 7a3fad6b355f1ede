package ask

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

// FuzzParseTable: the parser never panics, and a table it accepts renders
// back into text it parses to the same rules.
func FuzzParseTable(f *testing.F) {
	f.Add(string(tableText))
	f.Add("new request requested permission_requested\n")
	f.Add("new request requested permission_requested\nnew request requested permission_requested\n")
	// A loop: refused (Paths would never end).
	f.Add("new request requested permission_requested\nrequested a allowed permission_granted\nallowed b requested permission_requested\n")
	f.Fuzz(func(t *testing.T, text string) {
		tb, err := ParseTable([]byte(text))
		if err != nil {
			return
		}
		var b strings.Builder
		for _, r := range tb.Rules() {
			fmt.Fprintf(&b, "%s %s %s %s\n", r.From, r.On, r.To, r.Records)
		}
		again, err := ParseTable([]byte(b.String()))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if fmt.Sprint(again.Rules()) != fmt.Sprint(tb.Rules()) {
			t.Fatalf("rules changed: %v vs %v", again.Rules(), tb.Rules())
		}
		for _, p := range tb.Paths() {
			s := New
			for _, on := range p {
				r, ok := tb.Next(s, on)
				if !ok {
					t.Fatalf("path %v is not legal at %s", p, on)
				}
				s = r.To
			}
			if !tb.Final(s) {
				t.Fatalf("path %v ends in %s, which is not final", p, s)
			}
		}
	})
}

// FuzzFold: any sequence of an ask's events folds without panicking, and
// every folded ask's path replays through the table to its state.
func FuzzFold(f *testing.F) {
	f.Add([]byte{0, 1, 4, 5})
	f.Add([]byte{1, 4, 6, 0x13, 0x20})
	f.Add([]byte{0, 2, 0x10, 0x11, 3, 7})
	vias := []string{"", "answer-once", "answer-always", "answer-deny", "time-out", "cancel", "supersede-allow",
		"supersede-deny", "allow", "deny", "stale", "fail", "interrupt", "bogus"}
	f.Fuzz(func(t *testing.T, b []byte) {
		var evs []store.StoredEvent
		for i, c := range b {
			req := fmt.Sprintf("r%d", c>>4&3)
			call := fmt.Sprintf("c%d", c>>6)
			via := vias[int(c)%len(vias)]
			var e store.Event
			switch c & 7 {
			case 0:
				e = store.PermissionRequested{RequestID: req, CallID: call, Tool: "t"}
			case 1:
				e = store.PermissionGranted{RequestID: req, CallID: call, Tool: "t", Source: "human:once", Via: via}
			case 2:
				e = store.PermissionDenied{RequestID: req, CallID: call, Tool: "t", By: store.DeniedByUser, Via: via}
			case 3:
				e = store.PermissionGranted{RequestID: req, CallID: call, Tool: "t", Source: "sandbox+policy"}
			case 4:
				e = store.ToolInvocationStarted{CallID: call, Tool: "t"}
			case 5:
				e = store.ToolInvocationCompleted{RequestID: req, CallID: call, Tool: "t"}
			case 6:
				e = store.ToolInvocationFailed{CallID: call, Tool: "t", Via: via}
			default:
				e = store.MessageAppended{Role: "user"}
			}
			evs = append(evs, store.StoredEvent{Seq: int64(i + 1), SessionID: "s", Event: e})
		}
		tb := DefaultTable()
		for _, a := range tb.Fold(evs).Asks {
			s := New
			for _, on := range a.Path {
				r, ok := tb.Next(s, on)
				if !ok {
					t.Fatalf("ask %s: path %v is not legal at %s", a.RequestID, a.Path, on)
				}
				s = r.To
			}
			if s != a.State {
				t.Fatalf("ask %s: path %v ends in %s, state %s", a.RequestID, a.Path, s, a.State)
			}
		}
	})
}

// memLog is an in-memory Log: the fuzzed part needs no SQLite.
type memLog struct{ evs []store.StoredEvent }

func (l *memLog) Append(_ context.Context, sessionID string, _ int64, evs ...store.Event) (int64, error) {
	for _, e := range evs {
		l.evs = append(l.evs, store.StoredEvent{Seq: int64(len(l.evs) + 1), SessionID: sessionID, Event: e})
	}
	return int64(len(l.evs)), nil
}

// FuzzMachineFold: any sequence of steps (legal or not) on a few asks of a
// few calls; the machine refuses what the table does not list and records
// the rest; folding what it recorded gives back every ask where the
// machine has it, with nothing skipped. A restart reads the same state.
func FuzzMachineFold(f *testing.F) {
	f.Add([]byte{0x00, 0x03, 0x09, 0x0d})
	f.Add([]byte{0x10, 0x11, 0x04, 0x13, 0x0a, 0x1a, 0x0e})
	f.Add([]byte{0x21, 0x22, 0x2b, 0x2c, 0x20, 0x25})
	ons := []Transition{Request, Allow, Deny, AnswerOnce, AnswerAlways, AnswerDeny, TimeOut, Cancel,
		SupersedeAllow, SupersedeDeny, Start, Stale, Finish, Fail, Interrupt, "bogus"}
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		log := &memLog{}
		m := NewMachine(log)
		tb := DefaultTable()
		touched := map[string]bool{}
		for _, c := range b {
			on := ons[int(c&0x0f)]
			req := fmt.Sprintf("r%d", c>>4&3)
			id := ID{SessionID: "s", RequestID: req, CallID: fmt.Sprintf("c%d", c>>6), Tool: "t"}
			before, known := m.Get("s", req)
			if !known {
				before.State = New
			}
			kind := tb.kinds[on]
			_, err := m.Step(ctx, id, on, sample(on, kind))
			_, legal := tb.Next(before.State, on)
			if legal != (err == nil) {
				t.Fatalf("%s from %s: legal %v, err %v", on, before.State, legal, err)
			}
			if err == nil {
				touched[req] = true
			}
		}
		f := tb.Fold(log.evs)
		if len(f.Skipped) > 0 {
			t.Fatalf("the machine's own log folds with skips: %v", f.Skipped)
		}
		if len(f.Asks) != len(touched) {
			t.Fatalf("fold has %d asks, the machine %d", len(f.Asks), len(touched))
		}
		for _, a := range f.Asks {
			live, ok := m.Get("s", a.RequestID)
			if !ok || live.State != a.State || fmt.Sprint(live.Path) != fmt.Sprint(a.Path) || live.CallID != a.CallID {
				t.Fatalf("ask %s: folded %s %v, machine %s %v", a.RequestID, a.State, a.Path, live.State, live.Path)
			}
		}
	})
}
