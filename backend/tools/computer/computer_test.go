package computer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/jezek/xgb/xproto"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

func invoke(t *testing.T, tool *Tool, args string) tools.Result {
	t.Helper()
	res, err := tool.Invoke(context.Background(), json.RawMessage(args), tools.Env{SessionID: "s"})
	if err != nil {
		t.Fatalf("Invoke(%s): %v", args, err)
	}
	return res
}

func ok(t *testing.T, tool *Tool, args string) string {
	t.Helper()
	res := invoke(t, tool, args)
	if res.IsError {
		t.Fatalf("Invoke(%s) failed: %s", args, res.Content[0].Text)
	}
	return res.Content[0].Text
}

func screenshotOf(t *testing.T, tool *Tool) image.Image {
	t.Helper()
	res := invoke(t, tool, `{"action": "screenshot"}`)
	if res.IsError || len(res.Content) != 2 || res.Content[1].MimeType != "image/png" {
		t.Fatalf("screenshot result: %+v", res.Content)
	}
	img, err := png.Decode(bytes.NewReader(res.Content[1].Data))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	return img
}

func rgbAt(img image.Image, x, y int) [3]uint32 {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint32{r >> 8, g >> 8, b >> 8}
}

// typed turns key presses back into text, skipping modifier keys.
func typed(keys []keyEvent) string {
	var b strings.Builder
	for _, k := range keys {
		switch {
		case k.sym >= 0xffe1 && k.sym <= 0xffee:
		case k.sym == ksReturn:
			b.WriteRune('\n')
		case k.sym >= 0x01000000:
			b.WriteRune(rune(k.sym - 0x01000000))
		default:
			b.WriteRune(rune(k.sym))
		}
	}
	return b.String()
}

func TestComputerUseOnXvfb(t *testing.T) {
	// +xinerama lets kbinani/screenshot see the screen, so its capture
	// path (not the GetImage fallback) takes these screenshots.
	disp := startXvfb(t, "+xinerama")
	t.Setenv("DISPLAY", disp)
	win := openWindow(t, disp, 100, 100, 200, 120, 0xff0000)
	tool := New(Options{})

	t.Run("screenshot shows the window", func(t *testing.T) {
		img := screenshotOf(t, tool)
		if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 480 {
			t.Fatalf("screenshot is %v, want 640x480", b)
		}
		if got := rgbAt(img, 150, 150); got != [3]uint32{255, 0, 0} {
			t.Errorf("inside the window: %v, want red", got)
		}
		if got := rgbAt(img, 20, 20); got != [3]uint32{0, 0, 0} {
			t.Errorf("outside the window: %v, want the black root", got)
		}
	})
	clicks := []struct {
		name     string
		args     string
		presses  int
		button   xproto.Button
		wx, wy   int16
		wantText string
	}{
		{"left click lands where asked", `{"action": "click", "x": 150, "y": 130}`, 1, 1, 50, 30, "pointer at 150,130"},
		{"right click", `{"action": "click", "x": 290, "y": 210, "button": "right"}`, 1, 3, 190, 110, "click right"},
		{"click at the pointer", `{"action": "click", "button": "middle"}`, 1, 2, 190, 110, "pointer at 290,210"},
		{"double click is two presses", `{"action": "double_click", "x": 101, "y": 101}`, 2, 1, 1, 1, "double_click left"},
		{"scroll down is wheel button 5", `{"action": "scroll", "direction": "down", "amount": 2, "x": 120, "y": 120}`, 2, 5, 20, 20, "scrolled down 2"},
		{"scroll left is wheel button 6", `{"action": "scroll", "direction": "left"}`, 3, 6, 20, 20, "scrolled left 3"},
	}
	for _, c := range clicks {
		t.Run(c.name, func(t *testing.T) {
			win.reset()
			if got := ok(t, tool, c.args); !strings.Contains(got, c.wantText) {
				t.Errorf("result %q does not contain %q", got, c.wantText)
			}
			got := win.waitPresses(t, c.presses)
			if len(got) != c.presses {
				t.Fatalf("window saw %d presses, want %d", len(got), c.presses)
			}
			for _, p := range got {
				if p.Detail != c.button || p.EventX != c.wx || p.EventY != c.wy {
					t.Errorf("press button %d at %d,%d in the window; want button %d at %d,%d", p.Detail, p.EventX, p.EventY, c.button, c.wx, c.wy)
				}
			}
		})
	}
	t.Run("move", func(t *testing.T) {
		if got := ok(t, tool, `{"action": "move", "x": 400, "y": 300}`); !strings.Contains(got, "pointer at 400,300") {
			t.Errorf("move result %q", got)
		}
		// The window keeps focus: it was given it explicitly.
	})
	keys := []struct {
		name, args, want string
	}{
		{"type ascii with shifted characters", `{"action": "type", "text": "Hello, World! 42"}`, "Hello, World! 42"},
		{"type a newline", `{"action": "type", "text": "a\nb"}`, "a\nb"},
		{"type characters the layout lacks", `{"action": "type", "text": "é€"}`, "é€"},
	}
	for _, c := range keys {
		t.Run(c.name, func(t *testing.T) {
			win.reset()
			ok(t, tool, c.args)
			want := len([]rune(c.want))
			var got []keyEvent
			for range 50 {
				got = win.waitKeys(t, want)
				if len([]rune(typed(got))) >= want {
					break
				}
			}
			if s := typed(got); s != c.want {
				t.Errorf("window received %q, want %q", s, c.want)
			}
		})
	}
	t.Run("key combo holds the modifier", func(t *testing.T) {
		win.reset()
		ok(t, tool, `{"action": "key", "combo": "ctrl+a"}`)
		got := win.waitKeys(t, 2)
		if len(got) != 2 || got[0].sym != ksControlL || got[1].sym != 'a' || got[1].state&xproto.ModMaskControl == 0 {
			t.Errorf("window saw %+v, want Control_L then a with the control mask", got)
		}
	})
	t.Run("keyboard map is restored after typing", func(t *testing.T) {
		d, err := openDisplay(disp)
		if err != nil {
			t.Fatal(err)
		}
		defer d.close()
		if _, _, found := d.keycode(Keysym(0x01000000 + '€')); found {
			t.Errorf("the spare key bound for € is still mapped")
		}
	})
	t.Run("point outside the screen", func(t *testing.T) {
		res := invoke(t, tool, `{"action": "click", "x": 640, "y": 10}`)
		if !res.IsError || !strings.Contains(res.Content[0].Text, "outside the 640x480 screen") {
			t.Errorf("got %+v", res)
		}
	})
}

func TestNoDisplay(t *testing.T) {
	cases := []struct {
		name, display, want string
	}{
		{"DISPLAY unset", "", "DISPLAY is not set"},
		{"no server there", ":4095", "cannot connect to X display :4095"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("DISPLAY", c.display)
			for _, args := range []string{`{"action": "screenshot"}`, `{"action": "click", "x": 1, "y": 1}`} {
				res := invoke(t, New(Options{}), args)
				if !res.IsError || !strings.Contains(res.Content[0].Text, c.want) {
					t.Errorf("%s: got %+v, want an error containing %q", args, res.Content, c.want)
				}
			}
		})
	}
}

func TestEffects(t *testing.T) {
	cases := []struct {
		args, want string
	}{
		{`{"action": "screenshot"}`, "screenshot"},
		{`{"action": "move", "x": 1, "y": 2}`, "control"},
		{`{"action": "click"}`, "control"},
		{`{"action": "double_click", "x": 3, "y": 4}`, "control"},
		{`{"action": "type", "text": "x"}`, "control"},
		{`{"action": "key", "combo": "ctrl+c"}`, "control"},
		{`{"action": "scroll", "direction": "up"}`, "control"},
	}
	tool := New(Options{})
	for _, c := range cases {
		got, err := tool.Effects(json.RawMessage(c.args), tools.Env{})
		want := []policy.Effect{{Kind: policy.EffectDesktop, Action: c.want}}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Effects(%s) = %+v, %v; want %+v", c.args, got, err, want)
		}
	}
	if _, err := tool.Effects(json.RawMessage(`{"action": "click", "x": 1}`), tools.Env{}); err == nil {
		t.Errorf("a click with x and no y must be refused before the gate")
	}
}
