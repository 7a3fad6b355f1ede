package browser

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// Options configure a Manager. The zero value works on a machine set up by
// the project's setup script: headless chromium from PATH, playwright-core
// from the repo's driver folder.
type Options struct {
	Headed         bool   // show the browser window (needs DISPLAY)
	ChromiumPath   string // default $WARDEN_CHROMIUM, then chromium on PATH
	NodePath       string // default $PLAYWRIGHT_NODEJS_PATH, then the Node pinned beside playwright-core, then node >= 20 on PATH
	CorePackageDir string // playwright-core 1.64.1; default $WARDEN_PLAYWRIGHT_CORE, then the installed copy, then the source tree's (driver.go)
	DriverDir      string // where the patched driver is laid out; default user cache dir
	// Roots lists every session's workspace and writable roots: no driver,
	// Node, Chromium or driver folder inside one is ever run (driver.go).
	// nil refuses nothing beyond the lookup rules.
	Roots func() []string

	NavigationTimeout time.Duration // default 15s
	ActionTimeout     time.Duration // default 5s: a missing selector fails fast
	ViewportWidth     int           // default 1280
	ViewportHeight    int           // default 720
}

// chromiumArgs keep a tool browser quiet: no background calls home, no
// updates, no first-run UI. --no-sandbox because Chromium's own sandbox
// needs privileges a root or containerised run does not have.
// --host-resolver-rules: Chromium itself resolves no name but the loopback
// ones (every other request goes to the session's proxy by name, which
// decides before it resolves; egress.go), so neither a prefetch nor a page
// can make it send a lookup of its own. The rules match IP literals too,
// so loopback addresses (the bypassed pages, the proxy itself) are
// excluded.
var chromiumArgs = []string{
	"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--mute-audio",
	"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost, EXCLUDE 127.*, EXCLUDE ::1, EXCLUDE [::1]",
}

// Manager owns one Chromium process and one browser context per session.
// The browser starts on first use, restarts if it dies, and each session's
// context is closed with the session (cookies and storage go with it).
type Manager struct {
	opts Options

	mu      sync.Mutex // guards the browser; held while it starts
	pw      *playwright.Playwright
	browser playwright.Browser
	closed  bool

	// smu guards sessions alone, so Effects (CurrentURL) never waits for
	// a browser start.
	smu      sync.Mutex
	sessions map[string]*session

	// ColdStart is how long the last browser start took (driver + chromium).
	coldStart atomic.Int64
}

// session is one chat's browser context and the page actions act on.
type session struct {
	mu      sync.Mutex // serialises actions of one session
	context playwright.BrowserContext
	// page is the page actions act on; swapped by popups and crash recovery
	// from the driver's goroutine, hence atomic.
	page atomic.Pointer[pageBox]
	// crashed is set by the page's crash event until an action notices.
	crashed atomic.Bool
	// unsettled marks a page an action timed out on, which may still be
	// loading something; the next navigate replaces it.
	unsettled atomic.Bool
	// network mirrors the session's sandbox: whether pages may reach
	// non-loopback hosts. Read by the request filter on every request.
	network atomic.Bool
	// url is the current page's URL as last seen, for Effects, which must
	// not block on the session lock.
	url atomic.Value // string
	// egress is the session's proxy: every non-loopback request goes
	// through it and is decided for the call in flight (egress.go).
	egress *egressRoute
}

// NewManager returns a Manager; nothing starts until a session acts.
func NewManager(opts Options) *Manager {
	if opts.NavigationTimeout <= 0 {
		opts.NavigationTimeout = 15 * time.Second
	}
	if opts.ActionTimeout <= 0 {
		opts.ActionTimeout = 5 * time.Second
	}
	if opts.ViewportWidth <= 0 {
		opts.ViewportWidth = 1280
	}
	if opts.ViewportHeight <= 0 {
		opts.ViewportHeight = 720
	}
	return &Manager{opts: opts, sessions: map[string]*session{}}
}

// ColdStart reports how long the most recent browser start took.
func (m *Manager) ColdStart() time.Duration { return time.Duration(m.coldStart.Load()) }

// CurrentURL is the URL of a session's current page, "" when it has none.
func (m *Manager) CurrentURL(sessionID string) string {
	m.smu.Lock()
	s := m.sessions[sessionID]
	m.smu.Unlock()
	if s == nil {
		return ""
	}
	u, _ := s.url.Load().(string)
	return u
}

// Close ends one session's browser context. Closing an unknown session is
// not an error: sessions that never used the browser have nothing to close.
func (m *Manager) Close(sessionID string) error {
	m.smu.Lock()
	s := m.sessions[sessionID]
	delete(m.sessions, sessionID)
	m.smu.Unlock()
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.egress.Close()
	if err := s.context.Close(); err != nil && !errors.Is(err, playwright.ErrTargetClosed) {
		return fmt.Errorf("closing browser context of session %s: %w", sessionID, err)
	}
	return nil
}

// Shutdown closes every context, the browser and the driver. The Manager
// refuses further work afterwards.
func (m *Manager) Shutdown() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.resetSessions()
	return m.stopLocked()
}

func (m *Manager) stopLocked() error {
	var errs []error
	if m.browser != nil {
		if err := m.browser.Close(); err != nil && !errors.Is(err, playwright.ErrTargetClosed) {
			errs = append(errs, fmt.Errorf("closing chromium: %w", err))
		}
		m.browser = nil
	}
	if m.pw != nil {
		if err := m.pw.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stopping playwright driver: %w", err))
		}
		m.pw = nil
	}
	return errors.Join(errs...)
}

// session returns the session's context, starting the browser and the
// context as needed. network is the session's current sandbox answer.
func (m *Manager) session(sessionID string, network bool) (*session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("browser manager is shut down")
	}
	if m.browser == nil || !m.browser.IsConnected() {
		// A dead browser took every context with it.
		m.resetSessions()
		_ = m.stopLocked()
		if err := m.startLocked(); err != nil {
			return nil, err
		}
	}
	m.smu.Lock()
	s := m.sessions[sessionID]
	m.smu.Unlock()
	if s == nil {
		var err error
		if s, err = m.newSession(); err != nil {
			return nil, err
		}
		m.smu.Lock()
		m.sessions[sessionID] = s
		m.smu.Unlock()
	}
	s.network.Store(network)
	return s, nil
}

func (m *Manager) resetSessions() {
	m.smu.Lock()
	old := m.sessions
	m.sessions = map[string]*session{}
	m.smu.Unlock()
	for _, s := range old {
		s.egress.Close()
	}
}

func (m *Manager) startLocked() error {
	t0 := time.Now()
	if m.opts.Headed && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return unavailable("a headed browser needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set")
	}
	st, err := m.opts.resolve()
	if err != nil {
		return err
	}
	if err := prepareDriver(st); err != nil {
		return unavailable("preparing the playwright driver in %s: %v", st.driverDir, err)
	}
	stderr := &tailBuffer{max: 4096}
	pw, err := playwright.Run(&playwright.RunOptions{
		DriverDirectory:     st.driverDir,
		SkipInstallBrowsers: true,
		Stdout:              io.Discard,
		Stderr:              stderr,
		Logger:              slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return unavailable("starting the playwright driver (node %s, playwright-core %s): %v %s", st.node, st.core, err, stderr.String())
	}
	browser, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath:  playwright.String(st.chromium),
		Headless:        playwright.Bool(!m.opts.Headed),
		Args:            chromiumArgs,
		ChromiumSandbox: playwright.Bool(false),
		Timeout:         playwright.Float(60_000),
	})
	if err != nil {
		_ = pw.Stop()
		return unavailable("launching chromium %s: %v", st.chromium, err)
	}
	m.pw, m.browser = pw, browser
	m.coldStart.Store(int64(time.Since(t0)))
	return nil
}

func (m *Manager) newSession() (*session, error) {
	eg, err := startEgress()
	if err != nil {
		return nil, err
	}
	ctx, err := m.browser.NewContext(playwright.BrowserNewContextOptions{
		AcceptDownloads: playwright.Bool(false), // a download is a write the gate never saw
		Viewport:        &playwright.Size{Width: m.opts.ViewportWidth, Height: m.opts.ViewportHeight},
		ServiceWorkers:  playwright.ServiceWorkerPolicyBlock, // they would bypass the request filter
		// Loopback (the same set as isLoopbackHost) is loaded directly:
		// local and exposed dev servers; everything else goes through the
		// session's proxy, where each host is decided. A per-context
		// proxy does not get Chromium's implicit loopback bypass.
		Proxy: &playwright.Proxy{Server: "http://" + eg.addr, Bypass: playwright.String(loopbackBypass)},
	})
	if err != nil {
		eg.Close()
		return nil, fmt.Errorf("opening a browser context: %w", err)
	}
	s := &session{context: ctx, egress: eg}
	s.url.Store("")
	// The request filter is the enforcement behind the Browser effect: with
	// network off, a page on loopback cannot pull in or navigate to a
	// non-loopback host by itself (a link, a redirect, a script).
	if err := ctx.Route("**/*", func(r playwright.Route) {
		if s.network.Load() || isLoopbackRequest(r.Request().URL()) {
			_ = r.Continue()
			return
		}
		_ = r.Abort("blockedbyclient")
	}); err != nil {
		_ = ctx.Close()
		eg.Close()
		return nil, fmt.Errorf("installing the request filter: %w", err)
	}
	ctx.SetDefaultTimeout(float64(m.opts.ActionTimeout.Milliseconds()))
	ctx.SetDefaultNavigationTimeout(float64(m.opts.NavigationTimeout.Milliseconds()))
	// A popup (target=_blank) becomes the page the next action works on.
	ctx.OnPage(func(p playwright.Page) { s.adopt(p) })
	return s, nil
}

// loopbackBypass is Chromium's proxy bypass list for what isLoopbackHost
// calls loopback.
const loopbackBypass = "localhost,*.localhost,127.0.0.0/8,[::1]"

// isLoopbackRequest lets non-http(s) requests (data:, blob:) through: they
// do not leave the machine. http(s) must name a loopback host.
func isLoopbackRequest(raw string) bool {
	lower := strings.ToLower(raw)
	if !strings.HasPrefix(lower, "http") && !strings.HasPrefix(lower, "ws") {
		return true
	}
	_, origin, err := TargetOrigin(raw)
	return err == nil && IsLoopbackOrigin(origin)
}

// tailBuffer keeps the last max bytes written, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// pageBox is a page with our own record of its closing: playwright-go's
// Page.IsClosed reads a field its dispatcher writes without a lock.
type pageBox struct {
	p      playwright.Page
	closed atomic.Bool
}

// adopt makes p the page actions act on and watches it for a crash.
func (s *session) adopt(p playwright.Page) {
	if b := s.page.Load(); b != nil && b.p == p {
		return // already adopted (NewPage and the context's page event)
	}
	box := &pageBox{p: p}
	p.OnClose(func(playwright.Page) { box.closed.Store(true) })
	p.OnCrash(func(playwright.Page) { s.crashed.Store(true) })
	p.OnFrameNavigated(func(f playwright.Frame) {
		if f.ParentFrame() == nil && s.current() == p {
			s.url.Store(f.URL())
		}
	})
	s.page.Store(box)
	s.url.Store(p.URL())
}

// isClosed says whether p is closed; a page that is no longer the
// session's current one counts as closed.
func (s *session) isClosed(p playwright.Page) bool {
	b := s.page.Load()
	return b == nil || b.p != p || b.closed.Load()
}

func (s *session) current() playwright.Page {
	if b := s.page.Load(); b != nil {
		return b.p
	}
	return nil
}
