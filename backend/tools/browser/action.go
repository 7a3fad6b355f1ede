package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Verbs the browser tools accept. There is deliberately no "evaluate":
// arbitrary JavaScript is code execution, which the gate could not see.
const (
	VerbNavigate   = "navigate"
	VerbClick      = "click"
	VerbFill       = "fill"
	VerbPress      = "press"
	VerbSelect     = "select"
	VerbHover      = "hover"
	VerbWaitFor    = "wait_for"
	VerbScreenshot = "screenshot"
	VerbGetText    = "get_text"
)

// maxTimeout bounds what a model may ask for, so one call cannot park a
// session for minutes.
const maxTimeout = 2 * time.Minute

// Action is one browser step, decoded and checked.
type Action struct {
	Action    string `json:"action"`
	URL       string `json:"url,omitempty"`
	Selector  string `json:"selector,omitempty"`
	Value     string `json:"value,omitempty"`
	Key       string `json:"key,omitempty"`
	Text      string `json:"text,omitempty"`
	TimeoutMS int    `json:"timeout_ms,omitempty"`
	FullPage  bool   `json:"full_page,omitempty"`

	// origin is the navigate target's origin, set by ParseAction.
	origin string
}

// ParseAction decodes and validates one action. Unknown fields are refused
// so a typo ("selecter") fails loudly instead of acting on the wrong thing.
func ParseAction(raw json.RawMessage) (Action, error) {
	var a Action
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Action{}, fmt.Errorf("invalid browser action: %w", err)
	}
	if dec.More() {
		return Action{}, fmt.Errorf("invalid browser action: trailing data after the object")
	}
	if err := a.check(); err != nil {
		return Action{}, err
	}
	return a, nil
}

func (a *Action) check() error {
	if a.TimeoutMS < 0 || time.Duration(a.TimeoutMS)*time.Millisecond > maxTimeout {
		return fmt.Errorf("timeout_ms must be between 0 and %d", maxTimeout.Milliseconds())
	}
	need := func(field, v string) error {
		if v == "" {
			return fmt.Errorf("%s needs %q", a.Action, field)
		}
		return nil
	}
	switch a.Action {
	case VerbNavigate:
		if err := need("url", a.URL); err != nil {
			return err
		}
		_, origin, err := TargetOrigin(a.URL)
		if err != nil {
			return err
		}
		a.origin = origin
		return nil
	case VerbClick, VerbHover:
		return need("selector", a.Selector)
	case VerbFill, VerbSelect:
		// An empty value is legitimate for fill (clearing a field), so only
		// the selector is required.
		return need("selector", a.Selector)
	case VerbPress:
		return need("key", a.Key)
	case VerbWaitFor:
		if (a.Selector == "") == (a.Text == "") {
			return fmt.Errorf("wait_for needs exactly one of \"selector\" or \"text\"")
		}
		return nil
	case VerbScreenshot, VerbGetText:
		return nil
	case "":
		return fmt.Errorf("browser action needs \"action\" (one of %s)", verbList)
	case "evaluate":
		return fmt.Errorf("evaluate is not offered: running arbitrary JavaScript is code execution")
	default:
		return fmt.Errorf("unknown browser action %q (one of %s)", a.Action, verbList)
	}
}

const verbList = "navigate, click, fill, press, select, hover, wait_for, screenshot, get_text"

// timeout is the action's own timeout or the default.
func (a Action) timeout(def time.Duration) time.Duration {
	if a.TimeoutMS > 0 {
		return time.Duration(a.TimeoutMS) * time.Millisecond
	}
	return def
}

// describe names the step in results and batch failure reports.
func (a Action) describe() string {
	switch {
	case a.URL != "":
		return fmt.Sprintf("%s %s", a.Action, a.URL)
	case a.Selector != "":
		return fmt.Sprintf("%s %s", a.Action, a.Selector)
	case a.Key != "":
		return fmt.Sprintf("%s %s", a.Action, a.Key)
	case a.Text != "":
		return fmt.Sprintf("%s text %q", a.Action, a.Text)
	}
	return a.Action
}

// actionSchema is shared by browser.action and each step of browser.batch.
const actionSchema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["navigate", "click", "fill", "press", "select", "hover", "wait_for", "screenshot", "get_text"],
      "description": "navigate {url}; click/hover {selector}; fill/select {selector, value}; press {key, selector?}; wait_for {selector | text}; screenshot {full_page?}; get_text {selector?}"},
    "url": {"type": "string", "description": "http(s) URL for navigate"},
    "selector": {"type": "string", "description": "Playwright selector (CSS, text=..., role=...)"},
    "value": {"type": "string", "description": "text to fill, or the option value/label to select"},
    "key": {"type": "string", "description": "key for press, e.g. Enter, Tab, Control+A"},
    "text": {"type": "string", "description": "visible text to wait for"},
    "timeout_ms": {"type": "integer", "minimum": 0, "maximum": 120000},
    "full_page": {"type": "boolean", "description": "screenshot the whole scrollable page"}
  },
  "required": ["action"],
  "additionalProperties": false
}`
