package lineup

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// testDir is a fresh folder outside /tmp (the cage's /tmp is its own).
func testDir(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(base, "warden-lineup-test")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(base, "ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	d, _ = filepath.EvalSymlinks(d)
	return d
}

var (
	cageOnce sync.Once
	cage     *sandbox.Cage
)

func theCage(t *testing.T) *sandbox.Cage {
	t.Helper()
	cageOnce.Do(func() {
		cage = sandbox.New(sandbox.Config{})
		cage.Detect(context.Background())
	})
	if st := cage.Status(); !st.Available {
		t.Fatalf("cage unavailable: %s", st.Reason)
	}
	return cage
}

// human is a scripted human: it answers yes and keeps what it was asked.
type human struct {
	mu   sync.Mutex
	reqs []gate.ApprovalRequest
}

func (h *human) Approve(_ context.Context, r gate.ApprovalRequest) (gate.Approval, error) {
	h.mu.Lock()
	h.reqs = append(h.reqs, r)
	h.mu.Unlock()
	return gate.Approval{Approved: true, Via: gate.ViaCLI}, nil
}

func (h *human) asked() []gate.ApprovalRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]gate.ApprovalRequest(nil), h.reqs...)
}

type rig struct {
	st    *store.Store
	ws    string
	sess  store.Session
	l     *Lineup
	g     *gate.Gate
	human *human
}

func newRig(t *testing.T, cfg Config, approval policy.ApprovalPolicy) *rig {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "w.db")
	st, err := store.Open(ctx, db, storetest.KeyFor(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	r := &rig{st: st, ws: testDir(t), human: &human{}}
	if r.sess, err = st.CreateSession(ctx, store.NewSession{Workspace: r.ws}); err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Cage = st, theCage(t)
	if r.l, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	r.g, err = gate.New(gate.Config{Decider: policy.New(policy.Config{}), Store: st, Approver: r.human, Lineup: r.l.For,
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: r.ws, Approval: approval, Sandbox: sb, Caged: true}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// write runs fs.write of name through the gate.
func (r *rig) write(t *testing.T, name string) gate.Outcome {
	t.Helper()
	out, err := r.g.Call(context.Background(), gate.Request{Tool: tools.NewFsWrite(), Args: json.RawMessage(`{"path":"` + name + `","content":"x"}`),
		Env: tools.Env{SessionID: r.sess.ID}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (r *rig) board(t *testing.T) AnswererRoster {
	t.Helper()
	b, err := r.l.Board(context.Background(), r.sess.ID, r.ws, 20, false)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func wsConfig(t *testing.T, ws, content string) {
	t.Helper()
	_ = os.MkdirAll(filepath.Join(ws, ".warden"), 0o755)
	if err := os.WriteFile(config.WorkspacePath(ws), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const guardConfig = `[[hooks]]
name = "corp-guard"
when = "before"
command = ["./tools/guard.sh"]
timeout = "20s"
`

const guardDeny = `cat >/dev/null; echo '{"answer":"deny","reason":"guard ran"}'`

// A workspace hook runs only once trusted, and only while its config and
// program file are what was trusted: a change leaves it out (the call
// goes through as the engine decided) and the user is asked again (the
// board lists it as changed, asks of the session say so).
func TestWorkspaceHookTrust(t *testing.T) {
	r := newRig(t, Config{}, policy.OnRequest)
	guard := filepath.Join(r.ws, "tools", "guard.sh")
	writeExec(t, guard, guardDeny)
	wsConfig(t, r.ws, guardConfig)

	// Before trust: it does not run; the board asks for trust and shows
	// the program.
	if out := r.write(t, "a.txt"); !out.Invoked {
		t.Fatalf("an untrusted workspace hook ran: %+v", out.Decision)
	}
	b := r.board(t)
	if len(b.Entries) != 1 || b.Entries[0].State != StateUntrusted || len(b.Entries[0].Program) != 1 ||
		!strings.Contains(b.Entries[0].Program[0].Text, "guard ran") || !strings.Contains(b.Entries[0].Note, "until you trust it") {
		t.Fatalf("board %+v", b.Entries)
	}
	e := b.Entries[0]

	// Trusted: it runs and refuses.
	if _, err := r.l.Trust(context.Background(), r.sess.ID, r.ws, RoleHook, "corp-guard", e.ConfigHash, e.ProgramHash); err != nil {
		t.Fatal(err)
	}
	out := r.write(t, "b.txt")
	if out.Invoked || out.Decision.Reason != policy.ReasonHookDenied || out.Decision.LayerDetail != "hook:corp-guard" || out.Decision.Detail != "guard ran" {
		t.Fatalf("trusted hook: %+v", out.Decision)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "b.txt")); err == nil {
		t.Fatal("b.txt was written although the hook refused it")
	}

	// The program file changes: it does not run, and the user is asked
	// again.
	writeExec(t, guard, `cat >/dev/null; echo '{"answer":"allow"}'`)
	if out := r.write(t, "c.txt"); !out.Invoked {
		t.Fatalf("a changed hook ran: %+v", out.Decision)
	}
	b = r.board(t)
	if b.Entries[0].State != StateChanged || !strings.Contains(b.Entries[0].Note, "program file changed since you trusted it") ||
		len(b.Entries[0].Program) != 1 || !strings.Contains(b.Entries[0].Program[0].Text, `"allow"`) {
		t.Fatalf("board after the change %+v", b.Entries)
	}
	// A stale card is refused: the trust is for what the human read.
	if _, err := r.l.Trust(context.Background(), r.sess.ID, r.ws, RoleHook, "corp-guard", e.ConfigHash, e.ProgramHash); err == nil {
		t.Fatal("a trust for the old program was taken")
	}

	// Back to the trusted bytes: it runs again without a new trust.
	writeExec(t, guard, guardDeny)
	if out := r.write(t, "d.txt"); out.Invoked {
		t.Fatal("the trusted bytes did not run")
	}

	// The config entry changes (a tool filter): asked again.
	wsConfig(t, r.ws, guardConfig+"tools = [\"shell.exec\"]\n")
	if out := r.write(t, "e.txt"); !out.Invoked {
		t.Fatal("a hook whose config changed ran")
	}
	if b := r.board(t); b.Entries[0].State != StateChanged || !strings.Contains(b.Entries[0].Note, "changed in the workspace's config") {
		t.Fatalf("board %+v", b.Entries)
	}

	// The trust events are in the log.
	evs, err := r.st.Events(context.Background(), store.EventQuery{SessionID: r.sess.ID, Kinds: []store.Kind{store.KindAnswererTrusted}})
	if err != nil || len(evs) != 1 {
		t.Fatalf("trust events %d %v", len(evs), err)
	}
	if err := r.l.Untrust(context.Background(), r.sess.ID, RoleHook, "corp-guard"); err != nil {
		t.Fatal(err)
	}
}

// A workspace answerer is asked only once trusted; untrusted, its asks go
// to the human, who is told why.
func TestWorkspaceAnswererTrust(t *testing.T) {
	r := newRig(t, Config{}, policy.Always)
	writeExec(t, filepath.Join(r.ws, "ans.sh"), `cat >/dev/null; echo '{"answer":"deny","reason":"the answerer ran"}'`)
	wsConfig(t, r.ws, "[[answerers]]\nkind = \"command\"\nname = \"ws-check\"\ncommand = [\"./ans.sh\"]\ntimeout = \"20s\"\n")
	if out := r.write(t, "a.txt"); !out.Invoked {
		t.Fatalf("%+v", out.Decision)
	}
	asked := r.human.asked()
	if len(asked) != 1 || len(asked[0].Notes) != 1 || !strings.Contains(asked[0].Notes[0], "command answerer `ws-check` comes with this workspace") {
		t.Fatalf("asked %+v", asked)
	}
	if _, err := r.l.Trust(context.Background(), r.sess.ID, r.ws, RoleAnswerer, "ws-check", "", ""); err != nil {
		t.Fatal(err)
	}
	out := r.write(t, "b.txt")
	if out.Invoked || out.Decision.Layer != policy.LayerAnswerer || out.Decision.LayerDetail != "command:ws-check" || out.Decision.Detail != "the answerer ran" {
		t.Fatalf("%+v", out.Decision)
	}
	if len(r.human.asked()) != 1 {
		t.Fatal("the human was asked what the answerer answered")
	}
	b := r.board(t)
	if len(b.Last) != 1 || b.Last[0].Answer != "deny" || b.Last[0].Name != "ws-check" || b.Last[0].Kind != "command" {
		t.Fatalf("last answers %+v", b.Last)
	}
}

// The organisation decides which kinds answer; a user's before-hook that
// cannot run refuses what it covers; a user's answerer that cannot run is
// left out with a note; a workspace file cannot bring a reviewer model.
func TestUserEntries(t *testing.T) {
	userDir := testDir(t)
	writeExec(t, filepath.Join(userDir, "allow.sh"), `cat >/dev/null; echo '{"answer":"allow","reason":"fine"}'`)
	cfg := Config{UserDir: userDir,
		Answerers: []config.AnswererSpec{
			{Kind: config.AnswererCommand, Name: "missing", Command: []string{"./nope.sh"}, Timeout: 20 * time.Second, Tier: config.TierUser},
			{Kind: config.AnswererCommand, Name: "allow", Command: []string{"./allow.sh"}, Timeout: 20 * time.Second, Tier: config.TierUser},
		},
		Hooks: []config.HookSpec{{Name: "gone", When: config.HookBefore, Command: []string{"/no/such/guard"}, Tools: []string{"shell.exec"},
			Timeout: time.Second, Tier: config.TierUser}},
	}
	r := newRig(t, cfg, policy.Always)
	wsConfig(t, r.ws, "[[answerers]]\nkind = \"model\"\nmodel = \"anthropic:x\"\n")
	out := r.write(t, "a.txt")
	if !out.Invoked || out.Decision.LayerDetail != "command:allow" || out.Decision.Source != "answerer:command:allow" {
		t.Fatalf("%+v", out.Decision)
	}
	b := r.board(t)
	states := map[string]State{}
	for _, e := range b.Entries {
		states[e.Role+":"+e.Name] = e.State
	}
	if states["answerer:missing"] != StateBroken || states["answerer:allow"] != StateActive || states["hook:gone"] != StateBroken || states["answerer:"] != StateLeftOut {
		t.Fatalf("states %v", states)
	}
	// The broken hook refuses the tool it covers.
	sh, err := r.g.Call(context.Background(), gate.Request{Tool: tools.NewShellExec(theCage(t)), Args: json.RawMessage(`{"command":"true"}`),
		Env: tools.Env{SessionID: r.sess.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Invoked || sh.Decision.Reason != policy.ReasonHookDenied || !strings.Contains(sh.Decision.Detail, "hook `gone` cannot run") {
		t.Fatalf("%+v", sh.Decision)
	}

	// The organisation allows only the human: the command answerer is
	// left out and the human answers, told why.
	cfg.Allowed = func(kind string) bool { return kind == "human" }
	r2 := newRig(t, cfg, policy.Always)
	if out := r2.write(t, "b.txt"); out.Decision.Layer != policy.LayerHuman {
		t.Fatalf("%+v", out.Decision)
	}
	notes := strings.Join(r2.human.asked()[0].Notes, "\n")
	if !strings.Contains(notes, "your organisation's policy does not allow command answerers") {
		t.Fatalf("notes %q", notes)
	}
}
