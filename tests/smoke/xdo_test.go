//go:build smoke

package smoke

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbinani/screenshot"
)

// startDesktop starts the desktop binary with the test's environment plus
// env, waits for its ready marker and stops it when the test ends.
func startDesktop(t *testing.T, bin string, env ...string) <-chan error {
	t.Helper()
	dir := t.TempDir()
	readyFile := filepath.Join(dir, "ready.json")
	var logs bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "WARDEN_READY_FILE="+readyFile), env...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(quitTimeout):
				_ = cmd.Process.Kill()
				<-exited
			}
		}
		if t.Failed() {
			t.Logf("app output:\n%s", logs.String())
		}
	})
	waitForMarker(t, readyFile, exited)
	return exited
}

// xdo runs xdotool.
type xdo struct {
	t   *testing.T
	bin string
}

func (x *xdo) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command(x.bin, args...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// findWindow returns the first visible window whose name matches, or "" if
// none shows up within the time given.
func (x *xdo) findWindow(name string, within time.Duration) string {
	for deadline := time.Now().Add(within); ; time.Sleep(200 * time.Millisecond) {
		// xdotool search exits 1 when nothing matches.
		out, _ := exec.Command(x.bin, "search", "--onlyvisible", "--name", name).Output()
		if ids := strings.Fields(string(out)); len(ids) > 0 {
			return ids[0]
		}
		if time.Now().After(deadline) {
			return ""
		}
	}
}

// waitGone reports whether a window of that name is still visible after
// waiting for it to close.
func (x *xdo) waitGone(name string, within time.Duration) bool {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if x.findWindow(name, 0) == "" {
			return false
		}
	}
	return true
}

func (x *xdo) waitWindow(name string, within time.Duration) string {
	x.t.Helper()
	id := x.findWindow(name, within)
	if id == "" {
		x.t.Fatalf("no visible window named %s after %s", name, within)
	}
	return id
}

// fromFilter focuses the window, clicks the audit filter box, presses Tab
// n times, then the keys given. Keys go through XTEST to the focused
// window; without a window manager, events sent to a window are ignored.
func (x *xdo) fromFilter(win string, n int, keys ...string) {
	x.t.Helper()
	x.run("windowfocus", "--sync", win)
	x.click(win, auditFilter)
	time.Sleep(300 * time.Millisecond)
	args := []string{"key", "--delay", "80"}
	for range n {
		args = append(args, "Tab")
	}
	x.run(append(args, keys...)...)
}

func (x *xdo) click(win string, p point) {
	x.t.Helper()
	x.run("mousemove", "--window", win, fmt.Sprint(p.x), fmt.Sprint(p.y), "click", "1")
}

func shoot(t *testing.T, dir, name string) {
	t.Helper()
	img, err := screenshot.CaptureDisplay(0)
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := writePNG(filepath.Join(dir, name), img); err != nil {
		t.Errorf("save screenshot %s: %v", name, err)
	}
}
