package computer

import (
	"fmt"
	"image"
	"os"
	"slices"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
	"github.com/kbinani/screenshot"
)

// X event types XTEST fakes.
const (
	xKeyPress      = 2
	xKeyRelease    = 3
	xButtonPress   = 4
	xButtonRelease = 5
	xMotionNotify  = 6
)

// display is one connection to an X server with XTEST.
type display struct {
	name          string
	conn          *xgb.Conn
	root          xproto.Window
	width, height int
	depth         byte
	minKC         xproto.Keycode
	perKC         int
	syms          []xproto.Keysym // keyboard mapping from minKC on
	scratch       []xproto.Keycode
}

// openDisplay connects and checks what input injection needs. name "" is
// refused rather than guessed: which screen to drive is the user's call.
func openDisplay(name string) (*display, error) {
	if name == "" {
		return nil, fmt.Errorf("computer.use needs an X11 display, and DISPLAY is not set")
	}
	conn, err := xgb.NewConnDisplay(name)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to X display %s: %w", name, err)
	}
	d := &display{name: name, conn: conn}
	if err := xtest.Init(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("X display %s has no XTEST extension, so input cannot be injected: %w", name, err)
	}
	setup := xproto.Setup(conn)
	screen := setup.DefaultScreen(conn)
	d.root, d.width, d.height, d.depth = screen.Root, int(screen.WidthInPixels), int(screen.HeightInPixels), screen.RootDepth
	d.minKC = setup.MinKeycode
	km, err := xproto.GetKeyboardMapping(conn, setup.MinKeycode, byte(setup.MaxKeycode-setup.MinKeycode+1)).Reply()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("reading the keyboard map of %s: %w", name, err)
	}
	d.perKC, d.syms = int(km.KeysymsPerKeycode), km.Keysyms
	return d, nil
}

func (d *display) close() { d.conn.Close() }

func (d *display) fake(typ, detail byte, x, y int) {
	xtest.FakeInput(d.conn, typ, detail, 0, d.root, int16(x), int16(y), 0)
}

// sync waits until the server has processed everything sent so far, so a
// caller that returns "clicked" means the click happened.
func (d *display) sync() error {
	_, err := xproto.GetInputFocus(d.conn).Reply()
	return err
}

func (d *display) move(x, y int) { d.fake(xMotionNotify, 0, x, y) }

func (d *display) click(button byte, times int) {
	for i := range times {
		if i > 0 {
			// Well inside every toolkit's double-click interval, but a
			// real gap so it is not read as one bouncing press.
			time.Sleep(40 * time.Millisecond)
		}
		d.fake(xButtonPress, button, 0, 0)
		d.fake(xButtonRelease, button, 0, 0)
	}
}

func (d *display) pointer() (int, int, error) {
	r, err := xproto.QueryPointer(d.conn, d.root).Reply()
	if err != nil {
		return 0, 0, err
	}
	return int(r.RootX), int(r.RootY), nil
}

// keycode finds the key producing sym and whether shift is needed for it.
func (d *display) keycode(sym Keysym) (xproto.Keycode, bool, bool) {
	for level := range min(d.perKC, 2) {
		for i := 0; i*d.perKC+level < len(d.syms); i++ {
			if Keysym(d.syms[i*d.perKC+level]) == sym {
				return d.minKC + xproto.Keycode(i), level == 1, true
			}
		}
	}
	return 0, false, false
}

// bind maps sym onto an unused keycode for the duration of one action, the
// way xdotool types characters the layout does not have.
func (d *display) bind(sym Keysym) (xproto.Keycode, error) {
	for i := 0; i*d.perKC < len(d.syms); i++ {
		kc := d.minKC + xproto.Keycode(i)
		if kc < 9 || !d.unused(i) {
			continue
		}
		row := make([]xproto.Keysym, d.perKC)
		for j := range row {
			row[j] = xproto.Keysym(sym)
		}
		if err := xproto.ChangeKeyboardMappingChecked(d.conn, 1, kc, byte(d.perKC), row).Check(); err != nil {
			return 0, fmt.Errorf("remapping a spare key: %w", err)
		}
		copy(d.syms[i*d.perKC:], row)
		d.scratch = append(d.scratch, kc)
		return kc, nil
	}
	return 0, fmt.Errorf("no spare key left to type keysym %#x", uint32(sym))
}

func (d *display) unused(i int) bool {
	for _, s := range d.syms[i*d.perKC : (i+1)*d.perKC] {
		if s != 0 {
			return false
		}
	}
	return true
}

// unbind clears the keycodes bind used, after the target had time to
// look the keys up.
func (d *display) unbind() error {
	if len(d.scratch) == 0 {
		return nil
	}
	time.Sleep(150 * time.Millisecond)
	empty := make([]xproto.Keysym, d.perKC)
	for _, kc := range d.scratch {
		if err := xproto.ChangeKeyboardMappingChecked(d.conn, 1, kc, byte(d.perKC), empty).Check(); err != nil {
			return fmt.Errorf("restoring the keyboard map: %w", err)
		}
	}
	d.scratch = nil
	return nil
}

// press sends a chord: modifiers down, key down and up, modifiers up in
// reverse. Characters the layout lacks are bound to a spare key first.
func (d *display) press(mods []Keysym, key Keysym) error {
	var down []xproto.Keycode
	for _, m := range mods {
		kc, _, ok := d.keycode(m)
		if !ok {
			return fmt.Errorf("the keyboard map has no key for modifier %#x", uint32(m))
		}
		down = append(down, kc)
	}
	kc, shift, ok := d.keycode(key)
	if !ok {
		var err error
		if kc, err = d.bind(key); err != nil {
			return err
		}
	}
	if shift && !slices.Contains(mods, ksShiftL) {
		skc, _, ok := d.keycode(ksShiftL)
		if !ok {
			return fmt.Errorf("the keyboard map has no shift key")
		}
		down = append(down, skc)
	}
	for _, m := range down {
		d.fake(xKeyPress, byte(m), 0, 0)
	}
	d.fake(xKeyPress, byte(kc), 0, 0)
	d.fake(xKeyRelease, byte(kc), 0, 0)
	for i := len(down) - 1; i >= 0; i-- {
		d.fake(xKeyRelease, byte(down[i]), 0, 0)
	}
	return nil
}

// capture grabs the whole screen. kbinani/screenshot does it (with shared
// memory) when it can see the screen layout through Xinerama on $DISPLAY;
// otherwise the root window is read with GetImage on our own connection.
func (d *display) capture() (*image.RGBA, error) {
	if d.name == os.Getenv("DISPLAY") && screenshot.NumActiveDisplays() > 0 {
		img, err := screenshot.CaptureRect(image.Rect(0, 0, d.width, d.height))
		if err == nil {
			return img, nil
		}
	}
	return d.getImage()
}

func (d *display) getImage() (*image.RGBA, error) {
	if d.depth != 24 && d.depth != 32 {
		return nil, fmt.Errorf("screen depth %d is not supported (24 or 32 bits)", d.depth)
	}
	const zPixmap = 2
	img := image.NewRGBA(image.Rect(0, 0, d.width, d.height))
	// Strips keep each reply well under the server's maximum request size.
	strip := max(1, (4<<20)/(4*d.width))
	for y0 := 0; y0 < d.height; y0 += strip {
		h := min(strip, d.height-y0)
		r, err := xproto.GetImage(d.conn, zPixmap, xproto.Drawable(d.root), 0, int16(y0), uint16(d.width), uint16(h), 0xffffffff).Reply()
		if err != nil {
			return nil, fmt.Errorf("reading the screen: %w", err)
		}
		if len(r.Data) < 4*d.width*h {
			return nil, fmt.Errorf("reading the screen: short image (%d bytes for %dx%d)", len(r.Data), d.width, h)
		}
		for i := 0; i < d.width*h; i++ {
			// ZPixmap at depth 24/32 is BGRX in memory.
			o := (y0*d.width + i) * 4
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = r.Data[i*4+2], r.Data[i*4+1], r.Data[i*4], 0xff
		}
	}
	return img, nil
}
