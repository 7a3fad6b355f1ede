package sandbox

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// gitAttack is one case of testdata/git_attacks.txt.
type gitAttack struct {
	name, setup, attack string
	probe               []string
}

func readGitAttacks(t *testing.T) []gitAttack {
	t.Helper()
	f, err := os.Open("testdata/git_attacks.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []gitAttack
	var cur *gitAttack
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== "):
			out = append(out, gitAttack{name: strings.TrimPrefix(line, "=== ")})
			cur, section = &out[len(out)-1], ""
		case strings.HasPrefix(line, "--- "):
			section = strings.TrimPrefix(line, "--- ")
		case cur == nil || strings.TrimSpace(line) == "":
		case section == "setup":
			cur.setup += line + "\n"
		case section == "attack":
			cur.attack += line + "\n"
		case section == "probe":
			cur.probe = append(cur.probe, strings.TrimSpace(line))
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d git attacks read", len(out))
	}
	return out
}

// attackPrelude defines the helpers the cases use.
const attackPrelude = `
hook() { mkdir -p "$(dirname "$1")"; printf '#!/bin/sh\ntouch %s\n' "$MARK" > "$1"; chmod +x "$1"; }
evilgit() {
	mkdir -p "$1/objects" "$1/refs/heads"
	echo "ref: refs/heads/main" > "$1/HEAD"
	printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch %s\n' "$MARK" > "$1/config"
	hook "$1/hooks/pre-commit"; hook "$1/hooks/post-checkout"
}
`

// gitOutside runs the probe battery the way a user would, unconfined:
// status (fsmonitor), a commit (pre-commit, commit-msg, post-commit), a
// checkout (post-checkout) and a push to origin when there is one.
func gitOutside(t *testing.T, home, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		return
	}
	for i, args := range [][]string{
		{"status", "--short"},
		{"commit", "-q", "--allow-empty", "-m", "probe"},
		{"checkout", "-q", "-b", "probe-branch"},
		// pre-push here; a local remote's pre-receive, update, post-receive.
		{"push", "-q", "origin", "HEAD:refs/heads/probe"},
	} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		_ = cmd.Run() // a broken repository may refuse; what matters is the marker
		_ = i
	}
}

func TestGitAttacksDoNotRunOutside(t *testing.T) {
	c := newCage(t, Config{})
	for _, tc := range readGitAttacks(t) {
		t.Run(tc.name, func(t *testing.T) {
			for _, caged := range []bool{false, true} {
				ws := gitRepo(t)
				out := testDir(t)
				mark := filepath.Join(out, "mark")
				if tc.setup != "" {
					cmd := exec.Command("bash", "-c", tc.setup)
					cmd.Dir = ws
					cmd.Env = append(os.Environ(), "HOME="+out, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("setup: %v %s", err, b)
					}
				}
				pol := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
				var shape *policy.Cage
				if !caged {
					// Truly unconfined: a human's answer under full access
					// still holds the protected set (the host shape).
					pol.Kind, shape = policy.DangerFullAccess, &policy.Cage{Shape: policy.CageNone}
				}
				p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: pol, Env: map[string]string{"MARK": mark},
					Args: []string{"bash", "-c", attackPrelude + tc.attack}, Shape: shape})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := p.Cmd.CombinedOutput()
				v := p.Finish()
				for _, d := range append([]string{"."}, tc.probe...) {
					gitOutside(t, out, filepath.Join(ws, d))
				}
				_, err = os.Stat(mark)
				switch {
				case caged && err == nil:
					t.Fatalf("git outside the cage ran a command planted in the cage\noutput: %s\nviolations: %v", b, v)
				case !caged && err != nil:
					t.Fatalf("the attack does not work even unconfined, so the caged run proves nothing: %s", b)
				}
				if caged {
					t.Logf("violations: %v", v)
				}
			}
		})
	}
}
