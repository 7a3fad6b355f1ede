package checkpoint

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// world is a real workspace, a real store, the real gate over the real
// engine and the cage, with the checkpoint hook installed under the gate.
type world struct {
	ws, root, outside string
	st                *store.Store
	tr                *Tracker
	reg               *tools.Registry
	sess              store.Session
	cage              *sandbox.Cage
	approval          policy.ApprovalPolicy
}

type human struct{ yes bool }

func (h human) Approve(context.Context, gate.ApprovalRequest) (gate.Approval, error) {
	return gate.Approval{Approved: h.yes}, nil
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{ws: ws, root: filepath.Join(t.TempDir(), "checkpoints"), outside: t.TempDir(), approval: policy.OnRequest}
	dbp := filepath.Join(t.TempDir(), "warden.db")
	if w.st, err = store.Open(ctx, dbp, storetest.KeyFor(dbp)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.st.Close() })
	w.cage = sandbox.New(sandbox.Config{})
	if s := w.cage.Detect(ctx); !s.Available {
		t.Fatalf("the cage must work on this machine: %s", s.Reason)
	}
	t.Cleanup(func() { _ = w.cage.Close() })
	mons := tools.NewMonitors(w.cage)
	t.Cleanup(mons.Close)
	raw, err := tools.Builtins(w.cage, mons, "")
	if err != nil {
		t.Fatal(err)
	}
	w.tr, err = New(Config{Store: w.st, Root: func(string) string { return w.root }, Caged: w.cage.Caged})
	if err != nil {
		t.Fatal(err)
	}
	w.reg = raw
	w.sess, err = w.st.CreateSession(ctx, store.NewSession{Workspace: ws, Approval: policy.OnRequest, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// call runs one tool call through the gate; ap is the human (nil: none).
func (w *world) call(t *testing.T, name string, args any, ap gate.Approver) gate.Outcome {
	t.Helper()
	ctx := context.Background()
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	g, err := gate.New(gate.Config{
		Decider:    policy.New(policy.Config{ProtectedPaths: []string{w.root}}),
		Approver:   ap,
		Journal:    w.st,
		Checkpoint: w.tr,
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: w.ws, Approval: w.approval, Sandbox: sb, Caged: w.cage.Caged(sb)}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tool, ok := w.reg.Get(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	b, _ := json.Marshal(args)
	out, err := g.Call(ctx, gate.Request{Tool: tool, Args: b, Env: tools.Env{SessionID: w.sess.ID}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !out.Invoked {
		t.Fatalf("%s was not run: %s", name, resultText(out.Result))
	}
	return out
}

func (w *world) shell(t *testing.T, cmd string, ap gate.Approver) gate.Outcome {
	t.Helper()
	return w.call(t, "shell.exec", map[string]any{"command": cmd}, ap)
}

// change returns the change set recorded for a call.
func (w *world) change(t *testing.T, callID string) Change {
	t.Helper()
	all, err := w.tr.Changes(context.Background(), w.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		if c.CallID == callID {
			return c
		}
	}
	t.Fatalf("no change set for %s among %d", callID, len(all))
	return Change{}
}

// message appends a chat message and returns its id.
func (w *world) message(t *testing.T, id, text string) string {
	t.Helper()
	if _, err := w.st.Append(context.Background(), w.sess.ID, store.AnyVersion, store.MessageAppended{MessageID: id, Role: "user", Text: text}); err != nil {
		t.Fatal(err)
	}
	return id
}

func resultText(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// userRepo makes ws a git repository of the user's with one commit and a
// hook that, if anything ever ran it, would leave a file in marker.
func userRepo(t *testing.T, ws, marker string) {
	t.Helper()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", ws}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	run("config", "user.email", "u@example.com")
	run("config", "user.name", "u")
	hook := "#!/bin/sh\necho ran >> " + marker + "\n"
	for _, h := range []string{"pre-commit", "post-checkout", "post-index-change", "fsmonitor-watchman", "reference-transaction"} {
		if err := os.WriteFile(filepath.Join(ws, ".git", "hooks", h), []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	run("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "init")
	if err := os.Remove(marker); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// sampleTree writes a tree with text, binary, executable, symlink, nested,
// and a name with spaces and unicode.
func sampleTree(t *testing.T, ws string) {
	t.Helper()
	writeTree(t, ws, map[string]string{
		"src/main.go":            "package main\n\nfunc main() {}\n",
		"src/lib/util.go":        "package lib\n",
		"src/lib/deep/x/y/z.txt": "deep\n",
		"src/with space é.txt":   "unicode\n",
		"src/empty.txt":          "",
		"README.md":              "# readme\n",
		".gitignore":             "ignored.log\n",
	})
	bin := make([]byte, 70000)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "blob.bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"src/link": "main.go", "src/dangling": "nowhere", "src/lib/up": "../README.md"} {
		if err := os.Symlink(target, filepath.Join(ws, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
}
