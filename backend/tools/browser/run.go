package browser

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// maxText bounds get_text so one huge page cannot flood the model's context.
const maxText = 20_000

// stepResult is what one action produced. Failed steps are results, not Go
// errors: the model reads them and re-plans.
type stepResult struct {
	Action string `json:"action"`
	OK     bool   `json:"ok"`
	Text   string `json:"text"`
	URL    string `json:"url"`
	Title  string `json:"title,omitempty"`
	Status int    `json:"status,omitempty"` // navigate: HTTP status
	Width  int    `json:"width,omitempty"`  // screenshot
	Height int    `json:"height,omitempty"` // screenshot
	image  []byte
}

// run performs one action on the session's current page. The caller holds
// s.mu.
func (m *Manager) run(s *session, a Action) stepResult {
	res := stepResult{Action: a.Action}
	page, note, err := m.livePage(s)
	if err != nil {
		res.Text = err.Error()
		return res
	}
	if note != "" && a.Action != VerbNavigate {
		// The page the model expected is gone; acting on a blank one
		// would only produce confusing "not found" errors.
		return m.describeFailure(s, page, a, errors.New(note))
	}
	err = m.act(page, a, &res)
	if s.crashed.Load() {
		_, note, _ := m.livePage(s)
		return m.describeFailure(s, s.current(), a, errors.New(note))
	}
	if err != nil {
		return m.describeFailure(s, page, a, err)
	}
	res.OK = true
	res.URL, res.Title = pageInfo(page)
	s.url.Store(res.URL)
	if note != "" {
		res.Text = note + "\n" + res.Text
	}
	return res
}

// livePage returns the page to act on, replacing a closed or crashed one
// with a fresh blank page; note says what happened to the old one.
func (m *Manager) livePage(s *session) (playwright.Page, string, error) {
	page := s.current()
	var note string
	switch {
	case page == nil:
	case s.crashed.Load():
		note = fmt.Sprintf("the page %s crashed; a fresh blank page is open, navigate again", page.URL())
		_ = page.Close()
	case page.IsClosed():
		note = "the page was closed; a fresh blank page is open, navigate again"
	default:
		return page, "", nil
	}
	s.crashed.Store(false)
	p, err := s.context.NewPage()
	if err != nil {
		return nil, note, fmt.Errorf("opening a browser page: %w", err)
	}
	// The context's OnPage handler adopts p; adopt again in case the
	// event has not been dispatched yet.
	s.adopt(p)
	return p, note, nil
}

func (m *Manager) act(page playwright.Page, a Action, res *stepResult) error {
	ms := func(def time.Duration) *float64 { return playwright.Float(float64(a.timeout(def).Milliseconds())) }
	at := ms(m.opts.ActionTimeout)
	switch a.Action {
	case VerbNavigate:
		resp, err := page.Goto(a.URL, playwright.PageGotoOptions{Timeout: ms(m.opts.NavigationTimeout), WaitUntil: playwright.WaitUntilStateLoad})
		if err != nil {
			return err
		}
		res.Text = "navigated to " + page.URL()
		if resp != nil {
			res.Status = resp.Status()
			res.Text += fmt.Sprintf(" (HTTP %d)", res.Status)
		}
		if final := OriginOf(page.URL()); final != a.origin {
			res.Text += fmt.Sprintf("; redirected from %s to %s", a.origin, final)
		}
	case VerbClick:
		if err := page.Locator(a.Selector).Click(playwright.LocatorClickOptions{Timeout: at}); err != nil {
			return err
		}
		res.Text = "clicked " + a.Selector
	case VerbFill:
		if err := page.Locator(a.Selector).Fill(a.Value, playwright.LocatorFillOptions{Timeout: at}); err != nil {
			return err
		}
		res.Text = fmt.Sprintf("filled %s with %d characters", a.Selector, len(a.Value))
	case VerbPress:
		var err error
		if a.Selector != "" {
			err = page.Locator(a.Selector).Press(a.Key, playwright.LocatorPressOptions{Timeout: at})
		} else {
			err = page.Keyboard().Press(a.Key)
		}
		if err != nil {
			return err
		}
		res.Text = "pressed " + a.Key
	case VerbSelect:
		got, err := page.Locator(a.Selector).SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &[]string{a.Value}}, playwright.LocatorSelectOptionOptions{Timeout: at})
		if err != nil {
			return err
		}
		res.Text = fmt.Sprintf("selected %v in %s", got, a.Selector)
	case VerbHover:
		if err := page.Locator(a.Selector).Hover(playwright.LocatorHoverOptions{Timeout: at}); err != nil {
			return err
		}
		res.Text = "hovering over " + a.Selector
	case VerbWaitFor:
		loc, what := page.Locator(a.Selector), a.Selector
		if a.Text != "" {
			loc, what = page.GetByText(a.Text).First(), fmt.Sprintf("text %q", a.Text)
		}
		if err := loc.WaitFor(playwright.LocatorWaitForOptions{Timeout: at}); err != nil {
			return err
		}
		res.Text = what + " is visible"
	case VerbScreenshot:
		img, err := page.Screenshot(playwright.PageScreenshotOptions{FullPage: playwright.Bool(a.FullPage), Type: playwright.ScreenshotTypePng, Timeout: ms(m.opts.NavigationTimeout)})
		if err != nil {
			return err
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(img))
		if err != nil {
			return fmt.Errorf("the browser returned an unreadable screenshot: %w", err)
		}
		res.image, res.Width, res.Height = img, cfg.Width, cfg.Height
		res.Text = fmt.Sprintf("screenshot %dx%d", cfg.Width, cfg.Height)
	case VerbGetText:
		sel := a.Selector
		if sel == "" {
			sel = "body"
		}
		text, err := page.Locator(sel).InnerText(playwright.LocatorInnerTextOptions{Timeout: at})
		if err != nil {
			return err
		}
		if len(text) > maxText {
			text = text[:maxText] + fmt.Sprintf("\n[… %d more bytes cut]", len(text)-maxText)
		}
		res.Text = text
	default:
		return fmt.Errorf("unknown browser action %q", a.Action)
	}
	return nil
}

// describeFailure turns a playwright error into words the model can act on,
// always naming the page it happened on.
func (m *Manager) describeFailure(s *session, page playwright.Page, a Action, err error) stepResult {
	res := stepResult{Action: a.Action}
	if page != nil && !page.IsClosed() {
		res.URL, res.Title = pageInfo(page)
		s.url.Store(res.URL)
	}
	msg := firstLine(err)
	timeout := a.timeout(m.opts.ActionTimeout)
	switch {
	case a.Action == VerbNavigate && errors.Is(err, playwright.ErrTimeout):
		res.Text = fmt.Sprintf("navigation to %s timed out after %v", a.URL, a.timeout(m.opts.NavigationTimeout))
	case a.Action == VerbNavigate && strings.Contains(msg, "ERR_BLOCKED_BY_CLIENT"):
		res.Text = fmt.Sprintf("navigation to %s was blocked: this session has no network access, so only loopback hosts can be reached", a.URL)
	case a.Action == VerbNavigate:
		res.Text = fmt.Sprintf("navigation to %s failed: %s", a.URL, msg)
	case errors.Is(err, playwright.ErrTimeout) && a.Selector != "":
		res.Text = fmt.Sprintf("no element matching %q became ready within %v", a.Selector, timeout)
	case errors.Is(err, playwright.ErrTimeout) && a.Text != "":
		res.Text = fmt.Sprintf("text %q did not appear within %v", a.Text, timeout)
	default:
		res.Text = fmt.Sprintf("%s failed: %s", a.describe(), msg)
	}
	res.Text += fmt.Sprintf(" (page %s, title %q)", orBlank(res.URL), res.Title)
	return res
}

func pageInfo(page playwright.Page) (url, title string) {
	title, _ = page.Title()
	return page.URL(), title
}

func orBlank(u string) string {
	if u == "" {
		return "about:blank"
	}
	return u
}

// firstLine drops playwright's multi-line call logs, which are noise to a
// model; the first line carries the cause.
func firstLine(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, "net::ERR_"); i >= 0 {
		return msg[i:]
	}
	return strings.TrimPrefix(strings.TrimPrefix(msg, "playwright: "), "timeout: ")
}
