//go:build e2e_tui

package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/store"
)

// root is the repository, where bin/warden is built.
func root(t testing.TB) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wardenBin(r)); err != nil {
		t.Fatalf("no bin/warden: run make cli first (%v)", err)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is not installed (make deps): %v", err)
	}
	return r
}

// wardenBin is bin/warden, or $WARDEN_BIN.
func wardenBin(r string) string {
	if b := os.Getenv("WARDEN_BIN"); b != "" {
		return b
	}
	return filepath.Join(r, "bin", "warden")
}

// scratch is a folder outside /tmp (the cage's /tmp is private), removed
// after the test.
func scratch(t testing.TB, r string) string {
	t.Helper()
	base := filepath.Join(r, "artifacts", "tui-e2e")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(base, "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// term is one tmux server (its own socket) with one pane.
type term struct {
	t      testing.TB
	socket string
}

func (tm *term) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func startTerm(t testing.TB, w, h int, env []string, argv ...string) *term {
	t.Helper()
	tm := &term{t: t, socket: fmt.Sprintf("warden-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()%100000)}
	args := []string{"new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h)}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	tm.tmux(append(args, argv...)...)
	tm.tmux("set-option", "-g", "remain-on-exit", "on")
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *term) capture() string { return tm.tmux("capture-pane", "-p") }

func (tm *term) keys(k ...string) { tm.tmux(append([]string{"send-keys", "-t", "0"}, k...)...) }

// waitFor polls the screen until it holds every want.
func (tm *term) waitFor(what string, want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tm.capture()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pid is the process running in the pane.
func (tm *term) pid() int {
	tm.t.Helper()
	p, err := strconv.Atoi(strings.TrimSpace(tm.tmux("list-panes", "-F", "#{pane_pid}")))
	if err != nil {
		tm.t.Fatal(err)
	}
	return p
}

type fixture struct {
	root, dir, ws, db, script string
	env                       []string
}

func newFixture(t testing.TB) fixture {
	r := root(t)
	d := scratch(t, r)
	f := fixture{root: r, dir: d, ws: filepath.Join(d, "ws"), db: filepath.Join(d, "w.db"), script: filepath.Join(d, "script.json")}
	if err := os.MkdirAll(filepath.Join(f.ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	call := func(id string) map[string]any {
		return map[string]any{"text": "Cleaning with `rm -rf build`.", "tool_calls": []any{map[string]any{"id": id, "name": "shell.exec",
			"args": map[string]any{"command": "rm -rf build"}}}}
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "name": "tui-e2e", "on_end": "Done.",
		"turns": []any{call("c_one"), call("c_two"), map[string]any{"text": "**Finished.**"}}})
	if err := os.WriteFile(f.script, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f.env = []string{"XDG_CONFIG_HOME=" + filepath.Join(d, "config"), "XDG_DATA_HOME=" + filepath.Join(d, "data"), "TERM=xterm-256color"}
	return f
}

func (f fixture) argv() []string {
	return []string{wardenBin(f.root), "tui", "--db", f.db, "--workspace", f.ws, "--model", "script:" + f.script}
}

const grace = 600 * time.Millisecond // the modal's 400 ms and some

func TestTerminalAskDenyAllowAndSandboxKey(t *testing.T) {
	f := newFixture(t)
	tm := startTerm(t, 100, 30, f.env, f.argv()...)
	tm.waitFor("the status bar", "Approval: On request · Sandbox: Workspace write (network off)")
	tm.keys("clean up the build folder", "Enter")
	s := tm.waitFor("the modal", "Permission request", "rm -rf build", "Always allow will cover:")
	t.Logf("modal:\n%s", s)
	time.Sleep(grace)
	tm.keys("t")
	s = tm.waitFor("the decision trace", "Decision trace (▶ decided):", "▶ 3. approval — saw on-request")
	t.Logf("modal with the trace:\n%s", s)
	// n opens the deny note; Enter sends the denial with it.
	tm.keys("n")
	tm.waitFor("the note line", "Note to the model (optional)")
	tm.keys("keep build")
	tm.waitFor("the typed note", "Note to the model (optional): keep build")
	tm.keys("Enter")
	tm.waitFor("the denial", "Denied shell.exec, with your note.")
	if _, err := os.Stat(filepath.Join(f.ws, "build")); err != nil {
		t.Fatalf("build/ is gone after n: %v", err)
	}
	tm.waitFor("the second ask", "Permission request")
	time.Sleep(grace)
	tm.keys("y")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(f.ws, "build")); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("build/ still there after y; screen:\n%s", tm.capture())
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.waitFor("the closing message", "Finished.")
	// Esc and B apart: sent together they read as Alt+B.
	tm.keys("Escape")
	time.Sleep(300 * time.Millisecond)
	tm.keys("B")
	tm.waitFor("the Full access confirmation", "Switch this session to Full access?")
	tm.keys("y")
	s = tm.waitFor("the new sandbox", "Sandbox: Full access")
	t.Logf("after B:\n%s", s)
	tm.keys("q")
	waitExit(t, tm)

	// The store has the story.
	ctx := context.Background()
	st, _, err := assemble.OpenStore(ctx, f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	count := map[store.Kind]int{}
	var sources []string
	sessions, err := st.Sessions(ctx, "")
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %v %v", sessions, err)
	}
	evs, err := st.Events(ctx, store.EventQuery{SessionID: sessions[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, e := range evs {
		count[e.Kind]++
		if d, ok := e.Event.(store.PermissionDenied); ok {
			notes = append(notes, d.Detail)
		}
		if g, ok := e.Event.(store.PermissionGranted); ok && g.Tool == "shell.exec" {
			sources = append(sources, g.Source)
		}
	}
	if count[store.KindPermissionRequested] != 2 || count[store.KindPermissionDenied] != 1 || count[store.KindSandboxPolicyChanged] != 1 {
		t.Errorf("events: %v", count)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "keep build") {
		t.Errorf("the denial's detail lacks the note: %q", notes)
	}
	if len(sources) != 1 || sources[0] != "human:once" {
		t.Errorf("shell grants: %v", sources)
	}
}

func waitExit(t testing.TB, tm *term) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(tm.tmux("list-panes", "-F", "#{pane_dead}"), "1") {
		if time.Now().After(deadline) {
			t.Fatalf("warden tui did not exit; screen:\n%s", tm.capture())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SIGTERM and SIGHUP leave the terminal as they found it: cooked mode,
// echo on, the main screen back.
func TestTerminalRestoredOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			f := newFixture(t)
			stty := filepath.Join(f.dir, "stty.txt")
			script := fmt.Sprintf("%s; stty -a > %s; sleep 30", shellJoin(f.argv()), stty)
			tm := startTerm(t, 100, 30, f.env, "sh", "-c", script)
			tm.waitFor("the status bar", "Approval: On request")
			child := childOf(t, tm.pid())
			if err := syscall.Kill(child, sig); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			var b []byte
			for {
				var err error
				if b, err = os.ReadFile(stty); err == nil && len(b) > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the shell never got its terminal back; screen:\n%s", tm.capture())
				}
				time.Sleep(50 * time.Millisecond)
			}
			for _, want := range []string{" icanon", " echo ", " icrnl"} {
				if !strings.Contains(" "+string(b)+" ", want) {
					t.Errorf("after %s the terminal lacks %q:\n%s", sig, want, b)
				}
			}
			if s := tm.capture(); strings.Contains(s, "Approval: On request") {
				t.Errorf("the alternate screen was left up:\n%s", s)
			}
		})
	}
}

func shellJoin(argv []string) string {
	var q []string
	for _, a := range argv {
		q = append(q, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(q, " ")
}

// childOf finds the one child of pid (the shell's warden).
func childOf(t testing.TB, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		t.Fatalf("children of %d: %q", pid, b)
	}
	c, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A session that cannot open (here: the script model's file is missing)
// is said on the screen; a key quits with status 2 (a usage error, as
// `warden run` gives) and the error again on the restored terminal.
func TestTerminalOpenFailure(t *testing.T) {
	f := newFixture(t)
	argv := []string{wardenBin(f.root), "tui", "--db", f.db, "--workspace", f.ws, "--model", "script:" + filepath.Join(f.dir, "missing.json")}
	// The status goes to a file: tmux does not always learn a dead pane's
	// exit status (#{pane_dead_status} stayed empty in about one run of
	// six here, with the pane dead).
	status := filepath.Join(f.dir, "status.txt")
	tm := startTerm(t, 100, 30, f.env, "sh", "-c", shellJoin(argv)+"; echo $? > "+status)
	s := tm.waitFor("the error", "Could not open the session", "missing.json", "Press any key to exit.", "Approval: On request")
	t.Logf("failure:\n%s", s)
	tm.keys("x")
	waitExit(t, tm)
	if st, err := os.ReadFile(status); err != nil || strings.TrimSpace(string(st)) != "2" {
		t.Errorf("exit status %q (%v), want 2", st, err)
	}
	if s := tm.capture(); !strings.Contains(s, "no such file or directory") || strings.Contains(s, "Press any key") {
		t.Errorf("after exit the screen is not the main one with the error:\n%s", s)
	}
}
