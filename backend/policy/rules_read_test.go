package policy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The read fast path (Engine.Decide, RuleSet.mayMatchRead) answers a read
// without the chain only when no rule can match it. These cases, as data,
// prove it never skips a rule that does: every one is decided by Decide
// and by the full chain, which must agree, with the rules in the engine
// and in the session alike.

type readCase struct {
	name, rules, ws, tool string
	paths                 []string
	want                  Verdict
	route                 string
}

func readCases(t testing.TB) []readCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "rules", "reads.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		col := strings.Split(text, "\t")
		if len(col) != 7 {
			t.Fatalf("reads.tsv:%d: %d columns, want 7", line, len(col))
		}
		paths := strings.Fields(col[4])
		for i := range paths {
			if paths[i] == `""` {
				paths[i] = ""
			}
		}
		out = append(out, readCase{name: col[0], rules: col[1], ws: col[2], tool: col[3],
			paths: paths, want: Verdict(col[5]), route: col[6]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readRules compiles "deny secrets/** | ask tool=fs.read" for tier.
func readRules(t testing.TB, spec string, tier Tier) (*RuleSet, error) {
	t.Helper()
	var rules []Rule
	for i, one := range strings.Split(spec, " | ") {
		dec, what, ok := strings.Cut(strings.TrimSpace(one), " ")
		if !ok {
			return nil, fmt.Errorf("rule %q: want DECISION MATCH", one)
		}
		// CompileRules wants an example; whether it matches is CheckExamples' business.
		r := Rule{Tier: tier, File: "reads.tsv", Line: i + 1, Decision: Verdict(dec), Why: "test", Examples: []string{"x"}}
		if tool, ok := strings.CutPrefix(what, "tool="); ok {
			r.Tool = tool
		} else {
			r.Paths = []string{what}
		}
		rules = append(rules, r)
	}
	return CompileRules(rules)
}

// readEngines are the case's rules in the engine (user tier) and in the
// session (workspace tier).
func readEngines(t testing.TB, spec, ws string) map[string]func() (*Engine, Session) {
	t.Helper()
	user, err := readRules(t, spec, TierUser)
	if err != nil {
		t.Fatal(err)
	}
	wsRules, err := readRules(t, spec, TierWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	s := Session{Workspace: ws, Approval: OnRequest, Sandbox: SandboxPolicy{Kind: WorkspaceWrite}, Caged: true, Now: now}
	return map[string]func() (*Engine, Session){
		"engine": func() (*Engine, Session) { return New(Config{Rules: user}), s },
		"session": func() (*Engine, Session) {
			s := s
			s.Rules = wsRules
			return New(Config{}), s
		},
	}
}

// sameDecision compares what a front end and the audit see of two
// decisions.
func sameDecision(a, b Decision) bool {
	return a.Verdict == b.Verdict && a.Reason == b.Reason && a.Source == b.Source && a.Layer == b.Layer &&
		a.LayerDetail == b.LayerDetail && strings.Join(reasonStrings(a.Reasons), ",") == strings.Join(reasonStrings(b.Reasons), ",")
}

// chainDecision is what Decide would say without the read fast path.
func chainDecision(e *Engine, call Call, s Session) Decision {
	d := e.decideChain(call, s)
	if d.Layer == "" {
		d.Layer, d.LayerDetail = layerOf(&d)
	}
	return d
}

func TestReadFastPathUnderRules(t *testing.T) {
	for _, c := range readCases(t) {
		for where, build := range readEngines(t, c.rules, c.ws) {
			t.Run(c.name+"/"+where, func(t *testing.T) {
				e, s := build()
				call := Call{Tool: c.tool, Effects: []Effect{{Kind: EffectRead, Paths: c.paths}}}
				if !e.onlyReads(&call, &s) {
					t.Fatalf("not a plain read: the case does not test the fast path")
				}
				got := e.Decide(call, s)
				if got.Verdict != c.want {
					t.Errorf("verdict %s (%s), want %s", got.Verdict, got.Reason, c.want)
				}
				if full := chainDecision(e, call, s); !sameDecision(got, full) {
					t.Errorf("Decide %+v\nchain  %+v", got, full)
				}
				fast := !e.rules.mayMatchRead(&call, s.Workspace) && !s.Rules.mayMatchRead(&call, s.Workspace)
				route := map[bool]string{true: "fast", false: "chain"}[fast]
				if c.route != "-" && route != c.route {
					t.Errorf("decided by the %s, want the %s", route, c.route)
				}
				if fast {
					if n := testing.AllocsPerRun(20, func() { e.Decide(call, s) }); n != 0 {
						t.Errorf("the fast path allocates %v times", n)
					}
				}
			})
		}
	}
}

// FuzzReadFastPath: for any rule and any read, Decide (fast path or not)
// equals the full chain's decision.
func FuzzReadFastPath(f *testing.F) {
	for _, c := range readCases(f) {
		if !strings.Contains(c.rules, " | ") && len(c.paths) == 1 {
			f.Add(c.rules, c.ws, c.tool, c.paths[0])
		}
	}
	f.Fuzz(func(t *testing.T, spec, ws, tool, p string) {
		if len(spec) > 200 || len(ws) > 200 || len(p) > 400 || !strings.Contains(spec, " ") {
			return
		}
		rs, err := readRules(t, spec, TierUser)
		if err != nil {
			return
		}
		e := New(Config{Rules: rs})
		s := Session{Workspace: ws, Approval: OnRequest, Sandbox: SandboxPolicy{Kind: WorkspaceWrite}, Caged: true, Now: now}
		call := Call{Tool: tool, Effects: []Effect{{Kind: EffectRead, Paths: []string{p}}}}
		if !e.onlyReads(&call, &s) {
			return
		}
		if got, full := e.Decide(call, s), chainDecision(e, call, s); !sameDecision(got, full) {
			t.Fatalf("rule %q, workspace %q, %s %q:\nDecide %+v\nchain  %+v", spec, ws, tool, p, got, full)
		}
	})
}
