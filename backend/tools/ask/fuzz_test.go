package ask

import (
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
		_ = tb.Paths()
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
