//go:build smoke

package smoke

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kbinani/screenshot"

	"github.com/warden-dev/warden/app"
)

const (
	readyTimeout = 60 * time.Second
	paintTimeout = 60 * time.Second
	quitTimeout  = 15 * time.Second
)

// envOr returns the environment value of key, or def made absolute.
func envOr(t *testing.T, key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	abs, err := filepath.Abs(def)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestDesktopWindowRenders starts the production desktop binary, waits for
// the frontend to call App.FrontendReady, takes screenshots until the window
// shows a painted UI, then sends SIGTERM and expects a clean exit.
func TestDesktopWindowRenders(t *testing.T) {
	bin := envOr(t, "WARDEN_DESKTOP_BIN", "../../build/bin/warden-desktop")
	artifacts := envOr(t, "WARDEN_ARTIFACTS", "../../artifacts")
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("DISPLAY is not set: run under an X server, e.g. `make smoke` (xvfb-run)")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("desktop binary: %v (build it with `make desktop`)", err)
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	readyFile := filepath.Join(dir, "ready.json")
	var logs bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Dir = dir
	// The app opens its database and config under the XDG folders: keep
	// them in the test's own temp dir.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "WARDEN_READY_FILE="+readyFile,
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("app output:\n%s", logs.String())
		}
	})

	marker := waitForMarker(t, readyFile, exited)
	if marker.PID != cmd.Process.Pid {
		t.Errorf("ready marker PID = %d, want the app's %d", marker.PID, cmd.Process.Pid)
	}
	if want := os.Getenv("WARDEN_VERSION"); want != "" && marker.Version != want {
		t.Errorf("ready marker version = %q, want %q", marker.Version, want)
	}

	shot, paint, err := waitForPaint(exited)
	if shot != nil {
		path := filepath.Join(artifacts, "desktop-smoke.png")
		if werr := writePNG(path, shot); werr != nil {
			t.Errorf("save screenshot: %v", werr)
		} else {
			t.Logf("screenshot: %s (%d colours, dominant %.0f%%)", path, paint.Colours, 100*paint.DominantShare)
		}
	}
	if err != nil {
		t.Fatalf("window never rendered: %v", err)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("app did not exit cleanly after SIGTERM: %v", err)
		}
	case <-time.After(quitTimeout):
		t.Fatalf("app still running %s after SIGTERM", quitTimeout)
	}
}

func waitForMarker(t *testing.T, path string, exited <-chan error) app.ReadyMarker {
	t.Helper()
	deadline := time.After(readyTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			t.Fatalf("app exited before the frontend was ready: %v", err)
		case <-deadline:
			t.Fatalf("no ready marker at %s after %s: the frontend never called App.FrontendReady", path, readyTimeout)
		case <-tick.C:
			raw, err := os.ReadFile(path)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			var m app.ReadyMarker
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("ready marker %q: %v", raw, err)
			}
			return m
		}
	}
}

// waitForPaint screenshots the display until it shows a rendered UI. WebKit
// may map the window a moment before it paints, so one early blank capture
// is not a failure; a blank screen at the deadline is.
func waitForPaint(exited <-chan error) (image.Image, Paint, error) {
	deadline := time.Now().Add(paintTimeout)
	var last image.Image
	var paint Paint
	for {
		select {
		case err := <-exited:
			return last, paint, errors.Join(errors.New("app exited while waiting for paint"), err)
		default:
		}
		img, err := screenshot.CaptureDisplay(0)
		if err != nil {
			return last, paint, err
		}
		last, paint = img, Analyse(img)
		err = paint.Rendered()
		if err == nil || time.Now().After(deadline) {
			return last, paint, err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
