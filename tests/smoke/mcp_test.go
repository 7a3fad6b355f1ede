//go:build smoke

package smoke

import (
	"context"
	"encoding/json"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kbinani/screenshot"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/runtime"
)

// cardBackground is the MCP trust card's fill (#fffaf0, McpTrustCard.vue):
// no other surface of the shell uses it.
var cardBackground = [3]uint8{0xff, 0xfa, 0xf0}

// minCardPixels is a card's worth of its fill at 1280x800 (it spans the
// chat's width and holds one server); a stray anti-aliased pixel is far less.
const minCardPixels = 20000

// TestDesktopShowsMcpTrustCard opens the real window on a session whose
// workspace's .mcp.json lists a server nobody trusted: the window shows the
// trust card, and the server's command has not run (it would leave a file).
// Clicking the card's Trust, through the X server, runs it.
func TestDesktopShowsMcpTrustCard(t *testing.T) {
	bin := envOr(t, "WARDEN_DESKTOP_BIN", "../../build/bin/warden-desktop")
	artifacts := envOr(t, "WARDEN_ARTIFACTS", "../../artifacts")
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("DISPLAY is not set: run under an X server, e.g. `make smoke` (xvfb-run)")
	}
	home := t.TempDir()
	for k, v := range map[string]string{
		"XDG_DATA_HOME": filepath.Join(home, "data"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
	} {
		t.Setenv(k, v)
	}
	ws := t.TempDir()
	ran := filepath.Join(ws, "the-server-ran")
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"repo-tools": map[string]any{"command": "sh", "args": []string{"-c", "touch " + ran + "; exec sleep 30"}},
	}})
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), mcpJSON, 0o600); err != nil {
		t.Fatal(err)
	}

	// The session, made with the same graph the window opens.
	ctx := context.Background()
	g, err := assemble.Open(ctx, assemble.Options{Version: "smoke"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: ws, Title: "smoke mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if card, err := g.Service.McpPending(ctx, sess.ID); err != nil || len(card) != 1 {
		t.Fatalf("the backend lists %+v (%v), want repo-tools", card, err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}

	exited := startDesktop(t, bin)
	if _, _, err := waitForPaint(exited); err != nil {
		t.Fatalf("window never rendered: %v", err)
	}
	var shot image.Image
	n := 0
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		if shot, err = screenshot.CaptureDisplay(0); err != nil {
			t.Fatal(err)
		}
		if n = countColour(shot, cardBackground); n >= minCardPixels {
			break
		}
	}
	if shot != nil {
		if err := writePNG(filepath.Join(artifacts, "desktop-mcp-card.png"), shot); err != nil {
			t.Errorf("save screenshot: %v", err)
		}
	}
	if n < minCardPixels {
		t.Fatalf("no trust card on screen: %d pixels of its fill, want ≥ %d (see desktop-mcp-card.png)", n, minCardPixels)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatalf("the untrusted server's command ran (%s exists: %v)", ran, err)
	}

	// Trust: the card's first accent-coloured pixel is its Trust button.
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		t.Fatal("xdotool is missing: scripts/install-deps.sh installs it")
	}
	x, y, ok := firstColourIn(shot, accent, colourBounds(shot, cardBackground))
	if !ok {
		t.Fatal("no Trust button in the card (see desktop-mcp-card.png)")
	}
	if out, err := exec.Command(xdotool, "mousemove", strconv.Itoa(x+8), strconv.Itoa(y+6), "click", "1").CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v: %s", err, out)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(ran); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("clicking Trust did not start the server")
		}
	}
}

// accent is the shell's accent (--accent, light theme): primary buttons.
var accent = [3]uint8{0x2d, 0x6c, 0xdf}

// colourBounds is the bounding box of one colour's pixels.
func colourBounds(img image.Image, c [3]uint8) image.Rectangle {
	b := img.Bounds()
	out := image.Rectangle{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if is(img, x, y, c) {
				out = out.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return out
}

// firstColourIn finds the topmost, then leftmost, pixel of a colour in r.
func firstColourIn(img image.Image, c [3]uint8, r image.Rectangle) (int, int, bool) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if is(img, x, y, c) {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

func is(img image.Image, x, y int, c [3]uint8) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return uint8(r>>8) == c[0] && uint8(g>>8) == c[1] && uint8(b>>8) == c[2]
}

// countColour counts the pixels of exactly one colour.
func countColour(img image.Image, c [3]uint8) int {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if is(img, x, y, c) {
				n++
			}
		}
	}
	return n
}
