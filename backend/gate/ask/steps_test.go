package ask

import (
	"context"
	"slices"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

// countingLog counts the appends (transactions, so fsyncs) the machine makes.
type countingLog struct {
	*store.Store
	appends int
}

func (c *countingLog) Append(ctx context.Context, sessionID string, v int64, evs ...store.Event) (int64, error) {
	c.appends++
	return c.Store.Append(ctx, sessionID, v, evs...)
}

// TestStepsOneTransaction: moves made back to back (a call allowed unasked:
// its grant and its start) are checked first and recorded in one append;
// a refused pair anywhere records nothing and leaves no ask behind.
func TestStepsOneTransaction(t *testing.T) {
	for _, tc := range []struct {
		name    string
		moves   []Transition
		ok      bool
		state   State
		appends int
	}{
		{"grant and start", []Transition{Allow, Start}, true, Running, 1},
		{"grant, start and finish", []Transition{Allow, Start, Finish}, true, Finished, 1},
		{"one move is Step", []Transition{Allow}, true, Allowed, 1},
		{"second pair refused", []Transition{Allow, Finish}, false, New, 0},
		{"first pair refused", []Transition{Start, Finish}, false, New, 0},
		{"refused after a legal run", []Transition{Allow, Start, Allow}, false, New, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, sid := openStore(t)
			log := &countingLog{Store: st}
			m := NewMachine(log)
			var moves []Move
			for _, on := range tc.moves {
				i := slices.IndexFunc(m.table.Rules(), func(r Rule) bool { return r.On == on })
				if i < 0 {
					t.Fatalf("no rule for %s", on)
				}
				moves = append(moves, Move{On: on, Event: sample(on, m.table.Rules()[i].Records)})
			}
			id := ID{SessionID: sid, RequestID: "r", CallID: "c", Tool: "shell.exec"}
			a, err := m.Steps(context.Background(), id, moves...)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			evs := askEvents(t, st, sid)
			if log.appends != tc.appends {
				t.Fatalf("%d appends, want %d", log.appends, tc.appends)
			}
			if !tc.ok {
				if len(evs) != 0 {
					t.Fatalf("a refused batch recorded %d events", len(evs))
				}
				if _, ok := m.Get(sid, "r"); ok {
					t.Fatal("a refused first batch left an ask behind")
				}
				return
			}
			if len(evs) != len(tc.moves) || a.State != tc.state || len(a.Path) != len(tc.moves) {
				t.Fatalf("state %s path %v, %d events; want %s after %v", a.State, a.Path, len(evs), tc.state, tc.moves)
			}
			// The log folds back to the same ask (a restart sees what ran).
			for i, e := range evs {
				if got := store.KindOf(e.Event); got != store.KindOf(moves[i].Event) {
					t.Fatalf("event %d is %s, want %s", i, got, store.KindOf(moves[i].Event))
				}
			}
		})
	}
}
