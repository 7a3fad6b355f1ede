package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
)

type decisiveCase struct {
	Name    string         `json:"name"`
	Want    string         `json:"want"`
	Session policy.Session `json:"session"`
	Call    policy.Call    `json:"call"`
}

func decisiveCases(t *testing.T) []decisiveCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "decisive-steps.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []decisiveCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 10 {
		t.Fatalf("only %d cases", len(f.Cases))
	}
	return f.Cases
}

// stepOfLayer is the trace step each layer of the engine decides in.
var stepOfLayer = map[policy.Layer]string{policy.LayerPlanning: "planning", policy.LayerSandbox: "sandbox",
	policy.LayerPolicy: "approval", policy.LayerGrant: "grants", policy.LayerMcpTrust: "mcp-trust"}

// The step DecisiveStep picks out of a real engine's trace is the one the
// case names, and the one of the layer the engine says decided.
func TestDecisiveStepOfRealDecisions(t *testing.T) {
	e := policy.New(policy.Config{})
	for _, c := range decisiveCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			d := e.Decide(c.Call, c.Session)
			i := DecisiveStep(d.Trace, string(d.Verdict))
			if i < 0 || i >= len(d.Trace) {
				t.Fatalf("index %d of %d steps", i, len(d.Trace))
			}
			if got := d.Trace[i].Step; got != c.Want {
				t.Errorf("%s decided by %q, want %q; trace %+v", d.Verdict, got, c.Want, d.Trace)
			}
			if want, ok := stepOfLayer[d.Layer]; ok && want != d.Trace[i].Step {
				t.Errorf("layer %s decides in %q, DecisiveStep says %q", d.Layer, want, d.Trace[i].Step)
			}
		})
	}
}

// However much the modal folds, on a screen of 60×20 and more the step that
// decided the ask is on screen whole, marked ▶; on any screen the keys are.
func TestModalKeepsTheDecisiveStep(t *testing.T) {
	e := policy.New(policy.Config{})
	r := newRig(t)
	r.arm()
	n := 0
	for _, c := range decisiveCases(t) {
		d := e.Decide(c.Call, c.Session)
		if d.Verdict != policy.VerdictAsk {
			continue
		}
		n++
		args, _ := json.Marshal(map[string]any{"command": strings.Repeat("echo step && ", 30) + "rm -rf build"})
		i := DecisiveStep(d.Trace, "ask")
		want := fmt.Sprintf("▶ %d. %s — saw ", i+1, d.Trace[i].Step)
		for _, size := range [][2]int{{40, 16}, {60, 20}, {80, 24}, {100, 30}, {120, 40}, {250, 60}} {
			m := r.m
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m.sess.Approval, m.sess.Sandbox = c.Session.Approval, runtime.Sandbox{Kind: c.Session.Sandbox.Kind}
			m.queue = []runtime.Approval{{RequestID: "r1", SessionID: m.sess.ID, CallID: "c1", Tool: c.Call.Tool, Args: args,
				Risk: policy.RiskHigh, Reasons: d.Reasons, Signature: d.Signature, Trace: d.Trace, Live: true}}
			m.modalTrace = true
			s := ansi.Strip(m.Render())
			if os.Getenv("PEEK") == c.Name {
				t.Logf("%dx%d\n%s", size[0], size[1], s)
			}
			if size[0] >= 60 && !strings.Contains(s, want) {
				t.Errorf("%s at %dx%d: the decisive step %q is not on screen:\n%s", c.Name, size[0], size[1], want, s)
			}
			// Its conclusion (the end of its last row) is there too.
			if !strings.Contains(strings.Join(strings.Fields(s), " "), "→ "+d.Trace[i].Concluded) && size[0] >= 60 {
				t.Errorf("%s at %dx%d: the decisive step is cut:\n%s", c.Name, size[0], size[1], s)
			}
			if !strings.Contains(s, "y allow once") && !strings.Contains(s, "keys wait a moment") {
				t.Errorf("%s at %dx%d: no keys line:\n%s", c.Name, size[0], size[1], s)
			}
		}
	}
	if n < 8 {
		t.Fatalf("only %d ask cases", n)
	}
}

func TestFoldKeeping(t *testing.T) {
	th := newTheme()
	row := func(label string, keep bool) keptRow { return keptRow{text: label + " row", keep: keep, label: label} }
	rows := []keptRow{row("h", true), row("a", false), row("", false), row("b", false), row("K", true), row("c", false), row("d", false)}
	cases := []struct {
		name string
		n    int
		want []string
	}{
		{"fits", 7, []string{"h row", "a row", " row", "b row", "K row", "c row", "d row"}},
		{"longest stretch first", 5, []string{"h row", "  ⟨… a, b …⟩", "K row", "c row", "d row"}},
		{"both stretches", 4, []string{"h row", "  ⟨… a, b …⟩", "K row", "  ⟨… c, d …⟩"}},
		{"kept rows never fold", 1, []string{"h row", "  ⟨… a, b …⟩", "K row", "  ⟨… c, d …⟩"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, l := range foldKeeping(rows, c.n, 40, th) {
				got = append(got, ansi.Strip(l))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if min := minKept(rows); len(got) < min {
				t.Errorf("%d rows, below minKept %d", len(got), min)
			}
		})
	}
}

// A long command never hides its risky part or its end in the modal: over
// many shapes (one line or many, the risky part anywhere, behind sudo or a
// path) and screen sizes, with the trace open or not, the rows naming the
// risky program and the command's last line are on screen.
func TestModalKeepsRiskyLines(t *testing.T) {
	e := policy.New(policy.Config{})
	r := newRig(t)
	r.arm()
	filler := func(n int, sep string) string { return strings.Repeat("echo step"+sep, n) }
	var cmds []struct{ name, cmd, risky string }
	for _, p := range []int{0, 3, 20, 38} {
		lines := strings.Split(strings.TrimSuffix(filler(40, "\n"), "\n"), "\n")
		lines[p] = "rm -rf build/out"
		cmds = append(cmds, struct{ name, cmd, risky string }{fmt.Sprintf("line %d of 41", p+1), strings.Join(lines, "\n") + "\necho the end", "rm -rf build/out"})
	}
	cmds = append(cmds,
		struct{ name, cmd, risky string }{"one long line", filler(300, "; ") + "rm -rf build/out; " + filler(300, "; ") + "echo the end", "rm -rf build/out"},
		struct{ name, cmd, risky string }{"behind sudo and a path", filler(30, "\n") + "sudo /bin/rm -rf data\n" + filler(30, "\n") + "echo the end", "/bin/rm -rf data"},
		struct{ name, cmd, risky string }{"blank lines around it", "echo a" + strings.Repeat("\n", 60) + "rm -rf build/out" + strings.Repeat("\n", 60) + "echo the end", "rm -rf build/out"},
	)
	sess := policy.Session{Workspace: "/ws", Approval: policy.OnRequest, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, Caged: true}
	for _, c := range cmds {
		d := e.Decide(policy.Call{Tool: "shell.exec", Effects: []policy.Effect{{Kind: policy.EffectExec, Command: c.cmd, Cwd: "/ws"}}}, sess)
		if d.Verdict != policy.VerdictAsk {
			t.Fatalf("%s: %s, want ask", c.name, d.Verdict)
		}
		args, _ := json.Marshal(map[string]string{"command": c.cmd})
		for _, trace := range []bool{false, true} {
			for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {250, 60}} {
				m := r.m
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m.queue = []runtime.Approval{{RequestID: "r1", SessionID: m.sess.ID, CallID: "c1", Tool: "shell.exec", Args: args,
					Risk: policy.RiskHigh, Reasons: d.Reasons, Signature: d.Signature, Trace: d.Trace, Live: true}}
				m.modalTrace = trace
				s := ansi.Strip(m.Render())
				// Rows wrap anywhere: compare without the frame, the wrap
				// marks and white space.
				compact := strings.NewReplacer("│", "", "↪", "", " ", "", "\n", "").Replace
				for _, want := range []string{c.risky, "echo the end", "y allow once"} {
					if !strings.Contains(compact(s), compact(want)) {
						t.Errorf("%s at %dx%d (trace %v): %q is not on screen:\n%s", c.name, size[0], size[1], trace, want, s)
					}
				}
				if !strings.Contains(s, "▶ ") {
					t.Errorf("%s at %dx%d: no risky marker:\n%s", c.name, size[0], size[1], s)
				}
			}
		}
	}
}
