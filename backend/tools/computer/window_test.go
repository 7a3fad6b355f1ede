package computer

import (
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// testWindow is a plain X window that records the input it receives: the
// app whose own state proves what computer.use did.
type testWindow struct {
	conn *xgb.Conn
	win  xproto.Window

	mu      sync.Mutex
	presses []xproto.ButtonPressEvent
	keys    []keyEvent
	minKC   xproto.Keycode
}

// keyEvent is a key press as the window understood it when it arrived.
type keyEvent struct {
	sym   Keysym
	state uint16
}

// openWindow maps a window of one solid colour at x,y and gives it focus.
func openWindow(t *testing.T, display string, x, y, w, h int, rgb uint32) *testWindow {
	t.Helper()
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatalf("test window: %v", err)
	}
	t.Cleanup(conn.Close)
	screen := xproto.Setup(conn).DefaultScreen(conn)
	win, err := xproto.NewWindowId(conn)
	if err != nil {
		t.Fatal(err)
	}
	tw := &testWindow{conn: conn, win: win, minKC: xproto.Setup(conn).MinKeycode}
	mask := uint32(xproto.EventMaskButtonPress | xproto.EventMaskKeyPress | xproto.EventMaskStructureNotify | xproto.EventMaskExposure)
	if err := xproto.CreateWindowChecked(conn, screen.RootDepth, win, screen.Root, int16(x), int16(y), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, screen.RootVisual, xproto.CwBackPixel|xproto.CwEventMask, []uint32{rgb, mask}).Check(); err != nil {
		t.Fatalf("creating the test window: %v", err)
	}
	mapped := make(chan struct{})
	go tw.loop(mapped)
	if err := xproto.MapWindowChecked(conn, win).Check(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-mapped:
	case <-time.After(10 * time.Second):
		t.Fatal("the test window was never exposed")
	}
	if err := xproto.SetInputFocusChecked(conn, xproto.InputFocusPointerRoot, win, xproto.TimeCurrentTime).Check(); err != nil {
		t.Fatal(err)
	}
	return tw
}

func (tw *testWindow) loop(mapped chan struct{}) {
	once := sync.Once{}
	for {
		ev, err := tw.conn.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
		switch e := ev.(type) {
		case xproto.ExposeEvent:
			once.Do(func() { close(mapped) })
		case xproto.ButtonPressEvent:
			tw.mu.Lock()
			tw.presses = append(tw.presses, e)
			tw.mu.Unlock()
		case xproto.KeyPressEvent:
			// Look the key up now, as a toolkit would: a spare key bound
			// for one character is unbound again afterwards.
			level := 0
			if e.State&xproto.KeyButMaskShift != 0 {
				level = 1
			}
			sym := Keysym(0)
			if km, err := xproto.GetKeyboardMapping(tw.conn, e.Detail, 1).Reply(); err == nil && len(km.Keysyms) > level {
				sym = Keysym(km.Keysyms[level])
				if sym == 0 {
					sym = Keysym(km.Keysyms[0])
				}
			}
			tw.mu.Lock()
			tw.keys = append(tw.keys, keyEvent{sym: sym, state: e.State})
			tw.mu.Unlock()
		}
	}
}

// waitPresses waits until the window has seen n button presses.
func (tw *testWindow) waitPresses(t *testing.T, n int) []xproto.ButtonPressEvent {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		tw.mu.Lock()
		got := append([]xproto.ButtonPressEvent(nil), tw.presses...)
		tw.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitKeys waits until the window has seen n key presses.
func (tw *testWindow) waitKeys(t *testing.T, n int) []keyEvent {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		tw.mu.Lock()
		got := append([]keyEvent(nil), tw.keys...)
		tw.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (tw *testWindow) reset() {
	tw.mu.Lock()
	tw.presses, tw.keys = nil, nil
	tw.mu.Unlock()
}
