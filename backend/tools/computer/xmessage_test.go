package computer

import (
	"errors"
	"image"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/kbinani/screenshot"
)

// TestClickXmessageButton drives a real third-party X client: xmessage
// exits with the code of the button pressed, so its exit status proves the
// click. This Xvfb has no Xinerama, so screenshots take the GetImage path.
func TestClickXmessageButton(t *testing.T) {
	bin, err := exec.LookPath("xmessage")
	if err != nil {
		t.Fatalf("xmessage is required for this test (apt install x11-utils): %v", err)
	}
	disp := startXvfb(t)
	t.Setenv("DISPLAY", disp)
	app := exec.Command(bin, "-geometry", "+200+150", "-buttons", "Press:7", "hello from warden")
	app.Env = append(os.Environ(), "DISPLAY="+disp)
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	t.Cleanup(func() {
		app.Process.Kill()
		<-exited
	})
	button := findLeafButton(t, disp)
	tool := New(Options{})

	img := screenshotOf(t, tool)
	if got := rgbAt(img, button.Min.X+1, button.Min.Y+1); got == [3]uint32{0, 0, 0} {
		t.Errorf("the screenshot shows black where xmessage's button is")
	}
	if got := rgbAt(img, 20, 20); got != [3]uint32{0, 0, 0} {
		t.Errorf("the screenshot shows %v on the empty root, want black", got)
	}

	cx, cy := (button.Min.X+button.Max.X)/2, (button.Min.Y+button.Max.Y)/2
	ok(t, tool, `{"action": "click", "x": `+itoa(cx)+`, "y": `+itoa(cy)+`}`)
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 7 {
			t.Fatalf("xmessage ended with %v, want exit code 7 (its Press button)", err)
		}
		exited <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("xmessage did not exit after its button was clicked")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// findLeafButton waits for xmessage's window and returns the screen
// rectangle of its button: the childless child of its form (the message
// text has a child of its own).
func findLeafButton(t *testing.T, disp string) image.Rectangle {
	t.Helper()
	conn, err := xgb.NewConnDisplay(disp)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if r, found := leafButton(conn, root); found {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("xmessage's button never appeared")
	return image.Rectangle{}
}

func leafButton(conn *xgb.Conn, root xproto.Window) (image.Rectangle, bool) {
	top, err := xproto.QueryTree(conn, root).Reply()
	if err != nil || len(top.Children) == 0 {
		return image.Rectangle{}, false
	}
	form, err := xproto.QueryTree(conn, top.Children[len(top.Children)-1]).Reply()
	if err != nil || len(form.Children) != 1 {
		return image.Rectangle{}, false
	}
	widgets, err := xproto.QueryTree(conn, form.Children[0]).Reply()
	if err != nil {
		return image.Rectangle{}, false
	}
	for _, w := range widgets.Children {
		kids, err := xproto.QueryTree(conn, w).Reply()
		if err != nil || len(kids.Children) != 0 {
			continue
		}
		attrs, err := xproto.GetWindowAttributes(conn, w).Reply()
		if err != nil || attrs.MapState != xproto.MapStateViewable {
			continue
		}
		g, err := xproto.GetGeometry(conn, xproto.Drawable(w)).Reply()
		if err != nil {
			continue
		}
		at, err := xproto.TranslateCoordinates(conn, w, root, 0, 0).Reply()
		if err != nil {
			continue
		}
		x, y := int(at.DstX), int(at.DstY)
		return image.Rect(x, y, x+int(g.Width), y+int(g.Height)), true
	}
	return image.Rectangle{}, false
}

// TestCapturePathsAgree: kbinani/screenshot (Xinerama + shared memory) and
// the GetImage fallback must return the same pixels.
func TestCapturePathsAgree(t *testing.T) {
	disp := startXvfb(t, "+xinerama")
	t.Setenv("DISPLAY", disp)
	openWindow(t, disp, 30, 40, 100, 50, 0x00ff80)
	if screenshot.NumActiveDisplays() == 0 {
		t.Fatal("kbinani/screenshot sees no display on an Xvfb with Xinerama")
	}
	d, err := openDisplay(disp)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	a, err := screenshot.CaptureRect(image.Rect(0, 0, d.width, d.height))
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.getImage()
	if err != nil {
		t.Fatal(err)
	}
	if a.Bounds() != b.Bounds() {
		t.Fatalf("bounds differ: %v vs %v", a.Bounds(), b.Bounds())
	}
	for i := range a.Pix {
		if i%4 != 3 && a.Pix[i] != b.Pix[i] {
			t.Fatalf("pixel byte %d differs: %d vs %d", i, a.Pix[i], b.Pix[i])
		}
	}
	if got := rgbAt(b, 50, 60); got != [3]uint32{0, 255, 128} {
		t.Errorf("window pixel %v, want 0,255,128", got)
	}
}
