package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// mistaken is the engine with a classifier mistake: every shell command
// is decided as if it were the harmless `judgedAs`, while the tool runs
// the real one. It stands for any command the classifier misjudges, so
// that the cage's part is tested whatever the classifier knows today.
type mistaken struct {
	e        *policy.Engine
	judgedAs string
}

func (m mistaken) Decide(call policy.Call, s policy.Session) policy.Decision {
	effs := append([]policy.Effect(nil), call.Effects...)
	for i := range effs {
		if effs[i].Kind == policy.EffectExec {
			effs[i].Command = m.judgedAs
		}
	}
	call.Effects = effs
	return m.e.Decide(call, s)
}

// answering approves (or refuses) every ask and keeps them.
type answering struct {
	yes  bool
	mu   sync.Mutex
	asks []ApprovalRequest
}

func (a *answering) Approve(_ context.Context, req ApprovalRequest) (Approval, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asks = append(a.asks, req)
	return Approval{Approved: a.yes}, nil
}

func claimGate(t *testing.T, d Decider, ws string, sb policy.SandboxPolicy, ap policy.ApprovalPolicy, approver Approver) *Gate {
	t.Helper()
	g, err := New(Config{Decider: d, Approver: approver, Headless: approver == nil, Session: func(context.Context, tools.Env) (policy.Session, error) {
		return policy.Session{Workspace: ws, Sandbox: sb, Approval: ap, Caged: true, Now: time.Now()}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestMisclassifiedCommandFailsInTheCage: under Full access + On request a
// command the engine judged read-only that writes outside the workspace
// fails inside the read-only cage; the model reads why and that it may
// escalate; escalating asks a human, whose yes runs it on the host.
func TestMisclassifiedCommandFailsInTheCage(t *testing.T) {
	ws := workspace(t)
	outside := filepath.Join(hostDir(t), "planted")
	cmd := "echo x > " + outside
	full := policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	human := &answering{yes: true}
	g := claimGate(t, mistaken{policy.New(policy.Config{}), "cat README"}, ws, full, policy.OnRequest, human)
	sh := tools.NewShellExec(testCage(t))
	env := tools.Env{SessionID: "s", Workspace: ws, Sandbox: full}

	out, err := callGate(g, context.Background(), sh, mustJSON(t, map[string]any{"command": cmd}), env)
	if err != nil {
		t.Fatal(err)
	}
	if exists(outside) {
		t.Fatal("a command judged read-only wrote outside the workspace under full access")
	}
	if out.Decision.Cage == nil || out.Decision.Cage.Shape != policy.CageReadOnly || len(human.asks) != 0 {
		t.Fatalf("decision %+v, %d asks", out.Decision, len(human.asks))
	}
	msg := text(out.Result)
	for _, want := range []string{"Read-only file system", "read-only cage", "narrower than it is", "classified read-only", `"escalate": true`} {
		if !strings.Contains(msg, want) {
			t.Fatalf("the model's result lacks %q:\n%s", want, msg)
		}
	}

	out, err = callGate(g, context.Background(), sh, mustJSON(t, map[string]any{"command": cmd, "escalate": true}), env)
	if err != nil {
		t.Fatal(err)
	}
	if len(human.asks) != 1 || !hasReason(human.asks[0].Reasons, policy.ReasonEscalation) || human.asks[0].AlwaysRefused == "" {
		t.Fatalf("escalate did not ask a human for an escalation: %+v", human.asks)
	}
	if out.Decision.Verdict != policy.VerdictAllow || out.Decision.Cage == nil || out.Decision.Cage.Shape != policy.CageHost || !exists(outside) {
		t.Fatalf("the approved escalation did not run on the host: %+v %s", out.Decision.Cage, text(out.Result))
	}
}

// TestEscalateRefused: a human's no, and approval Never, leave the
// command unrun.
func TestEscalateRefused(t *testing.T) {
	ws := workspace(t)
	outside := filepath.Join(hostDir(t), "planted")
	full := policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	sh := tools.NewShellExec(testCage(t))
	env := tools.Env{SessionID: "s", Workspace: ws, Sandbox: full}
	args := mustJSON(t, map[string]any{"command": "echo x > " + outside, "escalate": true})
	no := &answering{}
	g := claimGate(t, mistaken{policy.New(policy.Config{}), "ls"}, ws, full, policy.OnRequest, no)
	out, err := callGate(g, context.Background(), sh, args, env)
	if err != nil || out.Invoked || len(no.asks) != 1 || exists(outside) {
		t.Fatalf("a refused escalation ran: %+v %v", out, err)
	}
	g = claimGate(t, mistaken{policy.New(policy.Config{}), "ls"}, ws, full, policy.Never, nil)
	out, err = callGate(g, context.Background(), sh, args, env)
	if err != nil || out.Invoked || out.Decision.Reason != policy.ReasonEscalation || exists(outside) ||
		!strings.Contains(text(out.Result), "escalation") {
		t.Fatalf("escalate under never: %+v %v", out.Decision, err)
	}
}

// TestClaimCageUnderWorkspaceWrite: a command judged read-only runs in
// the read-only cage under workspace-write too; one judged to write gets
// the workspace.
func TestClaimCageUnderWorkspaceWrite(t *testing.T) {
	ws := workspace(t)
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	sh := tools.NewShellExec(testCage(t))
	env := tools.Env{SessionID: "s", Workspace: ws, Sandbox: sb}
	g := claimGate(t, mistaken{policy.New(policy.Config{}), "git status"}, ws, sb, policy.OnRequest, nil)
	out, err := callGate(g, context.Background(), sh, mustJSON(t, map[string]any{"command": "echo x > made"}), env)
	if err != nil || exists(filepath.Join(ws, "made")) || !strings.Contains(text(out.Result), "escalate") {
		t.Fatalf("judged read-only, it wrote the workspace: %v %s", err, text(out.Result))
	}
	g = claimGate(t, policy.New(policy.Config{}), ws, sb, policy.OnRequest, nil)
	out, err = callGate(g, context.Background(), sh, mustJSON(t, map[string]any{"command": "echo x > made"}), env)
	if err != nil || !exists(filepath.Join(ws, "made")) || out.Decision.Cage.Shape != policy.CageWorkspaceWrite {
		t.Fatalf("a workspace write did not land: %v %s", err, text(out.Result))
	}
	if strings.Contains(text(out.Result), "escalate") {
		t.Fatalf("a successful command talks of escalating: %s", text(out.Result))
	}
}

// hostDir is a fresh folder outside /tmp (a cage's /tmp is its own),
// removed after the test.
func hostDir(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(base, "warden-cage-test")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(base, "claim-")
	if err != nil {
		t.Fatal(err)
	}
	if d, err = filepath.EvalSymlinks(d); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

func hasReason(rs []policy.Reason, r policy.Reason) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// TestSecretReadsThroughTheGate: fs.read, fs.list and search.ripgrep of
// what the cage hides ask a human (denied here), and searching a folder
// that holds a hidden one leaves its files out.
func TestSecretReadsThroughTheGate(t *testing.T) {
	ws := workspace(t)
	home := workspace(t)
	vault := filepath.Join(home, "vault")
	writeFile(t, filepath.Join(vault, "token"), "NEEDLE-SECRET\n")
	writeFile(t, filepath.Join(home, ".ssh", "id_ed25519"), "NEEDLE-KEY\n")
	writeFile(t, filepath.Join(home, "notes.txt"), "NEEDLE-PLAIN\n")
	c := sandbox.New(sandbox.Config{Home: home, DenyRead: []string{vault}})
	if st := c.Detect(context.Background()); !st.Available {
		t.Fatal(st.Reason)
	}
	t.Cleanup(func() { _ = c.Close() })
	reg, err := tools.Builtins(c, tools.NewMonitors(c), "")
	if err != nil {
		t.Fatal(err)
	}
	e := policy.New(policy.Config{Secrets: c.Hidden()})
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	env := tools.Env{SessionID: "s", Workspace: ws, Sandbox: sb}
	for _, tc := range []struct {
		tool, args string
		ap         policy.ApprovalPolicy
		want       policy.Verdict
	}{
		{"fs.read", `{"path":"` + filepath.Join(home, ".ssh", "id_ed25519") + `"}`, policy.OnRequest, policy.VerdictAsk},
		{"fs.read", `{"path":"` + filepath.Join(vault, "token") + `"}`, policy.OnRequest, policy.VerdictAsk},
		{"fs.list", `{"path":"` + filepath.Join(home, ".ssh") + `"}`, policy.OnRequest, policy.VerdictAsk},
		{"search.ripgrep", `{"pattern":"NEEDLE","path":"` + vault + `"}`, policy.OnRequest, policy.VerdictAsk},
		{"monitor.start", `{"watch_path":"` + vault + `"}`, policy.OnRequest, policy.VerdictAsk},
		{"fs.read", `{"path":"` + filepath.Join(vault, "token") + `"}`, policy.Never, policy.VerdictDeny},
		{"fs.read", `{"path":"` + filepath.Join(home, "notes.txt") + `"}`, policy.Never, policy.VerdictAllow},
	} {
		t.Run(tc.tool+" "+tc.args+" "+tc.ap.String(), func(t *testing.T) {
			tool, _ := reg.Get(tc.tool)
			rec := &answering{}
			g := claimGate(t, e, ws, sb, tc.ap, rec)
			out, err := callGate(g, context.Background(), tool, json.RawMessage(tc.args), env)
			if err != nil {
				t.Fatal(err)
			}
			asked := len(rec.asks) == 1 && hasReason(rec.asks[0].Reasons, policy.ReasonSecretRead)
			switch tc.want {
			case policy.VerdictAsk:
				if !asked || out.Invoked {
					t.Fatalf("not asked for the secret: %+v", out.Decision)
				}
			case policy.VerdictDeny:
				if out.Decision.Reason != policy.ReasonSecretRead || out.Invoked {
					t.Fatalf("not denied: %+v", out.Decision)
				}
			default:
				if !out.Invoked || len(rec.asks) != 0 {
					t.Fatalf("a plain read was held: %+v", out.Decision)
				}
			}
			if strings.Contains(text(out.Result), "NEEDLE-SECRET") || strings.Contains(text(out.Result), "NEEDLE-KEY") {
				t.Fatalf("the secret leaked: %s", text(out.Result))
			}
		})
	}
	// A search of the home folder reads the plain file, not the hidden ones.
	rg, _ := reg.Get("search.ripgrep")
	res := invoke(t, rg, env, `{"pattern":"NEEDLE","path":"`+home+`"}`)
	if got := text(res); !strings.Contains(got, "NEEDLE-PLAIN") || strings.Contains(got, "NEEDLE-SECRET") || !strings.Contains(got, "left out") {
		t.Fatalf("search of the home folder: %s", got)
	}
	ls, _ := reg.Get("fs.list")
	if got := text(invoke(t, ls, env, `{"path":"`+home+`"}`)); strings.Contains(got, "vault") || !strings.Contains(got, "notes.txt") {
		t.Fatalf("listing of the home folder: %s", got)
	}
	// Once a human let the read of the hidden folder itself through, it is
	// listed whole.
	if got := text(invoke(t, ls, env, `{"path":"`+vault+`"}`)); !strings.Contains(got, "token") {
		t.Fatalf("listing of the approved folder: %s", got)
	}
	_ = os.Remove(filepath.Join(home, "notes.txt"))
}

// yesAnswerer allows every ask put to it, as a reviewer might.
type yesAnswerer struct{}

func (yesAnswerer) Kind() string { return "test" }
func (yesAnswerer) Answer(context.Context, Question) (Verdict, error) {
	return Verdict{Answer: AnswererAllow, Why: "looks fine"}, nil
}

// TestCageOfEveryAnswer: the cage a call runs in follows who allowed it. A
// human's yes through the seat (the window, the TUI, serve) earns the
// whole sandbox — on the host under full access, with the protected file
// the prompt showed let through; a reviewer's yes earns only the claim's
// cage.
func TestCageOfEveryAnswer(t *testing.T) {
	ctx := context.Background()
	full := policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	rig := func(t *testing.T, answerers []Answerer) (*Gate, *store.Store, tools.Env) {
		db := filepath.Join(t.TempDir(), "w.db")
		st, err := store.Open(ctx, db, storetest.KeyFor(db))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		env := tools.Env{Workspace: workspace(t), Sandbox: full}
		sess, err := st.CreateSession(ctx, store.NewSession{Workspace: env.Workspace})
		if err != nil {
			t.Fatal(err)
		}
		env.SessionID = sess.ID
		g, err := New(Config{Decider: policy.New(policy.Config{}), Store: st, ApprovalTimeout: 20 * time.Second, Answerers: answerers,
			Session: func(context.Context, tools.Env) (policy.Session, error) {
				return policy.Session{Workspace: env.Workspace, Sandbox: full, Approval: policy.OnRequest, Caged: true, Now: time.Now()}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		return g, st, env
	}
	sh := tools.NewShellExec(testCage(t))
	run := func(g *Gate, env tools.Env, cmd string) <-chan Outcome {
		done := make(chan Outcome, 1)
		go func() {
			out, err := g.Call(ctx, Request{Tool: sh, Args: mustJSON(t, map[string]any{"command": cmd}), Env: env})
			if err != nil {
				t.Error(err)
			}
			done <- out
		}()
		return done
	}
	t.Run("a human through the seat", func(t *testing.T) {
		g, _, env := rig(t, nil)
		done := run(g, env, "echo 'use flake' > .envrc")
		var ps []Pending
		for deadline := time.Now().Add(10 * time.Second); len(ps) == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			ps, _ = g.Pending(ctx, env.SessionID)
		}
		if len(ps) != 1 {
			t.Fatalf("pending %+v", ps)
		}
		if _, err := g.Answer(ctx, AnswerArgs{RequestID: ps[0].RequestID, Answer: AnswerOnce, Via: ViaWindow}, nil); err != nil {
			t.Fatal(err)
		}
		out := <-done
		if !out.Invoked || out.Decision.Cage == nil || out.Decision.Cage.Shape != policy.CageHost || out.Decision.Cage.Claimed ||
			len(out.Decision.Cage.Approved) != 1 {
			t.Fatalf("the human's yes ran in %+v", out.Decision.Cage)
		}
		if b, err := os.ReadFile(filepath.Join(env.Workspace, ".envrc")); err != nil || string(b) != "use flake\n" {
			t.Fatalf("the approved protected write did not land: %v %s", err, text(out.Result))
		}
	})
	t.Run("a reviewer", func(t *testing.T) {
		g, _, env := rig(t, []Answerer{yesAnswerer{}})
		out := <-run(g, env, "python3 -c 'print(1)'")
		if !out.Invoked || out.Decision.Layer != policy.LayerAnswerer || out.Decision.Cage == nil ||
			out.Decision.Cage.Shape != policy.CageFullAccess || !out.Decision.Cage.Claimed {
			t.Fatalf("the reviewer's yes ran in %+v (layer %s)", out.Decision.Cage, out.Decision.Layer)
		}
		var res struct{ Cage *policy.Cage }
		_ = json.Unmarshal(out.Result.Structured, &res)
		if res.Cage == nil || res.Cage.Shape != policy.CageFullAccess {
			t.Fatalf("the command ran in %+v", res.Cage)
		}
	})
}

// TestCageOfTable: cageOf is the one place an ask's outcome gets the cage
// it runs in. Only a human's yes (now, through the seat, or standing
// from before a restart) earns the human cage; every other allow keeps a
// claim's cage (its own from a re-decision, else the asked one); nothing
// that does not run carries a cage.
func TestCageOfTable(t *testing.T) {
	claim := &policy.Cage{Shape: policy.CageReadOnly, Claimed: true, Why: "classified read-only"}
	human := &policy.Cage{Shape: policy.CageHost, Approved: []string{"/ws/.envrc"}, Why: "a human approved the call"}
	redecided := &policy.Cage{Shape: policy.CageWorkspaceWrite, Claimed: true, Why: "writes in the workspace"}
	asked := policy.Decision{Verdict: policy.VerdictAsk, Cage: claim, HumanCage: human}
	askedFile := policy.Decision{Verdict: policy.VerdictAsk} // a file tool: no process, no cage
	for _, c := range []struct {
		name  string
		asked policy.Decision
		final policy.Decision
		want  *policy.Cage
	}{
		{"human yes", asked, policy.Decision{Verdict: policy.VerdictAllow, Layer: policy.LayerHuman, LayerDetail: "window"}, human},
		{"human yes, seat lost the cages", asked, policy.Decision{Verdict: policy.VerdictAllow, Layer: policy.LayerHuman, Source: "human:always"}, human},
		{"standing yes after a restart", asked, policy.Decision{Verdict: policy.VerdictAllow, Layer: policy.LayerHuman, LayerDetail: "before a restart"}, human},
		{"human yes to a file tool", askedFile, policy.Decision{Verdict: policy.VerdictAllow, Layer: policy.LayerHuman}, nil},
		{"reviewer yes", asked, policy.Decision{Verdict: policy.VerdictAllow, Layer: policy.LayerAnswerer, LayerDetail: "test"}, claim},
		{"re-decided allow brings its own", asked, policy.Decision{Verdict: policy.VerdictAllow, Layer: policy.LayerSandbox, Cage: redecided}, redecided},
		{"re-decided allow without one", asked, policy.Decision{Verdict: policy.VerdictAllow, Layer: policy.LayerSandbox}, claim},
		{"human no", asked, policy.Decision{Verdict: policy.VerdictDeny, Layer: policy.LayerHuman, Cage: claim, HumanCage: human}, nil},
		{"reviewer no", asked, policy.Decision{Verdict: policy.VerdictDeny, Layer: policy.LayerAnswerer, Cage: claim}, nil},
		{"no human attached", asked, policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonNoApprover, Cage: claim, HumanCage: human}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := cageOf(c.asked, c.final)
			if got.HumanCage != nil {
				t.Errorf("the outcome still carries a human cage %+v", got.HumanCage)
			}
			if !reflect.DeepEqual(got.Cage, c.want) {
				t.Errorf("cage %v, want %v", got.Cage, c.want)
			}
			if got.Verdict != c.final.Verdict || got.Layer != c.final.Layer {
				t.Errorf("cageOf changed the outcome: %+v", got)
			}
		})
	}
}
