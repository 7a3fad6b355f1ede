package ask

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/store"
)

// State is where an ask is in its life.
type State string

// The states (see the package doc).
const (
	New         State = "new"
	Requested   State = "requested"
	Allowed     State = "allowed"
	Denied      State = "denied"
	Running     State = "running"
	Finished    State = "finished"
	Interrupted State = "interrupted"
)

var states = map[State]bool{New: true, Requested: true, Allowed: true, Denied: true, Running: true, Finished: true, Interrupted: true}

// Transition is a move between states; its name is recorded as the event's
// Via.
type Transition string

// The transitions (see the package doc).
const (
	Request        Transition = "request"
	Allow          Transition = "allow"
	Deny           Transition = "deny"
	AnswerOnce     Transition = "answer-once"
	AnswerAlways   Transition = "answer-always"
	AnswerDeny     Transition = "answer-deny"
	TimeOut        Transition = "time-out"
	Cancel         Transition = "cancel"
	SupersedeAllow Transition = "supersede-allow"
	SupersedeDeny  Transition = "supersede-deny"
	AnswererAllow  Transition = "answerer-allow"
	AnswererDeny   Transition = "answerer-deny"
	Start          Transition = "start"
	Stale          Transition = "stale"
	Finish         Transition = "finish"
	Fail           Transition = "fail"
	Interrupt      Transition = "interrupt"
)

// recordable are the store kinds an ask's transition may record: the ones
// Fold reads back.
var recordable = map[store.Kind]bool{
	store.KindPermissionRequested: true, store.KindPermissionGranted: true, store.KindPermissionDenied: true,
	store.KindToolInvocationStarted: true, store.KindToolInvocationCompleted: true, store.KindToolInvocationFailed: true,
}

// Rule is one legal transition.
type Rule struct {
	From    State
	On      Transition
	To      State
	Records store.Kind
}

type ruleKey struct {
	from State
	on   Transition
}

// Table is the set of legal transitions.
type Table struct {
	rules []Rule
	next  map[ruleKey]Rule
	kinds map[Transition]store.Kind // each transition records one kind
}

//go:embed testdata/transitions.txt
var tableText []byte

var defaultTable = func() *Table {
	t, err := ParseTable(tableText)
	if err != nil {
		panic("ask: testdata/transitions.txt: " + err.Error())
	}
	return t
}()

// DefaultTable is the table in testdata/transitions.txt.
func DefaultTable() *Table { return defaultTable }

// ParseTable reads a table: one rule per line, "from on to records";
// blank lines and lines starting with # are skipped. Every state must be
// one of this package's, a transition records the same kind wherever it
// appears, nothing enters "new", a (from, on) pair appears once, and the
// transitions do not loop (every ask ends).
func ParseTable(b []byte) (*Table, error) {
	t := &Table{next: map[ruleKey]Rule{}, kinds: map[Transition]store.Kind{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			return nil, fmt.Errorf("line %d: want \"from on to records\", got %d fields", n, len(f))
		}
		r := Rule{From: State(f[0]), On: Transition(f[1]), To: State(f[2]), Records: store.Kind(f[3])}
		switch {
		case !states[r.From]:
			return nil, fmt.Errorf("line %d: unknown state %q", n, r.From)
		case !states[r.To]:
			return nil, fmt.Errorf("line %d: unknown state %q", n, r.To)
		case r.To == New:
			return nil, fmt.Errorf("line %d: nothing enters %q", n, New)
		case !recordable[r.Records]:
			return nil, fmt.Errorf("line %d: %q is not a kind an ask records", n, r.Records)
		case !validName(string(r.On)):
			return nil, fmt.Errorf("line %d: transition %q is not lower-case words joined by -", n, r.On)
		}
		k := ruleKey{r.From, r.On}
		if _, dup := t.next[k]; dup {
			return nil, fmt.Errorf("line %d: %s --%s--> listed twice", n, r.From, r.On)
		}
		if kind, ok := t.kinds[r.On]; ok && kind != r.Records {
			return nil, fmt.Errorf("line %d: %s records %s here and %s elsewhere", n, r.On, r.Records, kind)
		}
		t.next[k], t.kinds[r.On] = r, r.Records
		t.rules = append(t.rules, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t.rules) == 0 {
		return nil, fmt.Errorf("no transitions")
	}
	if c := t.cycle(); c != nil {
		// Every ask must end: a loop would let one live forever (and
		// make its paths endless).
		return nil, fmt.Errorf("the transitions loop: %v", c)
	}
	return t, nil
}

// cycle is a loop of states the rules allow, if any.
func (t *Table) cycle() []State {
	const (
		unseen = iota
		open
		done
	)
	mark := map[State]int{}
	var stack []State
	var found []State
	var visit func(s State) bool
	visit = func(s State) bool {
		mark[s] = open
		stack = append(stack, s)
		for _, r := range t.rules {
			if r.From != s {
				continue
			}
			switch mark[r.To] {
			case open:
				i := len(stack) - 1
				for stack[i] != r.To {
					i--
				}
				found = append(append([]State(nil), stack[i:]...), r.To)
				return true
			case unseen:
				if visit(r.To) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		mark[s] = done
		return false
	}
	for _, r := range t.rules {
		if mark[r.From] == unseen && visit(r.From) {
			return found
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return true
}

// Rules lists the table's transitions in file order.
func (t *Table) Rules() []Rule { return append([]Rule(nil), t.rules...) }

// Next is the rule for leaving from by on, if it is legal.
func (t *Table) Next(from State, on Transition) (Rule, bool) {
	r, ok := t.next[ruleKey{from, on}]
	return r, ok
}

// Final reports whether nothing leaves s.
func (t *Table) Final(s State) bool {
	for _, r := range t.rules {
		if r.From == s {
			return false
		}
	}
	return true
}

// Paths lists every path from New to a final state, each a list of
// transitions (ParseTable refuses a table whose transitions loop).
func (t *Table) Paths() [][]Transition {
	var out [][]Transition
	var walk func(s State, path []Transition)
	walk = func(s State, path []Transition) {
		if t.Final(s) {
			out = append(out, append([]Transition(nil), path...))
			return
		}
		for _, r := range t.rules {
			if r.From == s {
				walk(r.To, append(path, r.On))
			}
		}
	}
	walk(New, nil)
	return out
}
