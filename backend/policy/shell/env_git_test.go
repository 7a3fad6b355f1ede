package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestQuietEnvKeepsGitStatusReadOnly asserts on the outside world: in a
// repository whose index is stale, real `git status` rewrites .git/index,
// and with the environment the classification names for it, it does not.
func TestQuietEnvKeepsGitStatusReadOnly(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is part of the machine: %v", err)
	}
	c := Classify("git status", testCwd)
	if c.Class != ClassReadOnly || len(c.Env) == 0 {
		t.Fatalf("git status: %s, env %q", c.Class, c.Env)
	}
	indexChanged := func(env []string) bool {
		dir := t.TempDir()
		run := func(args ...string) {
			cmd := exec.Command(git, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
		run("init", "-q")
		f := filepath.Join(dir, "a.txt")
		if err := os.WriteFile(f, []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		run("add", "a.txt")
		run("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "a")
		// A new mtime with the same content leaves the index's stat data
		// stale: git status refreshes it unless optional locks are off.
		later := time.Now().Add(2 * time.Second)
		if err := os.Chtimes(f, later, later); err != nil {
			t.Fatal(err)
		}
		index := filepath.Join(dir, ".git", "index")
		before, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(git, "status", "--porcelain")
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git status: %v %s", err, out)
		}
		after, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		return string(before) != string(after)
	}
	if !indexChanged(nil) {
		t.Fatal("plain git status left a stale index as it was: the test cannot tell the environment's effect")
	}
	if indexChanged(c.Env) {
		t.Errorf("git status with %q rewrote .git/index", c.Env)
	}
}
