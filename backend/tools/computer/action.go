package computer

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Actions computer.use accepts.
const (
	ActScreenshot  = "screenshot"
	ActMove        = "move"
	ActClick       = "click"
	ActDoubleClick = "double_click"
	ActType        = "type"
	ActKey         = "key"
	ActScroll      = "scroll"
)

const (
	maxTypeRunes = 10_000
	maxScroll    = 50
)

var buttons = map[string]byte{"left": 1, "middle": 2, "right": 3}

// X11 reports wheel motion as presses of buttons 4-7.
var scrollButtons = map[string]byte{"up": 4, "down": 5, "left": 6, "right": 7}

// Action is one computer.use call, decoded and checked.
type Action struct {
	Action    string `json:"action"`
	X         *int   `json:"x,omitempty"`
	Y         *int   `json:"y,omitempty"`
	Button    string `json:"button,omitempty"`
	Text      string `json:"text,omitempty"`
	Combo     string `json:"combo,omitempty"`
	Direction string `json:"direction,omitempty"`
	Amount    int    `json:"amount,omitempty"`
}

// ParseAction decodes and validates; after it, perform cannot meet a bad
// argument. Unknown fields are refused so a typo does not click elsewhere.
func ParseAction(raw json.RawMessage) (Action, error) {
	var a Action
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Action{}, fmt.Errorf("invalid computer.use call: %w", err)
	}
	if dec.More() {
		return Action{}, fmt.Errorf("invalid computer.use call: trailing data after the object")
	}
	return a, a.check()
}

func (a *Action) check() error {
	if (a.X == nil) != (a.Y == nil) {
		return fmt.Errorf("%s needs both x and y, or neither", a.Action)
	}
	if a.X != nil && (*a.X < 0 || *a.Y < 0 || *a.X > 32767 || *a.Y > 32767) {
		return fmt.Errorf("point %d,%d is off the screen", *a.X, *a.Y)
	}
	switch a.Action {
	case ActScreenshot, ActType, ActKey:
		if a.X != nil {
			return fmt.Errorf("%s takes no x/y", a.Action)
		}
	}
	switch a.Action {
	case ActScreenshot:
	case ActMove:
		if a.X == nil {
			return fmt.Errorf("move needs x and y")
		}
	case ActClick, ActDoubleClick:
		if a.Button == "" {
			a.Button = "left"
		}
		if _, ok := buttons[a.Button]; !ok {
			return fmt.Errorf("button %q is not left, middle or right", a.Button)
		}
	case ActType:
		if a.Text == "" {
			return fmt.Errorf("type needs \"text\"")
		}
		n := 0
		for _, r := range a.Text {
			if _, err := RuneKeysym(r); err != nil {
				return fmt.Errorf("type: %w", err)
			}
			n++
		}
		if n > maxTypeRunes {
			return fmt.Errorf("type: text has %d characters, at most %d", n, maxTypeRunes)
		}
	case ActKey:
		if _, err := ParseCombo(a.Combo); err != nil {
			return err
		}
	case ActScroll:
		if _, ok := scrollButtons[a.Direction]; !ok {
			return fmt.Errorf("scroll needs \"direction\": up, down, left or right")
		}
		if a.Amount == 0 {
			a.Amount = 3
		}
		if a.Amount < 1 || a.Amount > maxScroll {
			return fmt.Errorf("scroll amount must be 1 to %d", maxScroll)
		}
	case "":
		return fmt.Errorf("computer.use needs \"action\" (screenshot, move, click, double_click, type, key, scroll)")
	default:
		return fmt.Errorf("unknown computer.use action %q (screenshot, move, click, double_click, type, key, scroll)", a.Action)
	}
	return nil
}

const schema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["screenshot", "move", "click", "double_click", "type", "key", "scroll"]},
    "x": {"type": "integer", "minimum": 0},
    "y": {"type": "integer", "minimum": 0},
    "button": {"type": "string", "enum": ["left", "middle", "right"]},
    "text": {"type": "string", "description": "text to type"},
    "combo": {"type": "string", "description": "key chord, e.g. ctrl+a, Return, alt+F4"},
    "direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
    "amount": {"type": "integer", "minimum": 1, "maximum": 50, "description": "wheel steps, default 3"}
  },
  "required": ["action"],
  "additionalProperties": false
}`
