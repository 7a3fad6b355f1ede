package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// shapeWorld is a workspace (a git repository), a folder outside it, and
// a home folder with the user's own files, secrets and caches, for one
// cage whose Home it is.
type shapeWorld struct {
	ws, out, home string
	c             *Cage
}

func newShapeWorld(t *testing.T) *shapeWorld {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", "")
	w := &shapeWorld{ws: gitRepo(t), out: testDir(t), home: testDir(t)}
	for rel, body := range map[string]string{
		".bashrc": "# user's\n", ".gitconfig": "[user]\n", ".ssh/id_ed25519": "SECRET\n",
		".cache/go-build/README": "user's go cache\n", ".npm/_cacache/index": "user's npm cache\n",
		".cargo/registry/index/x/config.json": "{}\n", ".cargo/registry/cache/x/a-1.0.crate": "crate\n",
		".cache/warden/playwright-driver/cli.js": "driver\n", ".local/bin/tool": "#!/bin/sh\n",
		".config/git/config": "[core]\n",
	} {
		p := filepath.Join(w.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.c = newCage(t, Config{Home: w.home})
	return w
}

func (w *shapeWorld) run(t *testing.T, shape policy.Cage, script string) (string, int, *Prepared) {
	t.Helper()
	pol := policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	p, err := w.c.Prepare(context.Background(), Spec{Workspace: w.ws, Policy: pol, Shape: &shape,
		Env: map[string]string{"WS": w.ws, "OUT": w.out, "H": w.home}, Args: []string{"bash", "-c", script}})
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	var buf bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &buf, &buf
	err = p.Cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run: %v", err)
	}
	p.Finish()
	return buf.String(), code, p
}

// TestCageShapesHold runs the same writes in every shape and checks the
// host afterwards: what each shape lets through and what it holds.
func TestCageShapesHold(t *testing.T) {
	ro := policy.Cage{Shape: policy.CageReadOnly, Claimed: true}
	ww := policy.Cage{Shape: policy.CageWorkspaceWrite, Claimed: true}
	full := policy.Cage{Shape: policy.CageFullAccess, Claimed: true}
	host := policy.Cage{Shape: policy.CageHost}
	none := policy.Cage{Shape: policy.CageNone}
	tests := []struct {
		name   string
		script string // writes $TARGET
		target string // relative to ws, or $OUT/$H prefixed
		// lands: per shape, whether the write reaches the host.
		ro, ww, full, host, none bool
	}{
		{"a workspace file", `echo x > "$WS/made.txt"`, "ws:made.txt", false, true, true, true, true},
		{"a folder outside the workspace", `echo x > "$OUT/made.txt"`, "out:made.txt", false, false, true, true, true},
		{"a new git hook", `mkdir -p "$WS/.git/hooks" && printf '#!/bin/sh\n' > "$WS/.git/hooks/pre-commit"`, "ws:.git/hooks/pre-commit", false, false, false, false, true},
		{"the repository's config", `git -C "$WS" config core.fsmonitor "touch /x"`, "ws:.git/config#fsmonitor", false, false, false, false, true},
		{"a new .envrc", `echo 'eval x' > "$WS/.envrc"`, "ws:.envrc", false, false, false, false, true},
		{"the user's .bashrc", `echo 'evil' >> "$H/.bashrc"`, "home:.bashrc#evil", false, false, false, true, true},
		{"the user's git config", `echo '[alias] x = !evil' >> "$H/.gitconfig"`, "home:.gitconfig#evil", false, false, false, true, true},
		{"~/.local/bin", `echo evil > "$H/.local/bin/tool"`, "home:.local/bin/tool#evil", false, false, false, true, true},
		{"~/.config/git", `echo evil > "$H/.config/git/config"`, "home:.config/git/config#evil", false, false, false, true, true},
		{"the user's go build cache", `echo evil > "$H/.cache/go-build/README"`, "home:.cache/go-build/README#evil", false, false, false, true, true},
		{"the user's npm cache", `echo evil > "$H/.npm/_cacache/index"`, "home:.npm/_cacache/index#evil", false, false, false, true, true},
		{"the user's cargo registry", `echo evil > "$H/.cargo/registry/cache/x/a-1.0.crate"`, "home:.cargo/registry/cache/x/a-1.0.crate#evil", false, false, false, true, true},
		{"Warden's browser driver", `echo evil > "$H/.cache/warden/playwright-driver/cli.js"`, "home:.cache/warden/playwright-driver/cli.js#evil", false, false, false, true, true},
		{"a new file in the home folder", `echo x > "$H/notes.txt"`, "home:notes.txt", false, false, true, true, true},
		{"a new ~/.zshrc", `echo evil > "$H/.zshrc"`, "home:.zshrc", false, false, false, true, true},
		{"a new autostart entry", `mkdir -p "$H/.config/autostart" && echo evil > "$H/.config/autostart/x.desktop"`, "home:.config/autostart/x.desktop", false, false, false, true, true},
		{"a new systemd user unit", `mkdir -p "$H/.config/systemd/user" && echo evil > "$H/.config/systemd/user/x.service"`, "home:.config/systemd/user/x.service", false, false, false, true, true},
		{"a pip cache the user has not made", `mkdir -p "$H/.cache/pip" && echo evil > "$H/.cache/pip/x"`, "home:.cache/pip/x", false, false, false, true, true},
		{"a new ~/.pam_environment", `echo evil > "$H/.pam_environment"`, "home:.pam_environment", false, false, false, true, true},
		{"a .bashrc made by renaming", `echo evil > "$H/x.tmp" && mv "$H/x.tmp" "$H/.bash_login"`, "home:.bash_login", false, false, false, true, true},
		{"/usr", `echo x > /usr/warden-shape-test`, "abs:/usr/warden-shape-test", false, false, false, os.Geteuid() == 0, os.Geteuid() == 0},
	}
	w := newShapeWorld(t)
	shapes := []struct {
		c    policy.Cage
		pick func(int) bool
	}{
		{ro, func(i int) bool { return tests[i].ro }}, {ww, func(i int) bool { return tests[i].ww }},
		{full, func(i int) bool { return tests[i].full }}, {host, func(i int) bool { return tests[i].host }},
		{none, func(i int) bool { return tests[i].none }},
	}
	for _, sh := range shapes {
		for i, tc := range tests {
			t.Run(string(sh.c.Shape)+"/"+tc.name, func(t *testing.T) {
				path, marker := w.resolve(tc.target)
				before, _ := os.ReadFile(path)
				t.Cleanup(func() { w.restore(path, before) })
				out, code, _ := w.run(t, sh.c, tc.script)
				landed := w.landed(path, marker, before)
				if landed != sh.pick(i) {
					t.Fatalf("write landed=%v, want %v (exit %d): %s", landed, sh.pick(i), code, out)
				}
			})
		}
	}
}

// resolve turns a target of the table into a host path and the text whose
// presence shows the write (empty: the file's existence does).
func (w *shapeWorld) resolve(target string) (string, string) {
	target, marker, _ := strings.Cut(target, "#")
	kind, rel, _ := strings.Cut(target, ":")
	switch kind {
	case "ws":
		return filepath.Join(w.ws, rel), marker
	case "out":
		return filepath.Join(w.out, rel), marker
	case "home":
		return filepath.Join(w.home, rel), marker
	}
	return rel, marker
}

func (w *shapeWorld) landed(path, marker string, before []byte) bool {
	now, err := os.ReadFile(path)
	if marker == "" {
		return err == nil && before == nil
	}
	return err == nil && bytes.Contains(now, []byte(marker)) && !bytes.Contains(before, []byte(marker))
}

func (w *shapeWorld) restore(path string, before []byte) {
	if before == nil {
		_ = os.RemoveAll(path)
		return
	}
	_ = os.WriteFile(path, before, 0o644)
}

// TestCageShapeReach: secrets, the host's /tmp, and the approved
// protected path, per shape.
func TestCageShapeReach(t *testing.T) {
	w := newShapeWorld(t)
	secret := `cat "$H/.ssh/id_ed25519"`
	for _, tc := range []struct {
		name   string
		shape  policy.Cage
		script string
		ok     bool
	}{
		{"read-only: the secret is hidden", policy.Cage{Shape: policy.CageReadOnly}, secret, false},
		{"workspace-write: the secret is hidden", policy.Cage{Shape: policy.CageWorkspaceWrite}, secret, false},
		{"full-access: the secret is hidden", policy.Cage{Shape: policy.CageFullAccess}, secret, false},
		{"host: a human approved; the secret is readable", policy.Cage{Shape: policy.CageHost}, secret, true},
		{"read-only: /tmp is private", policy.Cage{Shape: policy.CageReadOnly}, `echo x > /tmp/warden-shape-$$ && test -e /tmp/warden-shape-$$`, true},
		{"full-access: no new user namespace", policy.Cage{Shape: policy.CageFullAccess}, `unshare -U true`, false},
		{"full-access: no network without the proxy", policy.Cage{Shape: policy.CageFullAccess}, `exec 3<>/dev/tcp/1.1.1.1/53`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, _ := w.run(t, tc.shape, tc.script)
			if (code == 0) != tc.ok {
				t.Fatalf("exit %d, want ok=%v: %s", code, tc.ok, out)
			}
		})
	}
	// The host's /tmp is the full-access cage's own: a later call reads it.
	name := filepath.Join("/tmp", "warden-shape-full-"+filepath.Base(w.ws))
	t.Cleanup(func() { _ = os.Remove(name) })
	if out, code, _ := w.run(t, policy.Cage{Shape: policy.CageFullAccess}, "echo x > "+name); code != 0 || !exists(name) {
		t.Fatalf("full-access /tmp: exit %d %s", code, out)
	}
	if _, code, _ := w.run(t, policy.Cage{Shape: policy.CageWorkspaceWrite}, "echo y > "+name+".ws"); code != 0 || exists(name+".ws") {
		t.Fatalf("workspace-write /tmp reached the host (exit %d)", code)
	}
}

// TestApprovedProtectedPathIsWritable: the one protected path a human
// approved is let through, in the workspace-write cage and on the host;
// every other protected entry stays held.
func TestApprovedProtectedPathIsWritable(t *testing.T) {
	w := newShapeWorld(t)
	hook := filepath.Join(w.ws, ".git", "hooks", "pre-commit")
	for _, shape := range []policy.CageShape{policy.CageWorkspaceWrite, policy.CageHost} {
		t.Run(string(shape), func(t *testing.T) {
			t.Cleanup(func() { _ = os.Remove(hook); _ = os.Remove(filepath.Join(w.ws, ".envrc")) })
			c := policy.Cage{Shape: shape, Approved: []string{filepath.Join(w.ws, ".envrc")}}
			out, code, _ := w.run(t, c, `echo 'use flake' > "$WS/.envrc"; mkdir -p "$WS/.git/hooks"; echo '#!/bin/sh' > "$WS/.git/hooks/pre-commit"; git -C "$WS" config core.hooksPath /x`)
			if b, err := os.ReadFile(filepath.Join(w.ws, ".envrc")); err != nil || string(b) != "use flake\n" {
				t.Fatalf("the approved .envrc was not written (exit %d): %s", code, out)
			}
			if exists(hook) {
				t.Fatalf("an unapproved hook was planted: %s", out)
			}
			if b, _ := os.ReadFile(filepath.Join(w.ws, ".git", "config")); bytes.Contains(b, []byte("hooksPath")) {
				t.Fatalf("an unapproved config key landed: %s", b)
			}
		})
	}
}

// TestCageCaches: every confining shape points the toolchains at the
// cage's own caches, which persist across calls; the host shape uses the
// user's.
func TestCageCaches(t *testing.T) {
	w := newShapeWorld(t)
	root := filepath.Join(w.home, ".cache", "warden-cage")
	if got := w.c.CacheDir(); got != root {
		t.Fatalf("cache dir %s, want %s", got, root)
	}
	for i, shape := range []policy.CageShape{policy.CageReadOnly, policy.CageWorkspaceWrite, policy.CageFullAccess} {
		t.Run(string(shape), func(t *testing.T) {
			out, code, _ := w.run(t, policy.Cage{Shape: shape}, `echo "$GOCACHE|$npm_config_cache|$PIP_CACHE_DIR|$CARGO_HOME|$GRADLE_USER_HOME|$MAVEN_OPTS"; echo `+string(rune('a'+i))+` >> "$GOCACHE/probe"; cat "$GOCACHE/probe"; ls "$CARGO_HOME/registry/cache/x"`)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			for _, want := range []string{root + "/go-build|", root + "/npm|", root + "/pip|", root + "/cargo|", root + "/gradle|",
				"-Dmaven.repo.local=" + root + "/m2/repository", strings.Repeat("", 0) + "a-1.0.crate"} {
				if !strings.Contains(out, want) {
					t.Fatalf("%q missing from %s", want, out)
				}
			}
			// The probe grows by one line a call: the cache persists.
			if n := strings.Count(out, "\n"); n < 2+i {
				t.Fatalf("the cache did not persist: %s", out)
			}
		})
	}
	out, code, _ := w.run(t, policy.Cage{Shape: policy.CageHost}, `echo "[$GOCACHE]"`)
	if code != 0 || !strings.Contains(out, "[]") {
		t.Fatalf("the host shape set GOCACHE: %s", out)
	}
}

// inotifyCount is how many inotify instances this process holds.
func inotifyCount(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// TestShapesLeaveNoWatch: the watches a call starts (the workspace's, a
// full-access cage's home guard) end with it; a process making many calls
// does not run out of inotify instances.
func TestShapesLeaveNoWatch(t *testing.T) {
	w := newShapeWorld(t)
	before := inotifyCount(t)
	for i := 0; i < 20; i++ {
		for _, sh := range []policy.CageShape{policy.CageWorkspaceWrite, policy.CageFullAccess, policy.CageHost, policy.CageReadOnly} {
			if out, code, _ := w.run(t, policy.Cage{Shape: sh}, "true"); code != 0 {
				t.Fatalf("%s: exit %d %s", sh, code, out)
			}
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for inotifyCount(t) > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := inotifyCount(t); n > before {
		t.Fatalf("%d inotify instances left open after 80 calls (%d before)", n, before)
	}
}
