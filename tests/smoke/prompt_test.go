//go:build smoke

package smoke

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kbinani/screenshot"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// TestDesktopPromptIsShownAndAnswered proves the desktop bindings carry a
// permission round trip, not only a first paint: an ask left pending in the
// database is shown again by the real window after a restart, a `y` typed
// into the window through the X server answers it, the answer lands in
// the store as human:once, and the command then runs.
func TestDesktopPromptIsShownAndAnswered(t *testing.T) {
	bin := envOr(t, "WARDEN_DESKTOP_BIN", "../../build/bin/warden-desktop")
	artifacts := envOr(t, "WARDEN_ARTIFACTS", "../../artifacts")
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("DISPLAY is not set: run under an X server, e.g. `make smoke` (xvfb-run)")
	}
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		t.Fatal("xdotool is missing: scripts/install-deps.sh installs it")
	}
	home := t.TempDir()
	env := map[string]string{
		"XDG_DATA_HOME": filepath.Join(home, "data"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
	}
	for k, v := range env {
		t.Setenv(k, v)
	}

	// A session whose `!rm -rf build` waits for a human, then the process
	// that asked goes away.
	ctx := context.Background()
	g, err := assemble.Open(ctx, assemble.Options{Version: "smoke"})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	sess, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: ws, Title: "smoke prompt"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Service.SendMessage(ctx, sess.ID, "!rm -rf build"); err != nil {
		t.Fatal(err)
	}
	var pending []runtime.Approval
	for deadline := time.Now().Add(30 * time.Second); len(pending) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if pending, err = g.Service.PendingApprovals(ctx, sess.ID); err != nil {
			t.Fatal(err)
		}
	}
	if len(pending) != 1 {
		t.Fatalf("pending asks = %d, want the one for rm -rf build", len(pending))
	}
	requestID, dbPath := pending[0].RequestID, g.DBPath
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}

	// The real window starts on that database and shows the ask.
	exited := startDesktop(t, bin)
	_, first, err := waitForPaint(exited)
	if err != nil {
		t.Fatalf("window never rendered: %v", err)
	}
	// The modal dims the page under it: wait for the picture to change from
	// the first paint before keeping it as the prompt's screenshot.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		shot, err := screenshot.CaptureDisplay(0)
		if err != nil {
			t.Fatal(err)
		}
		if p := Analyse(shot); p.Colours != first.Colours && math.Abs(p.DominantShare-first.DominantShare) > 0.05 {
			if err := writePNG(filepath.Join(artifacts, "desktop-prompt.png"), shot); err != nil {
				t.Errorf("save screenshot: %v", err)
			}
			break
		}
	}

	// Answer with the prompt's key, typed through the X server into the
	// window, until the store records the answer.
	st, err := openStore(t, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deadline := time.Now().Add(45 * time.Second)
	for {
		focus := exec.Command(xdotool, "search", "--name", "^Warden$", "windowfocus", "--sync", "key", "y")
		if out, err := focus.CombinedOutput(); err != nil {
			t.Logf("xdotool: %v: %s", err, out)
		}
		if src, ok := grantedSource(ctx, t, st, sess.ID, requestID); ok {
			if src != "human:once" {
				t.Fatalf("the ask was granted by %q, want human:once", src)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window never answered request %s", requestID)
		}
		time.Sleep(time.Second)
	}
	// The answered command runs now, in the cage, as it would have before
	// the restart.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(ws, "build")); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the answered `rm -rf build` never ran: build/ is still there")
		}
	}
	if shot, _, err := waitForPaint(exited); err == nil {
		_ = writePNG(filepath.Join(artifacts, "desktop-prompt-answered.png"), shot)
	}
}

func grantedSource(ctx context.Context, t *testing.T, st *store.Store, sessionID, requestID string) (string, bool) {
	t.Helper()
	evs, err := st.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindPermissionGranted}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if g, ok := e.Event.(store.PermissionGranted); ok && g.RequestID == requestID {
			return g.Source, true
		}
	}
	return "", false
}
