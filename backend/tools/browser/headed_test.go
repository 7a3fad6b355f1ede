package browser

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// xvfb starts a private X server for the headed browser and returns its
// display. A missing Xvfb fails the test.
func xvfb(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Fatalf("Xvfb is required for the headed browser test (apt install xvfb): %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-displayfd", "3", "-nolisten", "tcp", "-noreset", "-screen", "0", "1280x800x24")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not start")
	}
	return ""
}

func TestHeaded(t *testing.T) {
	t.Run("needs a display", func(t *testing.T) {
		t.Setenv("DISPLAY", "")
		t.Setenv("WAYLAND_DISPLAY", "")
		m := NewManager(Options{Headed: true, DriverDir: sharedDriverDir})
		defer m.Shutdown()
		res := call(t, NewActionTool(m), offline, `{"action": "navigate", "url": "http://localhost:1/"}`)
		if !res.IsError || !strings.Contains(text(res), "needs a display") {
			t.Errorf("got %q", text(res))
		}
	})
	t.Run("opens a real window", func(t *testing.T) {
		disp := xvfb(t)
		t.Setenv("DISPLAY", disp)
		site := newSite(t)
		m := newManager(t)
		m.opts.Headed = true
		act := NewActionTool(m)
		mustOK(t, call(t, act, offline, `{"action": "navigate", "url": "`+site.URL+`/form.html"}`))
		mustOK(t, call(t, act, offline, `{"action": "fill", "selector": "#name", "value": "seen"}`))
		conn, err := xgb.NewConnDisplay(disp)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		tree, err := xproto.QueryTree(conn, xproto.Setup(conn).DefaultScreen(conn).Root).Reply()
		if err != nil {
			t.Fatal(err)
		}
		mapped := 0
		for _, w := range tree.Children {
			if a, err := xproto.GetWindowAttributes(conn, w).Reply(); err == nil && a.MapState == xproto.MapStateViewable {
				mapped++
			}
		}
		if mapped == 0 {
			t.Errorf("a headed browser mapped no window on %s", disp)
		}
	})
}
