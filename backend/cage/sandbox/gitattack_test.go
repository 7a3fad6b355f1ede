package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// gitAttack is one case of testdata/git_attacks.txt or one of the class
// files (gitAttackFiles).
type gitAttack struct {
	name, setup, attack string
	probe               []string
	trigger             []string // commands run outside afterwards, in the workspace
}

// gitAttackFiles are the case files, one per class of git reader, with
// the fewest cases each must hold.
var gitAttackFiles = []struct {
	file string
	min  int
}{
	{"git_attacks.txt", 10},
	{"git_discovery.txt", 15},   // a gitdir made in any folder or at the root, by any name
	{"git_hookspath.txt", 15},   // core.hooksPath into the workspace
	{"git_include.txt", 15},     // include and includeIf targets
	{"git_hooklinks.txt", 15},   // hooks that are links into the workspace
	{"git_sequencer.txt", 15},   // sequencer state
	{"git_subworktree.txt", 15}, // submodules and linked worktrees
}

func readGitAttacks(t *testing.T, file string, min int) []gitAttack {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
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
		case section == "trigger":
			cur.trigger = append(cur.trigger, strings.TrimSpace(line))
		}
	}
	if len(out) < min {
		t.Fatalf("only %d git attacks read from %s, want at least %d", len(out), file, min)
	}
	return out
}

// attackPrelude defines the helpers the cases use. evilbare DIR WT makes a
// gitdir at DIR, under any name, whose worktree is WT (relative to DIR):
// git discovers it from DIR and runs its fsmonitor and hooks. evilscript
// FILE writes a script that touches $MARK.
const attackPrelude = `
hook() { mkdir -p "$(dirname "$1")"; printf '#!/bin/sh\ntouch %s\n' "$MARK" > "$1"; chmod +x "$1"; }
evilscript() { hook "$1"; }
evilgit() {
	mkdir -p "$1/objects" "$1/refs/heads"
	echo "ref: refs/heads/main" > "$1/HEAD"
	printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch %s\n' "$MARK" > "$1/config"
	hook "$1/hooks/pre-commit"; hook "$1/hooks/post-checkout"
}
evilbare() {
	evilgit "$1"
	printf '\tworktree = %s\n' "$2" >> "$1/config"
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
		o, _ := cmd.CombinedOutput() // a broken repository may refuse; what matters is the marker
		if os.Getenv("DEBUG_GIT") != "" {
			t.Logf("git %v in %s: %s", args, dir, o)
		}
		_ = i
	}
}

// gitTrigger runs a case's own commands outside, the way a user would.
func gitTrigger(t *testing.T, home, dir string, cmds []string) {
	t.Helper()
	for _, c := range cmds {
		cmd := exec.Command("bash", "-c", c)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		_ = cmd.Run()
	}
}

func TestGitAttacksDoNotRunOutside(t *testing.T) {
	c := newCage(t, Config{})
	// Every case of every class, each caged and unconfined (the control),
	// runs at once up to attackWorkers: a run's time is mostly process
	// start-up, which overlaps well. Results are reported per case below.
	type run struct {
		ws, out, mark string
		output        []byte
		violations    []Violation
		err           error
	}
	type entry struct {
		file string
		tc   gitAttack
		runs map[bool]*run
	}
	var all []*entry
	for _, f := range gitAttackFiles {
		for _, tc := range readGitAttacks(t, f.file, f.min) {
			e := &entry{file: f.file, tc: tc, runs: map[bool]*run{}}
			for _, caged := range []bool{false, true} {
				r := &run{ws: gitRepo(t), out: testDir(t)}
				r.mark = filepath.Join(r.out, "mark")
				e.runs[caged] = r
			}
			all = append(all, e)
		}
	}
	sem := make(chan struct{}, attackWorkers)
	var wg sync.WaitGroup
	for _, e := range all {
		for caged, r := range e.runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				r.err = attackOnce(t, c, e.tc, r.ws, r.out, r.mark, caged, &r.output, &r.violations)
			}()
		}
	}
	wg.Wait()
	for _, e := range all {
		t.Run(strings.TrimSuffix(e.file, ".txt")+"/"+e.tc.name, func(t *testing.T) {
			for _, caged := range []bool{false, true} {
				r := e.runs[caged]
				if r.err != nil {
					t.Fatalf("caged=%v: %v", caged, r.err)
				}
				_, err := os.Stat(r.mark)
				switch {
				case caged && err == nil:
					t.Fatalf("git outside the cage ran a command planted in the cage\noutput: %s\nviolations: %v", r.output, r.violations)
				case !caged && err != nil:
					t.Fatalf("the attack does not work even unconfined, so the caged run proves nothing: %s", r.output)
				}
				if caged {
					t.Logf("violations: %v", r.violations)
				}
			}
		})
	}
}

// attackWorkers bounds the runs at once (each caged one holds an inotify
// instance, of which a user has 128 by default).
const attackWorkers = 8

// attackOnce sets a case up in ws, runs its attack (caged, or unconfined
// as the control) and then git outside, as the user would.
func attackOnce(t *testing.T, c *Cage, tc gitAttack, ws, out, mark string, caged bool, output *[]byte, violations *[]Violation) error {
	if tc.setup != "" {
		cmd := exec.Command("bash", "-c", tc.setup)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "HOME="+out, "OUT="+out, "MARK="+mark, "GIT_CONFIG_NOSYSTEM=1", "GIT_EDITOR=true",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("setup: %v %s", err, b)
		}
	}
	pol := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	var shape *policy.Cage
	if !caged {
		// Truly unconfined: a human's answer under full access still
		// holds the protected set (the host shape).
		pol.Kind, shape = policy.DangerFullAccess, &policy.Cage{Shape: policy.CageNone}
	}
	p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: pol, Env: map[string]string{"MARK": mark, "OUT": out,
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"},
		Args: []string{"bash", "-c", attackPrelude + tc.attack}, Shape: shape})
	if err != nil {
		return err
	}
	*output, _ = p.Cmd.CombinedOutput()
	*violations = p.Finish()
	for _, d := range append([]string{"."}, tc.probe...) {
		gitOutside(t, out, filepath.Join(ws, d))
	}
	gitTrigger(t, out, ws, tc.trigger)
	return nil
}
