package assemble

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

type toolFile struct {
	path, content string
	exec          bool
}

type toolCase struct {
	name, setup string
	files       []toolFile
	via         []string
	probe       []string
}

func readToolCases(t *testing.T) []toolCase {
	t.Helper()
	var out []toolCase
	for _, c := range readCaseFile(t, "testdata/gitdirs_by_tools.txt", "setup", "files", "via", "probe") {
		tc := toolCase{name: c.name, setup: c.text("setup"), files: c.files()}
		if v := c.sections["via"]; len(v) > 0 {
			tc.via = strings.Fields(v[len(v)-1])
		}
		for _, l := range c.sections["probe"] {
			tc.probe = append(tc.probe, strings.TrimSpace(l))
		}
		out = append(out, tc)
	}
	if len(out) < 15 {
		t.Fatalf("only %d cases", len(out))
	}
	return out
}

// gitRunOutside runs git the way a user would, unconfined: status (the
// fsmonitor), a commit (pre-commit) and a checkout (post-checkout).
func gitRunOutside(home, dir string) {
	if _, err := os.Stat(dir); err != nil {
		return
	}
	for _, args := range [][]string{{"status", "--short"}, {"commit", "-q", "--allow-empty", "-m", "probe"}, {"checkout", "-q", "-b", "probe"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		_ = cmd.Run()
	}
}

// newPatch is a unified diff creating every file.
func newPatch(files []toolFile) string {
	var b strings.Builder
	for _, f := range files {
		mode := "100644"
		if f.exec {
			mode = "100755"
		}
		fmt.Fprintf(&b, "diff --git a/%[1]s b/%[1]s\nnew file mode %[2]s\n--- /dev/null\n+++ b/%[1]s\n", f.path, mode)
		lines := strings.SplitAfter(f.content, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) == 0 {
			continue // an empty file: the header alone
		}
		fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", len(lines))
		for _, l := range lines {
			b.WriteString("+" + l)
			if !strings.HasSuffix(l, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

// shellScript writes every file from a caged command.
func shellScript(files []toolFile) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "mkdir -p %q && echo %s | base64 -d > %q", filepath.Dir(f.path), base64.StdEncoding.EncodeToString([]byte(f.content)), f.path)
		if f.exec {
			fmt.Fprintf(&b, " && chmod +x %q", f.path)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A repository made by a call — in any folder or at the workspace root,
// by fs.write, patch.apply or a shell command — never makes git, run
// there afterwards outside the cage, run a command: the call's changes are
// reverted from its checkpoint before it returns (or, in the cage, removed
// when it ends), the model is told and the event is in the session. The
// same files written without the gate make git run the command.
func TestRepositoriesMadeByToolsDoNotRunOutside(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	g, err := Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Headless: true, NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.CageStatus.Available {
		t.Fatalf("the cage must work here: %s", g.CageStatus.Reason)
	}
	for _, tc := range readToolCases(t) {
		vias := tc.via
		if len(vias) == 0 {
			vias = []string{"fs.write", "patch.apply", "shell"}
		}
		for _, via := range append([]string{"direct"}, vias...) {
			t.Run(tc.name+"/"+via, func(t *testing.T) {
				ws, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				out := t.TempDir()
				mark := filepath.Join(out, "mark")
				for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
					if b, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
						t.Fatalf("git %v: %v %s", args, err, b)
					}
				}
				if tc.setup != "" {
					cmd := exec.Command("bash", "-c", tc.setup)
					cmd.Dir = ws
					cmd.Env = append(os.Environ(), "HOME="+out, "MARK="+mark)
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("setup: %v %s", err, b)
					}
				}
				files := make([]toolFile, len(tc.files))
				for i, f := range tc.files {
					files[i] = f
					files[i].content = strings.ReplaceAll(f.content, "$MARK", mark)
				}
				var results []string
				var events []store.StoredEvent
				if via == "direct" {
					for _, f := range files {
						p := filepath.Join(ws, f.path)
						if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
							t.Fatal(err)
						}
						mode := os.FileMode(0o644)
						if f.exec {
							mode = 0o755
						}
						if err := os.WriteFile(p, []byte(f.content), mode); err != nil {
							t.Fatal(err)
						}
					}
				} else {
					never := policy.Never
					sess, err := g.Store.CreateSession(ctx, store.NewSession{Workspace: ws, Title: tc.name,
						Approval: never, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}})
					if err != nil {
						t.Fatal(err)
					}
					call := func(name string, args any) {
						tool, ok := g.Tool(name)
						if !ok {
							t.Fatalf("no tool %s", name)
						}
						raw, _ := json.Marshal(args)
						s := policy.Session{Workspace: ws, Approval: never, Sandbox: sess.Sandbox, Caged: true}
						res, err := g.Gate.Call(ctx, gate.Request{Tool: tool, Args: raw,
							Env:     tools.Env{SessionID: sess.ID, Workspace: ws, Sandbox: sess.Sandbox},
							Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil }})
						if err != nil {
							t.Fatal(err)
						}
						var text strings.Builder
						for _, c := range res.Result.Content {
							text.WriteString(c.Text)
						}
						results = append(results, fmt.Sprintf("%s %s: %s", name, res.Decision.Verdict, text.String()))
					}
					switch via {
					case "fs.write":
						for _, f := range files {
							call("fs.write", map[string]any{"path": f.path, "content": f.content, "create_dirs": true})
						}
					case "patch.apply":
						call("patch.apply", map[string]any{"patch": newPatch(files)})
					case "shell":
						call("shell.exec", map[string]any{"command": shellScript(files)})
					}
					events, err = g.Store.Events(ctx, store.EventQuery{SessionID: sess.ID, Kinds: []store.Kind{store.KindUnsafeChangeReverted}})
					if err != nil {
						t.Fatal(err)
					}
				}
				for _, d := range append([]string{"."}, tc.probe...) {
					gitRunOutside(out, filepath.Join(ws, d))
				}
				_, err = os.Stat(mark)
				ran := err == nil
				if via == "direct" {
					if !ran {
						t.Fatal("the files written without the gate do not make git run the command: the case proves nothing")
					}
					return
				}
				if ran {
					t.Fatalf("git outside ran a command from a repository the call made:\n%s", strings.Join(results, "\n"))
				}
				// The model and the human are told (the cage tells a shell
				// command's result itself, as a sandbox violation).
				joined := strings.Join(results, "\n")
				if via != "shell" && (len(events) == 0 || !strings.Contains(joined, "reverted")) {
					t.Fatalf("no unsafe_change_reverted event (%d) or note in the result:\n%s", len(events), joined)
				}
				// In the cage a held path is read-only (the write fails) or a
				// new one is removed when the command ends (a violation).
				if via == "shell" && len(events) == 0 && !strings.Contains(joined, "sandbox violation") && !strings.Contains(joined, "removed") &&
					!strings.Contains(joined, "Read-only file system") {
					t.Fatalf("the shell command's result does not say what was removed:\n%s", joined)
				}
			})
		}
	}
}
