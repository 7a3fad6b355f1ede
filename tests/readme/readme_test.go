//go:build readme

package readme

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The repository root, where a reader runs the README's commands.
const root = "../.."

// env is one reader's machine: Warden's config, data and state in folders
// of the test's own, shared by the commands in README order (the window
// `make run` opened leaves the database `audit verify` then checks).
type env struct {
	vars []string
	dir  string
	data string // $XDG_DATA_HOME: where the window's database lands
}

func newEnv(t *testing.T) *env {
	dir := t.TempDir()
	e := &env{dir: dir}
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		e.vars = append(e.vars, v+"="+filepath.Join(dir, strings.ToLower(strings.TrimPrefix(v, "XDG_"))))
	}
	e.data = filepath.Join(dir, "data_home")
	// No key of the person running the tests leaks into the window.
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "WARDEN_DB"} {
		e.vars = append(e.vars, k+"=")
	}
	return e
}

func (e *env) cmd(ctx context.Context, line string) *exec.Cmd {
	c := exec.CommandContext(ctx, "bash", "-c", line)
	c.Dir = root
	c.Env = append(os.Environ(), e.vars...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	return c
}

// runner runs one kind of README command and says what proves it worked.
type runner struct {
	match *regexp.Regexp
	what  string
	run   func(t *testing.T, e *env, line string)
}

var runners = []runner{
	{regexp.MustCompile(`^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:xvfb-run -a )?make run$`), "opens the window: the frontend calls FrontendReady", runWindow},
	{regexp.MustCompile(`^make test$`), "is what CI runs, and this test is part of it (not run from inside itself)", checkMakeTest},
	{regexp.MustCompile(`^make help$`), "lists the targets", runHelp},
	{regexp.MustCompile(`^(?:bin/)?warden audit verify$`), "verifies the log the window wrote", runVerify},
	{regexp.MustCompile(`^(?:bin/)?warden serve$`), "serves the UI: prints its one-time URL", runServe},
	{regexp.MustCompile(`^(?:bin/)?warden tui$`), "draws the terminal UI in a tmux pane", runTUI},
	{regexp.MustCompile(`^make package$`), "is run by `make fresh-clone` (part of make test) on a fresh clone", checkPackage},
}

func TestReadmeCommands(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := Commands(string(raw))
	if len(cmds) < 3 {
		t.Fatalf("README.md has %d commands", len(cmds))
	}
	e := newEnv(t)
	// The window runs first, so the database exists for what follows.
	order := func(c Command) int {
		if runners[0].match.MatchString(c.Text) {
			return 0
		}
		return 1
	}
	for pass := 0; pass < 2; pass++ {
		for _, c := range cmds {
			if order(c) != pass {
				continue
			}
			var r *runner
			for i := range runners {
				if runners[i].match.MatchString(c.Text) {
					r = &runners[i]
					break
				}
			}
			name := fmt.Sprintf("line %d: %s", c.Line, c.Text)
			if r == nil {
				t.Errorf("%s: no runner for this command here; add one to tests/readme (every README command is run)", name)
				continue
			}
			t.Run(name, func(t *testing.T) {
				t.Logf("%s — %s", c.Text, r.what)
				r.run(t, e, c.Text)
			})
		}
	}
}

// runWindow runs a `make run` line as written (under Xvfb when it brings
// no display of its own and the test has none), waits until the window's
// frontend has called FrontendReady, then ends it.
func runWindow(t *testing.T, e *env, line string) {
	ready := filepath.Join(t.TempDir(), "ready.json")
	shell := line
	if !strings.Contains(line, "xvfb-run") && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		shell = `xvfb-run -a -s "-screen 0 1280x800x24" bash -c ` + quote(line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c := e.cmd(ctx, shell)
	c.Env = append(c.Env, "WARDEN_READY_FILE="+ready)
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	deadline := time.NewTimer(15 * time.Minute)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			t.Fatalf("%s ended before the window was ready: %v\n%s", line, err, tail(out.String()))
		case <-deadline.C:
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			t.Fatalf("%s: no window after 15 minutes\n%s", line, tail(out.String()))
		case <-tick.C:
		}
		raw, err := os.ReadFile(ready)
		if err != nil {
			continue
		}
		var m struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(raw, &m) != nil || m.PID == 0 {
			continue
		}
		break
	}
	// The window is up: end it the way a session manager does.
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("%s did not end on SIGTERM\n%s", line, tail(out.String()))
	}
	if _, err := os.Stat(filepath.Join(e.data, "warden", "warden.db")); err != nil {
		t.Errorf("the window left no database in the reader's data folder: %v\n%s", err, tail(out.String()))
	}
}

// checkMakeTest: `make test` is what CI runs (.ci/run), and the test target
// runs this README check; running it from here would run itself.
func checkMakeTest(t *testing.T, _ *env, _ string) {
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*(exec\s+)?make test\b`).Match(ci) {
		t.Errorf(".ci/run does not run `make test`:\n%s", ci)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^test:([^#\n]*)`).FindSubmatch(mk)
	if line == nil {
		t.Fatal("the Makefile has no test target")
	}
	for _, want := range []string{"readme-check", "fresh-clone", "gotest", "vitest", "e2e"} {
		if !strings.Contains(" "+string(line[1])+" ", " "+want+" ") {
			t.Errorf("make test does not run %s: %s", want, line[1])
		}
	}
}

func runHelp(t *testing.T, e *env, line string) {
	out, err := e.cmd(context.Background(), line).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	for _, want := range []string{"make run", "make test", "make package"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s does not list %q:\n%s", line, want, out)
		}
	}
}

func runVerify(t *testing.T, e *env, line string) {
	if !strings.HasPrefix(line, "bin/") {
		line = "bin/" + line
	}
	out, err := e.cmd(context.Background(), line).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	if !strings.Contains(strings.ToLower(string(out)), "ok") && !strings.Contains(strings.ToLower(string(out)), "verified") {
		t.Errorf("%s says nothing about the chain:\n%s", line, out)
	}
}

func runServe(t *testing.T, e *env, line string) {
	if !strings.HasPrefix(line, "bin/") {
		line = "bin/" + line
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := e.cmd(ctx, "exec "+line)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	c.Stderr = &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
		_ = c.Wait()
	}()
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\S*code=\S+`)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u := url.FindString(sc.Text()); u != "" {
			t.Logf("served at %s", strings.SplitN(u, "?", 2)[0])
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return
		}
	}
	t.Fatalf("%s printed no URL\n%s", line, errOut.String())
}

// runTUI starts the line in a detached tmux pane of a reader's size and
// waits for the status bar the TUI draws (the approval axis), then for the
// session it opened (the model's name), so a TUI that draws and then dies on
// the store fails here.
func runTUI(t *testing.T, e *env, line string) {
	if !strings.HasPrefix(line, "bin/") {
		line = "bin/" + line
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) (string, error) {
		// The server starts with the reader's environment, and the pane
		// inherits it.
		c := exec.Command("tmux", append([]string{"-S", sock}, args...)...)
		c.Env = append(os.Environ(), e.vars...)
		out, err := c.CombinedOutput()
		return string(out), err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tmux("new-session", "-d", "-x", "100", "-y", "30", "-c", abs, "exec "+line); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	defer tmux("kill-server")
	var screen string
	for _, want := range []string{"Approval: ", "Model: "} {
		deadline := time.Now().Add(time.Minute)
		for {
			screen, _ = tmux("capture-pane", "-p")
			if strings.Contains(screen, want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no %q on the screen after a minute:\n%s", line, want, screen)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// checkPackage: building the .deb takes minutes, and `make fresh-clone`
// (part of make test, checked by checkMakeTest) already runs `make package`
// on a fresh clone and fails without a .deb; here only that it still does.
func checkPackage(t *testing.T, _ *env, _ string) {
	sh, err := os.ReadFile(filepath.Join(root, "scripts", "fresh-clone.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"make package", "dist/warden_*_amd64.deb"} {
		if !strings.Contains(string(sh), want) {
			t.Errorf("scripts/fresh-clone.sh no longer has %q: make package is not run by any test", want)
		}
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}
