package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// cageRun runs script with bash -c in a fresh cage and returns its combined
// output, exit code and violations.
func cageRun(t *testing.T, c *Cage, ws string, pol policy.SandboxPolicy, script string) (string, int, []Violation) {
	t.Helper()
	p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: pol, Args: []string{"bash", "-c", script}})
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	var out bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &out, &out
	err = p.Cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out.String(), code, p.Finish()
}

func newCage(t *testing.T, cfg Config) *Cage {
	t.Helper()
	c := New(cfg)
	if st := c.Detect(context.Background()); !st.Available {
		t.Fatalf("cage unavailable on this machine: %s", st.Reason)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// testDir is a fresh folder outside /tmp (the cage's /tmp is its own),
// removed after the test.
func testDir(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(base, "warden-cage-test")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(base, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+"-")
	if err != nil {
		t.Fatal(err)
	}
	d, err = filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// gitRepo makes a workspace holding a git repository with one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	ws := testDir(t)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.email", "t@example.com"},
		{"config", "user.name", "t"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return ws
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		avail bool
	}{
		{"bwrap on this machine", Config{}, true},
		{"container mode trusts the outer container", Config{Mode: ModeContainer}, true},
		{"missing binary", Config{Bwrap: "/nonexistent/bwrap"}, false},
		{"unknown mode", Config{Mode: "jail"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := New(tc.cfg).Detect(context.Background())
			if st.Available != tc.avail || st.Reason == "" {
				t.Fatalf("Detect = %+v, want available=%v with a reason", st, tc.avail)
			}
		})
	}
}

func TestCagedPolicy(t *testing.T) {
	c := newCage(t, Config{})
	if !c.Caged(policy.SandboxPolicy{Kind: policy.WorkspaceWrite}) || !c.Caged(policy.SandboxPolicy{Kind: policy.ReadOnly}) {
		t.Fatal("WorkspaceWrite and ReadOnly must run caged")
	}
	// Under full access too: a command no human answered runs in the
	// cage its claim shapes (shape.go).
	if !c.Caged(policy.SandboxPolicy{Kind: policy.DangerFullAccess}) {
		t.Fatal("DangerFullAccess must cage what no human answered")
	}
	if New(Config{}).Caged(policy.SandboxPolicy{}) {
		t.Fatal("an undetected cage must not claim to confine")
	}
}

func TestGitCommitWorksInCage(t *testing.T) {
	c := newCage(t, Config{})
	ws := gitRepo(t)
	out, code, v := cageRun(t, c, ws, policy.SandboxPolicy{}, `echo hi > a.txt && git add a.txt && git commit -qm first && git switch -qc feature && git log --oneline | wc -l`)
	if code != 0 || len(v) != 0 {
		t.Fatalf("git commit in cage failed: code=%d out=%s violations=%v", code, out, v)
	}
	log, err := exec.Command("git", "-C", ws, "log", "--format=%s", "feature").Output()
	if err != nil || string(log) != "first\n" {
		t.Fatalf("commit not visible outside: %q %v", log, err)
	}
}

func TestCageProtectedWorktree(t *testing.T) {
	main := gitRepo(t)
	if out, err := exec.Command("git", "-C", main, "commit", "-q", "--allow-empty", "-m", "root").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	wt := filepath.Join(main, "wt")
	if out, err := exec.Command("git", "-C", main, "worktree", "add", "-q", wt).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(wt, "sub", ".envrc"), nil, 0o644); err != nil {
		if err := os.MkdirAll(filepath.Join(wt, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(wt, "sub", ".envrc"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]bool{}
	for _, p := range CageProtected([]string{wt, main}, nil) {
		got[p.Path] = true
	}
	for _, want := range []string{
		filepath.Join(main, ".git", "worktrees", "wt", "commondir"),
		filepath.Join(main, ".git", "hooks"),
		filepath.Join(main, ".git", "config"),
		filepath.Join(main, ".git", "info"),
		filepath.Join(wt, ".git"), // a gitdir: file
		filepath.Join(wt, "sub", ".envrc"),
	} {
		if !got[want] {
			t.Errorf("CageProtected misses %s (got %v)", want, got)
		}
	}
	// A root outside every writable root is left to the read-only root.
	if ps := CageProtected([]string{wt}, []string{"/etc/warden"}); len(ps) == 0 || got["/etc/warden"] {
		t.Errorf("extra path outside the roots must be left out: %v", ps)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		name, root, p string
		want          bool
	}{
		{"same", "/a/b", "/a/b", true},
		{"child", "/a/b", "/a/b/c", true},
		{"sibling prefix", "/a/b", "/a/bc", false},
		{"parent", "/a/b", "/a", false},
		{"root", "/", "/x", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Within(tc.root, tc.p); got != tc.want {
				t.Fatalf("Within(%q,%q)=%v", tc.root, tc.p, got)
			}
		})
	}
}

func TestGitCommitInAWorktreeCage(t *testing.T) {
	c := newCage(t, Config{})
	main := gitRepo(t)
	if out, err := exec.Command("git", "-C", main, "commit", "-q", "--allow-empty", "-m", "root").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	wt := filepath.Join(testDir(t), "wt")
	if out, err := exec.Command("git", "-C", main, "worktree", "add", "-q", "-b", "side", wt).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	wt, _ = filepath.EvalSymlinks(wt)
	pol := policy.SandboxPolicy{WritableRoots: []string{main}}
	out, code, v := cageRun(t, c, wt, pol, `echo x > f && git add f && git commit -qm in-cage && echo evil > "$(git rev-parse --git-common-dir)/hooks/post-commit"; git config core.pager evil`)
	if code == 0 || len(v) != 0 {
		t.Fatalf("the hook or config write should fail, the commit succeed: code=%d out=%s v=%v", code, out, v)
	}
	log, err := exec.Command("git", "-C", main, "log", "--format=%s", "side").Output()
	if err != nil || string(log) != "in-cage\nroot\n" {
		t.Fatalf("commit in the worktree: %q %v (%s)", log, err, out)
	}
	if _, err := os.Lstat(filepath.Join(main, ".git", "hooks", "post-commit")); err == nil {
		t.Fatal("hook planted through the worktree's common dir")
	}
	if b, _ := os.ReadFile(filepath.Join(main, ".git", "config")); strings.Contains(string(b), "evil") {
		t.Fatal("config changed through the worktree")
	}
}

func TestContainerModeTrustsTheOuterBoundary(t *testing.T) {
	c := newCage(t, Config{Mode: ModeContainer})
	ws := gitRepo(t)
	pol := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	if !c.Caged(pol) {
		t.Fatal("container mode must report caged to the policy")
	}
	p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: pol, Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Confined || p.Argv[0] != "true" {
		t.Fatalf("container mode must not wrap the command: %v", p.Argv)
	}
}

func TestPrepareRefusesBadSpecs(t *testing.T) {
	c := newCage(t, Config{})
	tests := []struct {
		name string
		spec Spec
	}{
		{"empty command", Spec{Workspace: "/tmp"}},
		{"relative workspace", Spec{Workspace: "ws", Args: []string{"true"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.Prepare(context.Background(), tc.spec); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
