//go:build smoke

package smoke

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// The two clicks the test makes, in pixels from the window's top-left corner
// at the 1180x760 size main.go opens it with: the Audit trail tab and the
// audit filter box, both on rows that never wrap. Everything else is reached
// with Tab from the filter box, so a status bar that wraps onto two rows
// (a longer version string) does not move the target.
var (
	auditTab    = point{450, 19}
	auditFilter = point{494, 70}
	newSession  = point{183, 24}
)

// Tab presses from the audit filter box: kind, Reload, Export JSONL; then
// Export CSV, the event list, approval, sandbox, network, Writable roots;
// inside the open roots editor (no roots yet), the field, then Browse….
const (
	tabsToExportJSONL   = 3
	tabsToWritableRoots = 9
)

type point struct{ x, y int }

// TestDesktopNativeDialogs drives the real window's native GTK dialogs
// through the X server: Export JSONL opens the save dialog, a full path
// typed into its name field is where the session's audit lands; Browse… by
// the writable roots opens the folder picker, and the folder typed there
// becomes a writable root of the session's sandbox in the store; Browse… by
// a new session's workspace field does the same for the session's folder.
func TestDesktopNativeDialogs(t *testing.T) {
	bin := envOr(t, "WARDEN_DESKTOP_BIN", "../../build/bin/warden-desktop")
	artifacts := envOr(t, "WARDEN_ARTIFACTS", "../../artifacts")
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("DISPLAY is not set: run under an X server, e.g. `make smoke` (xvfb-run)")
	}
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		t.Fatal("xdotool is missing: scripts/install-deps.sh installs it")
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for k, v := range map[string]string{
		"XDG_DATA_HOME": filepath.Join(home, "data"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
	} {
		t.Setenv(k, v)
	}
	sessionID, dbPath := auditedSession(t)

	// HOME too, so the dialogs open in a folder of the test's own.
	x := &xdo{t: t, bin: xdotool}
	exited := startDesktop(t, bin, "HOME="+home)
	if _, _, err := waitForPaint(exited); err != nil {
		t.Fatalf("window never rendered: %v", err)
	}
	win := x.waitWindow("^Warden$", 30*time.Second)

	// The audit view, then Export JSONL, until the save dialog is up.
	var dialog string
	for deadline := time.Now().Add(45 * time.Second); dialog == ""; {
		x.click(win, auditTab)
		time.Sleep(time.Second)
		x.fromFilter(win, tabsToExportJSONL, "Return")
		dialog = x.findWindow("^Export audit trail$", 15*time.Second)
		if dialog == "" && time.Now().After(deadline) {
			shoot(t, artifacts, "desktop-save-dialog-missing.png")
			t.Fatal("Export JSONL never opened the save dialog")
		}
	}
	time.Sleep(500 * time.Millisecond) // let GTK paint it before the picture
	shoot(t, artifacts, "desktop-save-dialog.png")

	// GTK's save dialog takes a full path typed over the suggested name.
	outDir := t.TempDir()
	saved := filepath.Join(outDir, "audit export.jsonl")
	x.run("windowfocus", "--sync", dialog)
	x.run("key", "ctrl+a")
	x.run("type", "--delay", "20", saved)
	x.run("key", "Return")
	body := waitFile(t, saved, 20*time.Second)
	shoot(t, artifacts, "desktop-audit-saved.png")

	st, err := openStore(t, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	checkExport(t, st, sessionID, body)

	// Browse… by the writable roots, a folder typed into the picker, Add.
	root := filepath.Join(t.TempDir(), "cache dir")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	x.fromFilter(win, tabsToWritableRoots, "Return")
	var picker string
	for deadline := time.Now().Add(30 * time.Second); picker == ""; {
		time.Sleep(time.Second)
		// Writable roots is a popover: open it, Tab past its field to
		// Browse…. (A click on the filter closes an open popover first.)
		x.fromFilter(win, tabsToWritableRoots, "Return", "Tab", "Tab", "Return")
		picker = x.findWindow("^Writable root$", 15*time.Second)
		if picker == "" && time.Now().After(deadline) {
			shoot(t, artifacts, "desktop-folder-picker-missing.png")
			t.Fatal("Browse… never opened the folder picker")
		}
	}
	shoot(t, artifacts, "desktop-folder-picker.png")
	// Ctrl+L opens the picker's location field for a typed path.
	x.run("windowfocus", "--sync", picker)
	x.run("key", "ctrl+l")
	x.run("type", "--delay", "20", root)
	x.run("key", "Return")
	if x.waitGone("^Writable root$", 15*time.Second) {
		shoot(t, artifacts, "desktop-folder-picker-stuck.png")
		t.Fatal("the folder picker did not accept the typed folder")
	}
	// The picked folder fills the field; Return in it adds the root. Again
	// until the store has it, as the field fills a moment after the picker.
	for deadline := time.Now().Add(20 * time.Second); !hasRoot(t, st, sessionID, root); time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			shoot(t, artifacts, "desktop-writable-root-missing.png")
			s, _ := st.Session(context.Background(), sessionID)
			t.Fatalf("writable roots = %q, want %q among them", s.Sandbox.WritableRoots, root)
		}
		x.fromFilter(win, tabsToWritableRoots, "Return", "Tab", "Return")
	}
	shoot(t, artifacts, "desktop-writable-root.png")

	// New session puts the cursor in the workspace field; Tab is the title,
	// Tab again Browse….
	ws := filepath.Join(t.TempDir(), "picked workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	picker = ""
	for deadline := time.Now().Add(30 * time.Second); picker == ""; {
		x.run("windowfocus", "--sync", win)
		x.click(win, newSession)
		time.Sleep(500 * time.Millisecond)
		x.run("key", "--delay", "80", "Tab", "Tab", "Return")
		picker = x.findWindow("^Workspace folder$", 15*time.Second)
		if picker == "" && time.Now().After(deadline) {
			shoot(t, artifacts, "desktop-workspace-picker-missing.png")
			t.Fatal("Browse… never opened the workspace picker")
		}
	}
	x.run("windowfocus", "--sync", picker)
	x.run("key", "ctrl+l")
	x.run("type", "--delay", "20", ws)
	x.run("key", "Return")
	if x.waitGone("^Workspace folder$", 15*time.Second) {
		shoot(t, artifacts, "desktop-workspace-picker-stuck.png")
		t.Fatal("the workspace picker did not accept the typed folder")
	}
	// The picked folder fills the open form's field and the focus is back
	// on Browse…; Tab is Create. (New session again would open the form
	// afresh on the default folder.)
	x.run("windowfocus", "--sync", win)
	time.Sleep(300 * time.Millisecond)
	x.run("key", "--delay", "80", "Tab", "Return")
	for deadline := time.Now().Add(20 * time.Second); !hasWorkspace(t, st, ws); time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			shoot(t, artifacts, "desktop-workspace-missing.png")
			t.Fatalf("no session in %s", ws)
		}
	}
	shoot(t, artifacts, "desktop-workspace-session.png")
}

func hasWorkspace(t *testing.T, st *store.Store, dir string) bool {
	t.Helper()
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	all, err := st.Sessions(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(all, func(s store.Session) bool { return s.Workspace == dir || s.Workspace == resolved })
}

// auditedSession makes a session whose two `!echo` commands went through
// the gate, and returns it with the database path; the graph is closed so
// the window opens the database alone.
func auditedSession(t *testing.T) (string, string) {
	t.Helper()
	ctx := context.Background()
	g, err := assemble.Open(ctx, assemble.Options{Version: "smoke"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sess, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: t.TempDir(), Title: "smoke dialogs"})
	if err != nil {
		t.Fatal(err)
	}
	// Run waits for each turn to end: the next message would be refused as
	// busy while the first still records its result.
	for _, cmd := range []string{"!echo one", "!echo two"} {
		if err := g.Service.Run(ctx, sess.ID, cmd); err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
	}
	return sess.ID, g.DBPath
}

// checkExport wants one JSON object a line, the session's permission audit
// in order, as the store holds it.
func checkExport(t *testing.T, st *store.Store, sessionID string, body []byte) {
	t.Helper()
	want, err := st.PermissionAudit(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 2 {
		t.Fatalf("the store holds %d audit events for the session, want at least the two grants", len(want))
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	n := 0
	for ; sc.Scan(); n++ {
		var line struct {
			Seq       int64  `json:"seq"`
			SessionID string `json:"session_id"`
			Kind      string `json:"kind"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", n+1, err, sc.Bytes())
		}
		if n >= len(want) {
			t.Fatalf("line %d is more than the %d audit events", n+1, len(want))
		}
		if w := want[n]; line.Seq != w.Seq || line.SessionID != sessionID || line.Kind != string(w.Kind) {
			t.Fatalf("line %d = seq %d %s of %s, want seq %d %s of %s", n+1, line.Seq, line.Kind, line.SessionID, w.Seq, w.Kind, sessionID)
		}
	}
	if n != len(want) {
		t.Fatalf("the file holds %d lines, want the %d audit events", n, len(want))
	}
}

func hasRoot(t *testing.T, st *store.Store, sessionID, root string) bool {
	t.Helper()
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Session(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(s.Sandbox.WritableRoots, root) || slices.Contains(s.Sandbox.WritableRoots, resolved)
}

func waitFile(t *testing.T, path string, within time.Duration) []byte {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(200 * time.Millisecond) {
		body, err := os.ReadFile(path)
		if err == nil {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing saved at %s after %s: %v", path, within, err)
		}
	}
}
