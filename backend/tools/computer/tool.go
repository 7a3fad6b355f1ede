// Package computer implements computer.use: screenshots of an X11 screen
// and pointer/keyboard input injected through XTEST, both pure Go
// (kbinani/screenshot and jezek/xgb).
//
// Effects: screenshot is Desktop{screenshot}, a read; every input action is
// Desktop{control}, which the policy asks about under OnRequest and refuses
// under ReadOnly. The tool drives the display named by $DISPLAY (or the
// one in Options); with none it fails with a clear error. Under Wayland
// only XWayland windows receive the input.
package computer

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"image/png"
	"os"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// Options configure the tool.
type Options struct {
	// Display is the X display to drive; default $DISPLAY at each call.
	Display string
}

// Tool is computer.use.
type Tool = tools.Typed[Action]

// New returns computer.use.
func New(opts Options) *Tool {
	t := &desktop{opts: opts}
	return tools.NewTyped(tools.Spec[Action]{Name: "computer.use", Description: description, Risk: policy.RiskHigh,
		Decode: ParseAction, Schema: json.RawMessage(schema), Effects: effects, Invoke: t.invoke})
}

// desktop drives the display of its options.
type desktop struct{ opts Options }

//go:embed computer_use.md
var description string

// effects: a screenshot reads the screen; anything else controls it.
func effects(a Action, _ tools.Env) ([]policy.Effect, error) {
	action := "control"
	if a.Action == ActScreenshot {
		action = "screenshot"
	}
	return []policy.Effect{{Kind: policy.EffectDesktop, Action: action}}, nil
}

func (t *desktop) display() string {
	if t.opts.Display != "" {
		return t.opts.Display
	}
	return os.Getenv("DISPLAY")
}

func (t *desktop) invoke(ctx context.Context, a Action, env tools.Env) (tools.Result, error) {
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	d, err := openDisplay(t.display())
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	defer d.close()
	res, err := t.perform(d, a)
	if err != nil {
		return tools.ErrorResult(fmt.Sprintf("%s failed: %v", a.Action, err)), nil
	}
	return res, nil
}

func (t *desktop) perform(d *display, a Action) (tools.Result, error) {
	if a.X != nil && (*a.X >= d.width || *a.Y >= d.height) {
		return tools.Result{}, fmt.Errorf("point %d,%d is outside the %dx%d screen", *a.X, *a.Y, d.width, d.height)
	}
	if a.X != nil {
		d.move(*a.X, *a.Y)
	}
	var done string
	switch a.Action {
	case ActScreenshot:
		img, err := d.capture()
		if err != nil {
			return tools.Result{}, err
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return tools.Result{}, fmt.Errorf("encoding the screenshot: %w", err)
		}
		x, y, _ := d.pointer()
		return tools.Result{Content: []tools.Content{
			{Type: "text", Text: fmt.Sprintf("screen %dx%d on %s, pointer at %d,%d", d.width, d.height, d.name, x, y)},
			{Type: "image", MimeType: "image/png", Data: buf.Bytes()},
		}}, nil
	case ActMove:
		done = "moved the pointer"
	case ActClick, ActDoubleClick:
		times := 1
		if a.Action == ActDoubleClick {
			times = 2
		}
		d.click(buttons[a.Button], times)
		done = fmt.Sprintf("%s %s", a.Action, a.Button)
	case ActType:
		for _, r := range a.Text {
			sym, _ := RuneKeysym(r) // ParseAction checked every rune
			if err := d.press(nil, sym); err != nil {
				return tools.Result{}, err
			}
		}
		done = fmt.Sprintf("typed %d characters", len([]rune(a.Text)))
	case ActKey:
		c, _ := ParseCombo(a.Combo)
		if err := d.press(c.Modifiers, c.Key); err != nil {
			return tools.Result{}, err
		}
		done = "pressed " + a.Combo
	case ActScroll:
		for range a.Amount {
			d.click(scrollButtons[a.Direction], 1)
		}
		done = fmt.Sprintf("scrolled %s %d", a.Direction, a.Amount)
	}
	if err := d.sync(); err != nil {
		return tools.Result{}, fmt.Errorf("X server: %w", err)
	}
	if err := d.unbind(); err != nil {
		return tools.Result{}, err
	}
	x, y, err := d.pointer()
	if err != nil {
		return tools.Result{}, fmt.Errorf("X server: %w", err)
	}
	return tools.TextResult(fmt.Sprintf("%s; pointer at %d,%d", done, x, y)), nil
}
