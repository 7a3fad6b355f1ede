package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

var ww = policy.SandboxPolicy{Kind: policy.WorkspaceWrite}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// listing is every path below ws, relative, sorted: what `ls -aR` shows.
func listing(t *testing.T, ws string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(ws, func(p string, fi os.FileInfo, err error) error {
		if err == nil && p != ws {
			rel, _ := filepath.Rel(ws, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func TestProtectedNamesAtDepthAreRemovedAndReported(t *testing.T) {
	c := newCage(t, Config{})
	names := readLines(t, "testdata/depth_names.txt")
	for _, mode := range []string{"written in place", "moved in from /tmp", "extracted from a tar"} {
		t.Run(mode, func(t *testing.T) {
			ws := gitRepo(t)
			var script strings.Builder
			prefix := ""
			if mode != "written in place" {
				prefix = "/tmp/staging/"
			}
			for _, n := range names {
				dir := n
				if !strings.HasSuffix(n, "/") {
					dir = filepath.Dir(n)
				}
				fmt.Fprintf(&script, "mkdir -p %q; ", prefix+dir)
				if !strings.HasSuffix(n, "/") {
					fmt.Fprintf(&script, "echo evil > %q; ", prefix+n)
				}
			}
			switch mode {
			case "moved in from /tmp":
				script.WriteString("for d in /tmp/staging/*; do mv \"$d\" .; done")
			case "extracted from a tar":
				script.WriteString("tar -C /tmp/staging -cf /tmp/s.tar . && tar -xf /tmp/s.tar")
			}
			out, _, v := cageRun(t, c, ws, ww, script.String())
			reported := map[string]bool{}
			for _, x := range v {
				reported[x.Path] = true
			}
			for _, n := range names {
				p := filepath.Join(ws, strings.TrimSuffix(n, "/"))
				if exists(p) {
					t.Errorf("%s exists after the call", n)
				}
				// The outermost protected component is what is reported.
				found := false
				for r := range reported {
					found = found || Within(r, p)
				}
				if !found {
					t.Errorf("%s not reported (%d violations, output %s)", n, len(v), out)
				}
			}
		})
	}
}

func TestGitInitAndCloneWorkInTheCage(t *testing.T) {
	c := newCage(t, Config{})
	ws := gitRepo(t)
	out, code, v := cageRun(t, c, ws, ww, `set -e
git init -q -b main inner && cd inner && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m one && cd ..
git clone -q inner cloned && git -C cloned log --format=%s`)
	if code != 0 || len(v) != 0 || strings.TrimSpace(out) != "one" {
		t.Fatalf("git init/clone in the cage: code=%d out=%s violations=%v", code, out, v)
	}
	b, err := exec.Command("git", "-C", filepath.Join(ws, "cloned"), "config", "--get", "remote.origin.url").Output()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(b)), "inner") {
		t.Fatalf("the clone's remote did not survive: %q %v", b, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(ws, "inner", ".git", "hooks")); len(ents) == 0 {
		t.Fatal("git init's sample hooks were removed")
	}
}

// Nothing the user did not ask for appears in the workspace, seen from
// inside the call, from outside while it runs, and after it.
func TestNothingStrayInTheWorkspace(t *testing.T) {
	c := newCage(t, Config{})
	ws := gitRepo(t)
	before := listing(t, ws)
	fifo := filepath.Join(testDir(t), "go")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Fatal(err)
	}
	p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: ww,
		Args: []string{"bash", "-c", `ls -A; echo ---; git status --porcelain --ignored --untracked-files=all; echo ---; cat ` + fifo}})
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	p.Cmd.Stdout, p.Cmd.Stderr = &buf, &buf
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The call is running (it blocks on the fifo): look from outside.
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	during := listing(t, ws)
	st, _ := exec.Command("git", "-C", ws, "status", "--porcelain", "--ignored", "--untracked-files=all").Output()
	f.Close()
	_ = p.Cmd.Wait()
	v := p.Finish()
	if strings.Join(during, "\n") != strings.Join(before, "\n") || len(st) != 0 {
		t.Fatalf("the workspace changed during the call:\nbefore %v\nduring %v\ngit status %q", before, during, st)
	}
	if inside := buf.String(); inside != ".git\n---\n---\n" || len(v) != 0 {
		t.Fatalf("inside the cage ls -A / git status showed %q, violations %v", inside, v)
	}
	if after := listing(t, ws); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("the workspace changed after the call:\nbefore %v\nafter %v", before, after)
	}
}

func TestConcurrentCallsInOneWorkspace(t *testing.T) {
	c := newCage(t, Config{})
	ws := gitRepo(t)
	if out, err := exec.Command("bash", "-c", "cd "+ws+" && mkdir -p sub/.vscode && echo 1 > .envrc && echo x > a && git add -A && git -c user.name=t -c user.email=t@e commit -qm base").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			script := fmt.Sprintf("ls -A >/dev/null && git status --porcelain >/dev/null && cat .envrc >/dev/null && echo %d > out%d && sleep 0.2", i, i)
			if i%4 == 0 {
				script = "git status --porcelain >/dev/null"
			}
			out, code, v := cageRun(t, c, ws, ww, script)
			if code != 0 || len(v) != 0 {
				errs <- fmt.Sprintf("call %d: code=%d out=%s violations=%v", i, code, out, v)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	st, _ := exec.Command("git", "-C", ws, "status", "--porcelain").Output()
	for _, l := range strings.Split(strings.TrimSpace(string(st)), "\n") {
		if !strings.HasPrefix(l, "?? out") {
			t.Errorf("unexpected entry after concurrent calls: %q", l)
		}
	}
}

// The watch removes what the call planted while the call still runs; a
// caged process that swaps a folder for a symlink to a folder outside,
// again and again, must not make Warden remove a file there.
func TestWatchNeverRemovesThroughASymlink(t *testing.T) {
	c := newCage(t, Config{})
	ws := gitRepo(t)
	outside := testDir(t)
	victim := filepath.Join(outside, ".bashrc")
	if err := os.WriteFile(victim, []byte("the user's own"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`for i in $(seq 40); do mkdir -p d/e && : > d/.bashrc && : > d/e/.envrc; rm -rf d; ln -s %q d; rm d; mv -T x d 2>/dev/null; mkdir -p x; : > x/.profile; mv x y; ln -s %q x; rm x; rm -rf y; done; exit 0`, outside, outside)
	_, _, v := cageRun(t, c, ws, ww, script)
	if b, err := os.ReadFile(victim); err != nil || string(b) != "the user's own" {
		t.Fatalf("a file outside the workspace was removed or changed through a swapped symlink: %q %v", b, err)
	}
	for _, n := range []string{"d", "x", "y"} {
		for _, p := range []string{".bashrc", "e/.envrc", ".profile"} {
			if exists(filepath.Join(ws, n, p)) {
				t.Errorf("%s/%s survived", n, p)
			}
		}
	}
	if len(v) == 0 {
		t.Fatal("no violation reported")
	}
}
