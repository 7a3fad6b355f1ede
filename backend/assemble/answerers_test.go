package assemble

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/gate/review"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model/modeltest"
	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// reviewerLogic is the fake model's judgment, from what a reviewer
// model is shown: the action's effects, why Warden asks, the session's
// sandbox. It allows reads and workspace edits (and commands caged in the
// workspace-write cage), passes what destroys work or reaches further.
type reviewerLogic func(action reviewAction, user string) (answer, reason string)

type reviewAction struct {
	Tool    string `json:"tool"`
	Effects []struct {
		Kind  string   `json:"kind"`
		Paths []string `json:"paths"`
	} `json:"effects"`
	Why     []string `json:"why_warden_asks"`
	Session struct {
		Workspace string `json:"workspace"`
		Sandbox   string `json:"sandbox"`
	} `json:"session"`
}

func routineReviewer(a reviewAction, _ string) (string, string) {
	for _, w := range a.Why {
		if strings.HasPrefix(w, "Destructive") {
			return "pass", "this can destroy work: the user decides"
		}
	}
	if a.Session.Sandbox != "workspace-write, network off" {
		return "pass", "not a workspace-only session"
	}
	for _, e := range a.Effects {
		switch e.Kind {
		case "read", "write", "exec":
		default:
			return "pass", "reaches beyond the workspace"
		}
		for _, p := range e.Paths {
			if !strings.HasPrefix(p, a.Session.Workspace+"/") && p != a.Session.Workspace {
				return "pass", "touches " + p
			}
		}
	}
	return "allow", "reads and edits only the workspace"
}

// fakeReviewer is a model server speaking the provider's real wire
// protocol (modeltest), answering each review by calling the answer tool
// with what logic decides. It keeps the prompts it was sent.
type fakeReviewer struct {
	srv     *modeltest.Server
	mu      sync.Mutex
	prompts []string
	systems []string
	tools   []string
}

func newFakeReviewer(t *testing.T, provider string, logic reviewerLogic) *fakeReviewer {
	f := &fakeReviewer{}
	var n atomic.Int64
	route := func(body []byte) *script.Script {
		system, user, tool := promptOf(t, provider, body)
		f.mu.Lock()
		f.prompts, f.systems, f.tools = append(f.prompts, user), append(f.systems, system), append(f.tools, tool)
		f.mu.Unlock()
		_, rest, _ := strings.Cut(user, "<<<ACTION\n")
		body2, _, _ := strings.Cut(rest, "\nACTION>>>")
		var a reviewAction
		if err := json.Unmarshal([]byte(body2), &a); err != nil {
			t.Errorf("the prompt's action is not JSON: %v\n%s", err, user)
		}
		_, um, _ := strings.Cut(user, "<<<USER\n")
		um, _, _ = strings.Cut(um, "\nUSER>>>")
		ans, why := logic(a, um)
		args, _ := json.Marshal(map[string]string{"answer": ans, "reason": why})
		id := "call_" + string(rune('a'+n.Add(1)%26))
		return &script.Script{Version: 1, Turns: []script.Turn{{ToolCalls: []script.Call{{ID: id, Name: review.ToolName, Args: args}}}}}
	}
	if provider == "anthropic" {
		f.srv = modeltest.NewAnthropic(&script.Script{Version: 1}).Route(route)
	} else {
		f.srv = modeltest.NewOpenAI(&script.Script{Version: 1}).Route(route)
	}
	t.Cleanup(f.srv.Close)
	return f
}

// promptOf reads the system prompt, the user's message and the offered
// tool's name from a request body of either wire protocol.
func promptOf(t *testing.T, provider string, body []byte) (system, user, tool string) {
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var parts []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &parts)
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Errorf("body: %v", err)
	}
	system = text(req.System)
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = text(m.Content)
		case "user":
			user = text(m.Content)
		default:
			t.Errorf("the reviewer was sent a %s message", m.Role)
		}
	}
	if len(req.Tools) == 1 {
		tool = req.Tools[0].Name + req.Tools[0].Function.Name
	}
	return system, user, tool
}

// routineWorkspace is a small Go project under git, outside /tmp.
func routineWorkspace(t *testing.T) string {
	t.Helper()
	base, _ := os.UserCacheDir()
	base = filepath.Join(base, "warden-answerers-test")
	_ = os.MkdirAll(base, 0o755)
	ws, err := os.MkdirTemp(base, "ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(ws) })
	ws, _ = filepath.EvalSymlinks(ws)
	files := map[string]string{
		"go.mod":        "module example.com/greet\n\ngo 1.22\n",
		"main.go":       "package main\n\nfunc main() { println(Greet(\"you\")) }\n",
		"greet.go":      "package main\n\n// Greet greets. TODO: localise.\nfunc Greet(n string) string { return \"hello \" + n }\n",
		"greet_test.go": "package main\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tif Greet(\"x\") != \"hello x\" {\n\t\tt.Fatal()\n\t}\n}\n",
		"README.md":     "# greet\n\nSays hello.\n",
		"check.sh":      "#!/bin/sh\nfor f in *.go; do test -s \"$f\" || exit 1; done\necho ok\n",
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(ws, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"},
		{"add", "-A"}, {"commit", "-qm", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return ws
}

type sessionCall struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	Routine bool            `json:"routine"`
}

func readSession(t *testing.T) []sessionCall {
	f, err := os.Open("testdata/routine-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sessionCall
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c sessionCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// countingHuman answers yes and counts what it was asked.
type countingHuman struct {
	mu   sync.Mutex
	asks []gate.ApprovalRequest
}

func (h *countingHuman) Approve(_ context.Context, r gate.ApprovalRequest) (gate.Approval, error) {
	h.mu.Lock()
	h.asks = append(h.asks, r)
	h.mu.Unlock()
	return gate.Approval{Approved: true, Via: gate.ViaCLI}, nil
}

// reviewRig is the graph's pieces for one session with a reviewer model
// configured as a user would ([[answerers]] kind = "model"), talking to a
// fake server over the provider's wire protocol.
type reviewRig struct {
	st    *store.Store
	g     *gate.Gate
	ws    string
	sess  store.Session
	reg   *tools.Registry
	human *countingHuman
}

func newReviewRig(t *testing.T, provider string, srvURL string) *reviewRig {
	t.Helper()
	ctx := context.Background()
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	t.Setenv("OPENAI_API_KEY", "test-key")
	db := filepath.Join(t.TempDir(), "w.db")
	st, err := store.Open(ctx, db, storetest.KeyFor(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	cage := sandbox.New(sandbox.Config{})
	if s := cage.Detect(ctx); !s.Available {
		t.Fatalf("cage: %s", s.Reason)
	}
	t.Cleanup(func() { _ = cage.Close() })
	cfg := config.Default()
	cfg.Answerers = []config.AnswererSpec{{Kind: config.AnswererModel, Name: "haiku-test", Model: provider + ":claude-haiku-test",
		BaseURL: srvURL + map[string]string{"anthropic": "", "openai": "/v1"}[provider], Budget: 200, Timeout: 20 * time.Second, Tier: config.TierUser}}
	l, err := newLineup(cfg, filepath.Join(t.TempDir(), "config.toml"), st, cage, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &reviewRig{st: st, ws: routineWorkspace(t), human: &countingHuman{}}
	if r.reg, err = tools.Builtins(cage, tools.NewMonitors(cage), ""); err != nil {
		t.Fatal(err)
	}
	if r.sess, err = st.CreateSession(ctx, store.NewSession{Workspace: r.ws}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, r.sess.ID, store.AnyVersion, store.MessageAppended{MessageID: "u1", Role: "user",
		Text: "Add the features with their tests, run the checks and commit each."}); err != nil {
		t.Fatal(err)
	}
	r.g, err = NewGate(GateParts{Engine: policy.New(policy.Config{}), Store: st, Approver: r.human, Lineup: l.For})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *reviewRig) call(t *testing.T, c sessionCall) gate.Outcome {
	t.Helper()
	tool, ok := r.reg.Get(c.Tool)
	if !ok {
		t.Fatalf("no tool %s", c.Tool)
	}
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	out, err := r.g.Call(context.Background(), gate.Request{Tool: tool, Args: c.Args, Env: tools.Env{SessionID: r.sess.ID},
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: r.ws, Approval: policy.Always, Sandbox: sb, Caged: true}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A routine 100-call coding session under approval Always (every call
// would ask a human): with a reviewer model that allows reads and
// workspace edits, the human is asked at most twice (what destroys work)
// and no routine call is denied. The reviewer runs over each provider's
// real wire protocol, against a fake server.
func TestRoutineSessionWithAReviewer(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			f := newFakeReviewer(t, provider, routineReviewer)
			r := newReviewRig(t, provider, f.srv.URL)
			calls := readSession(t)
			if provider == "openai" {
				calls = calls[:30] // the protocol, not the session again
			}
			denied := 0
			for i, c := range calls {
				out := r.call(t, c)
				if c.Routine && (out.Decision == nil || out.Decision.Verdict != policy.VerdictAllow) {
					denied++
					t.Errorf("routine call %d (%s %s) was not allowed: %+v", i+1, c.Tool, c.Args, out.Decision)
				}
			}
			if denied > 0 {
				t.Fatalf("%d routine calls denied", denied)
			}
			if n := len(r.human.asks); n > 2 {
				for _, a := range r.human.asks {
					t.Logf("asked: %s %s", a.Tool, a.Args)
				}
				t.Fatalf("the human was asked %d times", n)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.prompts) < len(calls)-2 {
				t.Fatalf("the reviewer saw %d of %d asks", len(f.prompts), len(calls))
			}
			for i := range f.prompts {
				if f.systems[i] != review.SystemPrompt() || f.tools[i] != review.ToolName ||
					!strings.Contains(f.prompts[i], "Add the features with their tests") {
					t.Fatalf("review %d: system %q… tool %q prompt %q", i, f.systems[i][:40], f.tools[i], f.prompts[i])
				}
			}
			// Every answer is an event: layer answerer, kind, name, latency.
			evs, err := r.st.Events(context.Background(), store.EventQuery{SessionID: r.sess.ID, Kinds: []store.Kind{store.KindAnswererAnswered}})
			if err != nil || len(evs) != len(f.prompts) {
				t.Fatalf("%d answer events for %d reviews (%v)", len(evs), len(f.prompts), err)
			}
			for _, e := range evs {
				a := e.Event.(store.AnswererAnswered)
				if a.Layer != policy.LayerAnswerer || a.Kind != "model" || a.Name != "haiku-test" || a.Reason == "" {
					t.Fatalf("answer event %+v", a)
				}
			}
			if provider == "anthropic" {
				t.Logf("100 calls: %d reviews, the human asked %d times", len(f.prompts), len(r.human.asks))
			}
		})
	}
}

// With the breaker tripped, the human gets every ask, and is told why.
func TestBreakerHandsAsksToTheHuman(t *testing.T) {
	f := newFakeReviewer(t, "anthropic", func(reviewAction, string) (string, string) { return "deny", "not what the user asked" })
	r := newReviewRig(t, "anthropic", f.srv.URL)
	calls := readSession(t)[:20]
	for i, c := range calls {
		out := r.call(t, c)
		switch {
		case i < review.MaxDenialsInARow:
			if out.Decision.Verdict != policy.VerdictDeny || out.Decision.Layer != policy.LayerAnswerer || out.Decision.Detail != "not what the user asked" {
				t.Fatalf("call %d: %+v", i+1, out.Decision)
			}
		default:
			if out.Decision.Layer != policy.LayerHuman || out.Decision.Verdict != policy.VerdictAllow {
				t.Fatalf("call %d after the breaker: %+v", i+1, out.Decision)
			}
		}
	}
	if n := len(r.human.asks); n != len(calls)-review.MaxDenialsInARow {
		t.Fatalf("the human got %d of %d asks", n, len(calls)-review.MaxDenialsInARow)
	}
	for _, a := range r.human.asks {
		if len(a.Answers) != 1 || a.Answers[0].Answer != gate.AnswererPass || !strings.Contains(a.Answers[0].Why, "it denied 3 calls in a row") {
			t.Fatalf("the human was not told why: %+v", a.Answers)
		}
	}
	if len(f.prompts) != review.MaxDenialsInARow {
		t.Fatalf("the model was asked %d times; the breaker should have stopped it at %d", len(f.prompts), review.MaxDenialsInARow)
	}
}
