package assemble

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/store"
)

// neverCase is one call of testdata/never-answered.jsonl under a
// session's axes. Class engine-deny: the engine denies, no answerer sees
// it. Class protected-path and full-access-outside: only the human
// answers (here: no), no answerer is asked. Class answered: the lineup
// answers, by the answerer named in By, and creates no grant.
type neverCase struct {
	Name      string          `json:"name"`
	Class     string          `json:"class"`
	Sandbox   string          `json:"sandbox"`
	Approval  string          `json:"approval"`
	Planning  bool            `json:"planning"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Absent    []string        `json:"absent"`
	Unchanged []string        `json:"unchanged"`
	Present   []string        `json:"present"`
	By        string          `json:"by"`
	Why       string          `json:"why"`
}

func readNeverCases(t *testing.T) []neverCase {
	t.Helper()
	f, err := os.Open("testdata/never-answered.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []neverCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c neverCase
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.DisallowUnknownFields()
		if err := d.Decode(&c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		out = append(out, c)
	}
	return out
}

// refusingHuman watches the service's pushes like a window and answers
// every ask it sees with no, keeping what it was shown.
type refusingHuman struct {
	mu   sync.Mutex
	seen map[string][]runtime.Approval // by session
}

func (h *refusingHuman) watch(ctx context.Context, t *testing.T, svc *runtime.Service) {
	pushes := svc.Subscribe(ctx)
	go func() {
		for p := range pushes {
			if p.Type != runtime.PushApproval || p.Approval == nil {
				continue
			}
			a := *p.Approval
			h.mu.Lock()
			h.seen[a.SessionID] = append(h.seen[a.SessionID], a)
			h.mu.Unlock()
			if err := svc.Answer(ctx, runtime.AnswerArgs{RequestID: a.RequestID, Answer: runtime.AnswerDeny, Via: "cli"}); err != nil && ctx.Err() == nil {
				t.Errorf("answer %s: %v", a.RequestID, err)
			}
		}
	}()
}

func (h *refusingHuman) asks(session string) []runtime.Approval {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]runtime.Approval(nil), h.seen[session]...)
}

// A user configures a command answerer and a reviewer model in their
// config file, as the docs say; Open wires them in front of the human.
// Each call of the case file runs through the whole graph (the agent's
// model is a script, the reviewer a fake server over Anthropic's wire
// protocol, the command a program in the read-only cage, the human a
// watcher of the pushes that says no). What the contract keeps from the
// answerers never reaches them: the engine's denials, protected paths,
// writes outside the workspace under full access. What they answer is an
// event with layer answerer, kind, name and latency, allows for the one
// call only: no grant, and the same call is asked again.
func TestConfiguredAnswerersNeverWiden(t *testing.T) {
	userCfg := isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	reviewer := newFakeReviewer(t, "anthropic", func(reviewAction, string) (string, string) { return "allow", "looks fine" })

	// The command answerer allows commands and passes the rest on; it
	// lives beside the user's config, outside /tmp (the cage's /tmp is
	// its own).
	progDir := routineWorkspace(t)
	prog := filepath.Join(progDir, "corp-check")
	if err := os.WriteFile(prog, []byte(`#!/bin/sh
q=$(cat)
case "$q" in
*'"tool":"shell.exec"'*) echo '{"answer":"allow","reason":"commands are fine here"}' ;;
*) echo '{"answer":"pass","reason":"not a command"}' ;;
esac
`), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`[[answerers]]
kind = "command"
name = "corp-check"
command = [%q]
timeout = "30s"

[[answerers]]
kind = "model"
name = "reviewer"
model = "anthropic:claude-haiku-test"
base_url = %q
budget = 500
`, prog, reviewer.srv.URL)
	if err := os.MkdirAll(filepath.Dir(userCfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(userCfg, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "w.db"), NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	human := &refusingHuman{seen: map[string][]runtime.Approval{}}
	human.watch(ctx, t, g.Service)

	cases := readNeverCases(t)
	classes := map[string]int{}
	for _, tc := range cases {
		classes[tc.Class]++
	}
	for _, c := range []string{"engine-deny", "protected-path", "full-access-outside", "answered"} {
		if classes[c] < 3 {
			t.Fatalf("only %d cases of class %s", classes[c], c)
		}
	}
	for _, tc := range cases {
		t.Run(tc.Class+"/"+tc.Name, func(t *testing.T) {
			ws, out := routineWorkspace(t), routineWorkspace(t)
			if err := os.WriteFile(filepath.Join(out, "keep"), []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			expand := strings.NewReplacer("$WS", ws, "$OUT", out).Replace
			before := map[string]string{}
			for _, u := range tc.Unchanged {
				b, err := os.ReadFile(expand(u))
				if err != nil {
					t.Fatal(err)
				}
				before[u] = string(b)
			}
			// The agent's model makes the call twice, then stops.
			args := json.RawMessage(expand(string(tc.Args)))
			turn := func(id string) script.Turn {
				return script.Turn{ToolCalls: []script.Call{{ID: id, Name: tc.Tool, Args: args}}}
			}
			g.Service.SetModel(script.New(&script.Script{Version: 1, Turns: []script.Turn{turn("first"), turn("second"), {Text: "done"}}},
				script.Options{NoDelay: true}), false)

			sess := newCaseSession(ctx, t, g, ws, tc)
			reviewsBefore := reviewer.count()
			if err := g.Service.Run(ctx, sess, "go on"); err != nil {
				t.Fatal(err)
			}
			evs, err := g.Store.Events(ctx, store.EventQuery{SessionID: sess})
			if err != nil {
				t.Fatal(err)
			}
			var answers []store.AnswererAnswered
			decided := map[string]store.Event{}
			for _, e := range evs {
				switch x := e.Event.(type) {
				case store.AnswererAnswered:
					answers = append(answers, x)
				case store.PermissionGranted, store.PermissionDenied:
					decided[callOf(x)] = x
				case store.GrantAdded:
					t.Errorf("a grant was created: %+v", x)
				}
			}
			if gs, err := g.Service.ListGrants(ctx, sess); err != nil || len(gs) != 0 {
				t.Errorf("grants %+v, %v", gs, err)
			}
			asked := human.asks(sess)
			dump := func() {
				for _, e := range evs {
					t.Logf("%s %.400s", e.Kind, e.Payload)
				}
			}

			switch tc.Class {
			case "engine-deny":
				if len(answers) != 0 || len(asked) != 0 || reviewer.count() != reviewsBefore {
					dump()
					t.Fatalf("an engine denial reached %d answers, %d human asks, %d reviews", len(answers), len(asked), reviewer.count()-reviewsBefore)
				}
				for _, id := range []string{"first", "second"} {
					d, ok := decided[id].(store.PermissionDenied)
					if !ok || d.Layer == policy.LayerAnswerer || d.Layer == policy.LayerHuman {
						dump()
						t.Fatalf("call %s: %+v, want the engine's denial", id, decided[id])
					}
				}
			case "protected-path", "full-access-outside":
				if len(answers) != 0 || reviewer.count() != reviewsBefore {
					dump()
					t.Fatalf("an ask only a human answers reached %d answers, %d reviews", len(answers), reviewer.count()-reviewsBefore)
				}
				if len(asked) != 2 {
					dump()
					t.Fatalf("the human was asked %d times, want 2", len(asked))
				}
				for _, a := range asked {
					if len(a.Answers) != 0 || !containsPrefix(a.Notes, "Only you answer this ask") {
						t.Fatalf("the human was not told only they answer: answers %+v notes %q", a.Answers, a.Notes)
					}
				}
				for _, id := range []string{"first", "second"} {
					d, ok := decided[id].(store.PermissionDenied)
					if !ok || d.Layer != policy.LayerHuman {
						dump()
						t.Fatalf("call %s: %+v, want the human's denial", id, decided[id])
					}
				}
			case "answered":
				if len(asked) != 0 {
					t.Fatalf("the human was asked %d times", len(asked))
				}
				kind, name, _ := strings.Cut(tc.By, ":")
				var decisive []store.AnswererAnswered
				for _, a := range answers {
					if a.Layer != policy.LayerAnswerer || a.LatencyMs < 0 || a.CallID == "" || a.Tool != tc.Tool || a.Reason == "" {
						t.Fatalf("answer event %+v", a)
					}
					if a.Answer == "allow" {
						decisive = append(decisive, a)
					}
				}
				// Both calls were answered: the first allow left no grant
				// behind that would have let the second pass unasked.
				if len(decisive) != 2 {
					dump()
					t.Fatalf("%d allows, want one per call", len(decisive))
				}
				for _, a := range decisive {
					if a.Kind != kind || a.Name != name || a.Reason != tc.Why {
						t.Fatalf("allow %+v, want %s %q", a, tc.By, tc.Why)
					}
				}
				if kind == "command" && decisive[0].LatencyMs == 0 {
					t.Fatalf("a caged program answered in 0 ms: %+v", decisive[0])
				}
				for _, id := range []string{"first", "second"} {
					d, ok := decided[id].(store.PermissionGranted)
					if !ok || d.Layer != policy.LayerAnswerer || d.LayerDetail != tc.By || d.Detail != tc.Why {
						dump()
						t.Fatalf("call %s: %+v, want allowed by %s", id, decided[id], tc.By)
					}
				}
			default:
				t.Fatalf("class %q", tc.Class)
			}

			for _, a := range tc.Absent {
				if _, err := os.Lstat(expand(a)); err == nil {
					t.Errorf("%s exists", expand(a))
				}
			}
			for _, p := range tc.Present {
				if _, err := os.Lstat(expand(p)); err != nil {
					t.Errorf("%s: %v", expand(p), err)
				}
			}
			for u, b := range before {
				if now, _ := os.ReadFile(expand(u)); string(now) != b {
					t.Errorf("%s changed: %q", expand(u), now)
				}
			}
			for _, p := range []string{"pwned", "pwned2", "pwned3", "pwned4"} {
				if _, err := os.Lstat(filepath.Join(out, p)); err == nil {
					t.Errorf("%s ran", p)
				}
			}
		})
	}
}

// newCaseSession creates a session with the case's axes.
func newCaseSession(ctx context.Context, t *testing.T, g *Graph, ws string, tc neverCase) string {
	t.Helper()
	appr, err := policy.ParseApprovalPolicy(tc.Approval)
	if err != nil {
		t.Fatal(err)
	}
	kind, err := policy.ParseSandboxKind(tc.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: ws, Title: tc.Name, Approval: &appr,
		Sandbox: &runtime.Sandbox{Kind: kind}})
	if err != nil {
		t.Fatal(err)
	}
	if tc.Planning {
		if _, err := g.Service.SetPlanning(ctx, s.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	return s.ID
}

func callOf(e store.Event) string {
	switch x := e.(type) {
	case store.PermissionGranted:
		return x.CallID
	case store.PermissionDenied:
		return x.CallID
	}
	return ""
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// count is how many reviews the fake model server was sent.
func (f *fakeReviewer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.prompts)
}
