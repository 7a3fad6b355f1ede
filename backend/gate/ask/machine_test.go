package ask

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

var allTransitions = []Transition{Request, Allow, Deny, AnswerOnce, AnswerAlways, AnswerDeny, TimeOut, Cancel,
	SupersedeAllow, SupersedeDeny, AnswererAllow, AnswererDeny, Start, Stale, Finish, Fail, Interrupt}

// TestTableFile checks the data file against the package: every state is
// reached, every transition the code names is listed, and what the doc
// promises is there.
func TestTableFile(t *testing.T) {
	tb := DefaultTable()
	reached := map[State]bool{New: true}
	listed := map[Transition]bool{}
	for _, r := range tb.Rules() {
		reached[r.To] = true
		listed[r.On] = true
	}
	for s := range states {
		if !reached[s] {
			t.Errorf("state %s is never entered", s)
		}
	}
	for _, on := range allTransitions {
		if !listed[on] {
			t.Errorf("transition %s is not in testdata/transitions.txt", on)
		}
	}
	for _, s := range []State{Denied, Finished, Interrupted} {
		if !tb.Final(s) {
			t.Errorf("%s should be final", s)
		}
	}
}

// TestEveryPath drives every path of the table on a real store: each step
// records exactly one event, every transition the table does not list from
// the state reached is refused and records nothing, and the log folds back
// into the same ask.
func TestEveryPath(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	tb := DefaultTable()
	for n, path := range tb.Paths() {
		t.Run(pathName(path), func(t *testing.T) {
			ss, err := st.CreateSession(ctx, store.NewSession{Workspace: "/ask"})
			if err != nil {
				t.Fatal(err)
			}
			m := NewMachine(st)
			id := ID{SessionID: ss.ID, RequestID: fmt.Sprintf("r%d", n), CallID: "c1", Tool: "shell.exec"}
			state := New
			for i, on := range path {
				refuseAllBut(t, m, id, state, tb)
				a, err := step(ctx, m, id, on)
				if err != nil {
					t.Fatalf("step %d %s: %v", i, on, err)
				}
				r, _ := tb.Next(state, on)
				if a.State != r.To {
					t.Fatalf("%s from %s: state %s, want %s", on, state, a.State, r.To)
				}
				state = a.State
				evs := askEvents(t, st, ss.ID)
				if len(evs) != i+1 {
					t.Fatalf("after %d steps the log has %d events", i+1, len(evs))
				}
				if k := store.KindOf(evs[i].Event); k != r.Records {
					t.Fatalf("%s recorded %s, want %s", on, k, r.Records)
				}
			}
			refuseAllBut(t, m, id, state, tb)
			f := Fold(askEvents(t, st, ss.ID))
			if len(f.Skipped) > 0 || len(f.Asks) != 1 {
				t.Fatalf("fold: %d asks, skipped %v", len(f.Asks), f.Skipped)
			}
			got, _ := m.Get(ss.ID, id.RequestID)
			if !reflect.DeepEqual(f.Asks[0].Path, path) || f.Asks[0].State != state || f.Asks[0].ID != got.ID {
				t.Fatalf("folded %+v, machine %+v, path %v", f.Asks[0], got, path)
			}
			// A machine restored from the fold refuses what the live one did.
			refuseAllBut(t, NewMachine(st, f.Asks...), id, state, tb)
		})
	}
}

// refuseAllBut tries every transition the table does not list from state
// and checks each is refused with nothing recorded.
func refuseAllBut(t *testing.T, m *Machine, id ID, state State, tb *Table) {
	t.Helper()
	ctx := context.Background()
	st := m.log.(*store.Store)
	before := len(askEvents(t, st, id.SessionID))
	for _, on := range allTransitions {
		if _, legal := tb.Next(state, on); legal {
			continue
		}
		_, err := step(ctx, m, id, on)
		if !errors.Is(err, ErrIllegal) {
			t.Fatalf("%s from %s: %v, want refused", on, state, err)
		}
	}
	if after := len(askEvents(t, st, id.SessionID)); after != before {
		t.Fatalf("refused transitions recorded %d events", after-before)
	}
}

func pathName(p []Transition) string {
	s := make([]string, len(p))
	for i, on := range p {
		s[i] = string(on)
	}
	return strings.Join(s, ",")
}

// TestRacingAnswers answers one ask from many goroutines at once, with
// every answer kind: exactly one is recorded.
func TestRacingAnswers(t *testing.T) {
	ctx := context.Background()
	st, sid := openStore(t)
	for round := range 5 {
		m := NewMachine(st)
		id := ID{SessionID: sid, RequestID: fmt.Sprintf("race-%d", round), CallID: "c", Tool: "shell.exec"}
		if _, err := step(ctx, m, id, Request); err != nil {
			t.Fatal(err)
		}
		answers := []Transition{AnswerOnce, AnswerAlways, AnswerDeny, TimeOut, Cancel, SupersedeAllow, SupersedeDeny}
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for i := range 21 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := step(ctx, m, id, answers[i%len(answers)])
				if err == nil {
					mu.Lock()
					won++
					mu.Unlock()
				} else if !errors.Is(err, ErrIllegal) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("%d answers won", won)
		}
		decided := 0
		for _, e := range askEvents(t, st, sid) {
			switch x := e.Event.(type) {
			case store.PermissionGranted:
				decided += count(x.RequestID == id.RequestID)
			case store.PermissionDenied:
				decided += count(x.RequestID == id.RequestID)
			}
		}
		if decided != 1 {
			t.Fatalf("%d answers recorded", decided)
		}
	}
}

func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestStepRefusesTheWrongKind: the event must be the one the rule records.
func TestStepRefusesTheWrongKind(t *testing.T) {
	st, sid := openStore(t)
	m := NewMachine(st)
	_, err := m.Step(context.Background(), ID{SessionID: sid, RequestID: "r", CallID: "c", Tool: "x"}, Request,
		store.PermissionGranted{Source: "human:once"})
	if err == nil || len(askEvents(t, st, sid)) != 0 {
		t.Fatalf("err %v; want refused with nothing recorded", err)
	}
	if _, ok := m.Get(sid, "r"); ok {
		t.Fatal("a refused first step left an ask behind")
	}
}

// TestFoldLogsWithoutVia reads logs written before Via and request ids on
// invocation events: the fields and the state say the transition.
func TestFoldLogsWithoutVia(t *testing.T) {
	req := store.PermissionRequested{RequestID: "r1", CallID: "c1", Tool: "shell.exec"}
	cases := []struct {
		name string
		evs  []store.Event
		want string // state:path
	}{
		{"answered once and ran", []store.Event{req,
			store.PermissionGranted{RequestID: "r1", CallID: "c1", Tool: "shell.exec", Source: "human:once"},
			store.ToolInvocationStarted{CallID: "c1", Tool: "shell.exec"},
			store.ToolInvocationCompleted{CallID: "c1", Tool: "shell.exec"}}, "finished:request,answer-once,start,finish"},
		{"always", []store.Event{req, store.PermissionGranted{RequestID: "r1", CallID: "c1", Tool: "shell.exec", Source: "human:always"}},
			"allowed:request,answer-always"},
		{"re-decided allow", []store.Event{req, store.PermissionGranted{RequestID: "r1", CallID: "c1", Tool: "shell.exec", Source: "sandbox+policy"}},
			"allowed:request,supersede-allow"},
		{"no answer", []store.Event{req, store.PermissionDenied{RequestID: "r1", CallID: "c1", Tool: "shell.exec", By: store.DeniedByNoApprover, Reason: "no-approver"}},
			"denied:request,time-out"},
		{"re-decided deny", []store.Event{req, store.PermissionDenied{RequestID: "r1", CallID: "c1", Tool: "shell.exec", By: store.DeniedBySandbox, Reason: "sandbox-rejected"}},
			"denied:request,supersede-deny"},
		{"allowed, then stale", []store.Event{store.PermissionGranted{RequestID: "r1", CallID: "c1", Tool: "fs.write", Source: "sandbox+policy"},
			store.ToolInvocationFailed{CallID: "c1", Tool: "fs.write", Error: "paths changed"}}, "finished:allow,stale"},
		{"a tool's own question inside its running call", []store.Event{
			store.PermissionGranted{RequestID: "r0", CallID: "c1", Tool: "present_plan", Source: "sandbox+policy"},
			store.ToolInvocationStarted{CallID: "c1", Tool: "present_plan"},
			store.PermissionRequested{RequestID: "r1", CallID: "c1", Tool: "present_plan"},
			store.PermissionGranted{RequestID: "r1", CallID: "c1", Tool: "present_plan", Source: "human:once"},
			store.ToolInvocationCompleted{CallID: "c1", Tool: "present_plan"}}, "finished:allow,start,finish | allowed:request,answer-once"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var evs []store.StoredEvent
			for i, e := range tc.evs {
				evs = append(evs, store.StoredEvent{Seq: int64(i + 1), SessionID: "s", Event: e})
			}
			f := Fold(evs)
			var got []string
			for _, a := range f.Asks {
				got = append(got, string(a.State)+":"+pathName(a.Path))
			}
			if g := strings.Join(got, " | "); g != tc.want || len(f.Skipped) > 0 {
				t.Fatalf("got %s (skipped %v), want %s", g, f.Skipped, tc.want)
			}
		})
	}
}

// TestParseTableRefuses lists the tables the parser must refuse.
func TestParseTableRefuses(t *testing.T) {
	cases := map[string]string{
		"empty":            "# nothing\n",
		"three fields":     "new request requested\n",
		"unknown state":    "new request asked permission_requested\n",
		"enters new":       "requested undo new permission_requested\n",
		"unknown kind":     "new request requested session_created\n",
		"duplicate pair":   "new request requested permission_requested\nnew request denied permission_requested\n",
		"two kinds":        "new allow allowed permission_granted\nrequested allow allowed permission_denied\n",
		"bad name":         "new Request requested permission_requested\n",
		"trailing hyphen":  "new request- requested permission_requested\n",
		"not a store kind": "new request requested nonsense\n",
		"a loop":           "new request requested permission_requested\nrequested a allowed permission_granted\nallowed b requested permission_requested\n",
		"a self loop":      "new request requested permission_requested\nrequested again requested permission_requested\n",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseTable([]byte(text)); err == nil {
				t.Fatal("parsed")
			}
		})
	}
	if !slices.Equal(DefaultTable().Paths()[0], []Transition{Request, AnswerOnce, Start, Finish}) {
		t.Fatalf("first path %v", DefaultTable().Paths()[0])
	}
}
