// Package tui is `warden tui`, the terminal front end. It is a third window
// onto the one runtime API (runtime.Service, built by backend/assemble):
// it renders the same events, answers the same asks and changes the same
// axes as the desktop window and `warden serve`, with no engine or store of
// its own.
package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// DefaultGrace is how long a new permission modal ignores keys, so a word
// being typed when it opens never answers it.
const DefaultGrace = 400 * time.Millisecond

// tailEvents is how many of a session's newest events the transcript
// opens on.
const tailEvents = 20000

// Options configure a Model: either a Service that is already open, or an
// Open function the model runs in the background while its first frame —
// drawn from Starting — is already on screen.
type Options struct {
	Service   *runtime.Service
	SessionID string
	// Open opens the service and picks the session (when Service is nil).
	Open func(ctx context.Context) (Opened, error)
	// Starting is what the first frame shows while Open runs.
	Starting Starting
	// Grace is the modal's input grace period (DefaultGrace when 0).
	Grace time.Duration
	// Now is the clock (time.Now when nil); tests move it.
	Now func() time.Time
}

// Opened is what Open hands the model: the service, the session to show,
// and what closes them once the model has quit.
type Opened struct {
	Service   *runtime.Service
	SessionID string
	Close     func()
}

// Starting is known before anything opens: the database being opened and
// the axes a new session will get (the flags over the config).
type Starting struct {
	DBPath    string
	Workspace string
	Approval  policy.ApprovalPolicy
	Sandbox   runtime.Sandbox
}

type focus int

const (
	focusComposer focus = iota // keys type into the composer
	focusKeys                  // single keys act: B, ?, q, scrolling
)

type panel int

const (
	panelNone panel = iota
	panelTrace
	panelAgents
	panelGrants
	panelHelp
	panelSessions
)

// Model is the terminal UI's state; Update changes it, View draws it.
type Model struct {
	ctx    context.Context
	cancel context.CancelFunc
	svc    *runtime.Service
	now    func() time.Time
	grace  time.Duration
	th     theme

	info   runtime.Info
	sess   runtime.Session
	events []runtime.Event
	// more is true when older events exist than the transcript holds.
	more  bool
	delta string // the assistant's reply while it streams
	busy  bool
	push  <-chan runtime.Push

	width, height int
	focus         focus
	input         []rune
	notice        string
	noticeBad     bool
	scroll        int // lines scrolled up from the bottom
	expanded      bool

	queue  []runtime.Approval
	armAt  time.Time
	always bool // choosing the scope and expiry of "always"
	scope  policy.GrantScope
	expiry int // index into expiries
	// noting: n or Esc opened the deny note; its keys are text until
	// Enter (deny with the note) or Esc (deny without one).
	noting     bool
	note       []rune
	modalTrace bool // t: the engine's decision trace in the modal
	// The ambient strip, focused by Ctrl+K: ←→ choose a running subagent
	// or monitor, x asks to stop it, y stops it.
	strip        bool
	stripSel     int
	stripConfirm bool
	confirm      *confirmation

	panel       panel
	traceFilter string // "" | asked | allowed | denied
	traceText   []rune
	grants      []runtime.GrantView
	sessions    []runtime.Session
	sel         int

	// Opening in the background (Options.Open): svc is nil until the
	// openedMsg arrives; openErr is set when it failed.
	starting Starting
	openErr  error
	openRes  chan tea.Msg
	openDone chan struct{}
	// startOpen starts the opening once the first frame is drawn (on 2
	// cores it would otherwise slow that frame down); Close starts it too,
	// so openDone always closes.
	startOpen func()
	closer    func()
	queued    string  // a line sent before the session was open
	pending   tea.Cmd // a command a panel key made (onPanelKey returns a bool)

	cache struct {
		width, n int
		expanded bool
		delta    string
		lines    []string
	}
	quitting bool

	// lockedKind is the sandbox the organisation's policy just refused
	// (B then cycles past it).
	lockedKind *policy.SandboxKind
}

// confirmation is a yes/no question before an axis change that needs one.
type confirmation struct {
	text  string
	apply func() error
}

// expiries are the choices of an "always" answer.
var expiries = []struct {
	label string
	sec   int64
}{{"never", 0}, {"1 hour", 3600}, {"1 day", 86400}, {"1 week", 7 * 86400}}

// New opens a session on the service: its newest events, its pending asks
// and the live push stream (closed when ctx ends or the model quits). With
// Options.Open instead of a service, it returns at once and opens in the
// background; the screen says so until the session is there.
func New(ctx context.Context, o Options) (*Model, error) {
	ctx, cancel := context.WithCancel(ctx)
	m := &Model{ctx: ctx, cancel: cancel, now: o.Now, grace: o.Grace, th: newTheme(),
		width: 80, height: 24, scope: policy.ScopeSession}
	if m.now == nil {
		m.now = time.Now
	}
	if m.grace == 0 {
		m.grace = DefaultGrace
	}
	if o.Service == nil {
		if o.Open == nil {
			cancel()
			return nil, fmt.Errorf("tui: neither a service nor a way to open one")
		}
		m.starting = o.Starting
		m.sess = runtime.Session{Workspace: o.Starting.Workspace, Approval: o.Starting.Approval, Sandbox: o.Starting.Sandbox}
		// A goroutine of our own rather than a tea.Cmd: Close must be able
		// to wait for it and close what it opened even when the program
		// quits before it would have run the command.
		m.openRes, m.openDone = make(chan tea.Msg, 1), make(chan struct{})
		m.startOpen = sync.OnceFunc(func() {
			go func() {
				defer close(m.openDone)
				m.openRes <- m.openInBackground(o.Open)
			}()
		})
		return m, nil
	}
	ld, err := load(ctx, o.Service, o.SessionID)
	if err != nil {
		cancel()
		return nil, err
	}
	m.apply(ld)
	return m, nil
}

type (
	openedMsg     loaded
	openFailedMsg struct{ err error }
)

// openInBackground runs open and loads the session; it runs beside the
// program, so it only touches closer (read after openDone).
func (m *Model) openInBackground(open func(context.Context) (Opened, error)) tea.Msg {
	o, err := open(m.ctx)
	if err != nil {
		return openFailedMsg{err}
	}
	m.closer = o.Close
	ld, err := load(m.ctx, o.Service, o.SessionID)
	if err != nil {
		return openFailedMsg{err}
	}
	return openedMsg(ld)
}

func (m *Model) waitOpen() tea.Cmd {
	ch := m.openRes
	return func() tea.Msg {
		// The first View starts the opening; without a screen (tests) it
		// starts here after a moment.
		time.AfterFunc(50*time.Millisecond, m.startOpen)
		return <-ch
	}
}

// loaded is a session as the model opens on it.
type loaded struct {
	svc     *runtime.Service
	push    <-chan runtime.Push
	info    runtime.Info
	sess    runtime.Session
	events  []runtime.Event
	more    bool
	pending []runtime.Approval
}

func load(ctx context.Context, svc *runtime.Service, id string) (ld loaded, err error) {
	// Subscribe first, so nothing published while loading is lost (a push
	// of an event already loaded is skipped by its seq).
	push := svc.Subscribe(ctx)
	if ld, err = loadSession(ctx, svc, id); err != nil {
		return ld, err
	}
	ld.push = push
	if ld.info, err = svc.Info(ctx); err != nil {
		return ld, fmt.Errorf("tui: %w", err)
	}
	return ld, nil
}

// loadSession reads one session's newest events and pending asks (the
// push stream, for every session, stays as it is).
func loadSession(ctx context.Context, svc *runtime.Service, id string) (ld loaded, err error) {
	ld.svc = svc
	if ld.sess, err = svc.GetSession(ctx, id); err != nil {
		return ld, fmt.Errorf("tui: open session: %w", err)
	}
	evs, err := svc.SessionEventsBefore(ctx, id, 0, tailEvents+1)
	if err != nil {
		return ld, fmt.Errorf("tui: load events: %w", err)
	}
	if len(evs) > tailEvents {
		ld.more, evs = true, evs[1:]
	}
	ld.events = evs
	if ld.pending, err = svc.PendingApprovals(ctx, id); err != nil {
		return ld, fmt.Errorf("tui: pending asks: %w", err)
	}
	return ld, nil
}

// apply puts a loaded session on screen.
func (m *Model) apply(ld loaded) {
	m.svc, m.push, m.info = ld.svc, ld.push, ld.info
	m.show(ld)
}

// show puts a session's state on screen, leaving the service, the stream
// and the panels as they are.
func (m *Model) show(ld loaded) {
	m.sess, m.busy, m.events, m.more = ld.sess, ld.sess.Busy, ld.events, ld.more
	m.delta, m.scroll, m.queue = "", 0, nil
	m.resetModal()
	for _, a := range ld.pending {
		m.enqueue(a)
	}
}

// switchTo resumes another session of the service in this screen.
func (m *Model) switchTo(id string) tea.Cmd {
	ld, err := loadSession(m.ctx, m.svc, id)
	if err != nil {
		m.setNotice(true, "%v", err)
		return nil
	}
	m.show(ld)
	m.panel = panelNone
	m.setNotice(false, "Session %s.", RevealText(orDefault(ld.sess.Title, shortID(ld.sess.ID))))
	if len(m.queue) > 0 {
		return m.armTick()
	}
	return nil
}

// newSession starts a session in the same workspace (the configured axes,
// as the window's "New session") and shows it.
func (m *Model) newSession() tea.Cmd {
	s, err := m.svc.CreateSession(m.ctx, runtime.CreateSessionArgs{Workspace: m.sess.Workspace,
		Title: "terminal " + m.now().Format("2006-01-02 15:04")})
	if err != nil {
		m.setNotice(true, "new session: %v", err)
		return nil
	}
	return m.switchTo(s.ID)
}

// openSessions lists the workspace's sessions, newest first (subagents
// and archived ones are left out, as in the window's list).
func (m *Model) openSessions() {
	all, err := m.svc.ListSessions(m.ctx)
	if err != nil {
		m.setNotice(true, "sessions: %v", err)
		return
	}
	m.sessions = m.sessions[:0]
	for _, s := range all {
		if s.Workspace == m.sess.Workspace && !s.Archived && s.ParentID == "" {
			m.sessions = append(m.sessions, s)
		}
	}
	m.panel, m.sel = panelSessions, 0
	for i, s := range m.sessions {
		if s.ID == m.sess.ID {
			m.sel = i
		}
	}
}

// Close stops the push stream and, when the model opened the service
// itself, waits for that to end and closes it.
func (m *Model) Close() {
	m.cancel()
	if m.openDone != nil {
		m.startOpen()
		<-m.openDone
		if m.closer != nil {
			m.closer()
			m.closer = nil
		}
	}
}

// Opening says the session is not open yet (or failed to open: Err).
func (m *Model) Opening() bool { return m.svc == nil }

// Err is why the session could not be opened, if it could not.
func (m *Model) Err() error { return m.openErr }

// Session is the session on screen, as last pushed.
func (m *Model) Session() runtime.Session { return m.sess }

// Queue is the asks waiting, the one shown first.
func (m *Model) Queue() []runtime.Approval { return m.queue }

// Armed says whether the modal's keys answer now.
func (m *Model) Armed() bool { return len(m.queue) > 0 && !m.now().Before(m.armAt) }

// PushChan is the live stream the model reads (tests pump it by hand).
func (m *Model) PushChan() <-chan runtime.Push { return m.push }

type (
	pushMsg   runtime.Push
	closedMsg struct{}
	armMsg    struct{}
)

// PushMsg wraps a push for Update.
func PushMsg(p runtime.Push) tea.Msg { return pushMsg(p) }

func (m *Model) waitPush() tea.Cmd {
	ch := m.push
	return func() tea.Msg {
		p, ok := <-ch
		if !ok {
			return closedMsg{}
		}
		return pushMsg(p)
	}
}

func (m *Model) Init() tea.Cmd {
	if m.svc == nil {
		return m.waitOpen()
	}
	return m.started()
}

// started is what runs once the session is open: the push stream and the
// modal's arming.
func (m *Model) started() tea.Cmd {
	cmds := []tea.Cmd{m.waitPush()}
	if len(m.queue) > 0 {
		cmds = append(cmds, m.armTick())
	}
	return tea.Batch(cmds...)
}

func (m *Model) armTick() tea.Cmd {
	d := m.armAt.Sub(m.now())
	if d < 0 {
		d = 0
	}
	return tea.Tick(d+10*time.Millisecond, func(time.Time) tea.Msg { return armMsg{} })
}

// mine says whether a session id is this session or one of its subagents.
func (m *Model) mine(id string) bool {
	if id == m.sess.ID {
		return true
	}
	for _, a := range m.agents() {
		if a.id == id && a.subagent {
			return true
		}
	}
	return false
}

func (m *Model) enqueue(a runtime.Approval) bool {
	if !m.mine(a.SessionID) {
		return false
	}
	for _, q := range m.queue {
		if q.RequestID == a.RequestID {
			return false
		}
	}
	m.queue = append(m.queue, a)
	if len(m.queue) == 1 {
		m.armAt = m.now().Add(m.grace)
		m.resetModal()
	}
	return true
}

// resetModal clears what the modal's keys chose for the ask it showed.
func (m *Model) resetModal() {
	m.always, m.noting, m.note, m.modalTrace = false, false, nil, false
}

func (m *Model) dequeue(id string) {
	for i, q := range m.queue {
		if q.RequestID == id {
			m.queue = append(m.queue[:i:i], m.queue[i+1:]...)
			if i == 0 {
				m.resetModal()
				m.armAt = m.now().Add(m.grace)
			}
			return
		}
	}
}

// Update applies one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case pushMsg:
		cmd := m.onPush(runtime.Push(msg))
		return m, tea.Batch(cmd, m.waitPush())
	case openedMsg:
		m.apply(loaded(msg))
		cmd := m.started()
		if line := m.queued; line != "" {
			m.queued = ""
			_, sub := m.submit(line)
			cmd = tea.Batch(cmd, sub)
		}
		return m, cmd
	case openFailedMsg:
		m.openErr = msg.err
		return m, nil
	case closedMsg:
		return m, nil
	case armMsg:
		return m, nil
	case tea.PasteMsg:
		if m.noting && len(m.queue) > 0 {
			m.note = append(m.note, []rune(strings.ReplaceAll(msg.Content, "\n", " "))...)
			return m, nil
		}
		if m.focus == focusComposer && m.confirm == nil {
			m.input = append(m.input, []rune(strings.ReplaceAll(msg.Content, "\n", " "))...)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return m, nil
}

// onPush folds one live push into the state.
func (m *Model) onPush(p runtime.Push) tea.Cmd {
	switch p.Type {
	case runtime.PushEvent:
		if p.Event == nil || p.Event.SessionID != m.sess.ID {
			return nil
		}
		if n := len(m.events); n > 0 && p.Event.Seq <= m.events[n-1].Seq {
			return nil
		}
		m.events = append(m.events, *p.Event)
		if p.Event.Kind == store.KindMessageAppended {
			m.delta = ""
		}
	case runtime.PushDelta:
		if p.SessionID == m.sess.ID {
			m.delta += p.Text
		}
	case runtime.PushSession:
		if p.Session != nil && p.Session.ID == m.sess.ID {
			m.sess = *p.Session
			m.busy = p.Session.Busy
			if !m.busy {
				m.delta = ""
			}
		}
	case runtime.PushApproval:
		if p.Approval != nil && m.enqueue(*p.Approval) && len(m.queue) == 1 {
			return m.armTick()
		}
	case runtime.PushApprovalResolved:
		m.dequeue(p.RequestID)
		if len(m.queue) > 0 {
			return m.armTick()
		}
	}
	return nil
}

func (m *Model) setNotice(bad bool, format string, args ...any) {
	m.notice, m.noticeBad = fmt.Sprintf(format, args...), bad
}

func (m *Model) onKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	key := k.String()
	if key == "ctrl+c" {
		if m.busy {
			if err := m.svc.Cancel(m.ctx, m.sess.ID); err != nil {
				m.setNotice(true, "cancel: %v", err)
			} else {
				m.setNotice(false, "Cancelled the turn.")
			}
			return m, nil
		}
		return m.quit()
	}
	if m.svc == nil {
		return m.onOpeningKey(key, k)
	}
	if m.confirm != nil {
		return m.onConfirmKey(key)
	}
	if key == "ctrl+k" || m.strip {
		return m.onStripKey(key, k)
	}
	var pre tea.Cmd
	// The modal answers only when it is on screen: with a panel over it,
	// n or y are the panel's (or the composer's), never a hidden answer.
	if len(m.queue) > 0 && m.panel == panelNone {
		cmd, handled := m.onModalKey(key, k)
		if handled {
			return m, cmd
		}
		pre = cmd
	}
	next, cmd := m.onOtherKey(key, k)
	return next, tea.Batch(pre, cmd)
}

// onOpeningKey handles keys while the session opens: typing goes to the
// composer and a line sent is held until the session is open; anything
// else waits. After a failure any key quits.
func (m *Model) onOpeningKey(key string, k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.openErr != nil {
		return m.quit()
	}
	switch key {
	case "enter":
		if line := strings.TrimSpace(string(m.input)); line != "" {
			m.queued, m.input = line, nil
			m.setNotice(false, "Sent once the session is open.")
		}
		return m, nil
	case "backspace":
		if len(m.input) > 0 {
			m.input = m.input[:len(m.input)-1]
		}
		return m, nil
	case "ctrl+u":
		m.input = nil
		return m, nil
	}
	if t := k.Key().Text; t != "" {
		m.input = append(m.input, []rune(t)...)
		return m, nil
	}
	m.setNotice(false, "Still opening: that key works once the session is open.")
	return m, nil
}

// onStripKey works the ambient strip: Ctrl+K focuses it (or leaves it),
// ←→ or Tab choose, x asks "Stop …?" on the strip itself, y stops,
// n or Esc steps back. Other keys leave the strip and act as usual.
func (m *Model) onStripKey(key string, k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	run := m.runningAgents()
	if len(run) == 0 {
		m.strip, m.stripConfirm = false, false
		if key == "ctrl+k" {
			m.setNotice(false, "No subagent or monitor is running.")
		}
		return m, nil
	}
	m.stripSel = min(m.stripSel, len(run)-1)
	if m.stripConfirm {
		switch key {
		case "y", "Y", "enter":
			a := run[m.stripSel]
			m.strip, m.stripConfirm = false, false
			if err := m.svc.KillAgent(m.ctx, m.sess.ID, a.id); err != nil {
				m.setNotice(true, "stop: %v", err)
			} else {
				m.setNotice(false, "Stopped %s %s.", a.kind(), shortID(a.id))
			}
		case "n", "N", "esc":
			m.stripConfirm = false
		}
		return m, nil
	}
	switch key {
	case "ctrl+k":
		m.strip = !m.strip
		if m.strip {
			m.stripSel = 0
		}
	case "left", "shift+tab":
		m.stripSel = (m.stripSel + len(run) - 1) % len(run)
	case "right", "tab":
		m.stripSel = (m.stripSel + 1) % len(run)
	case "x", "X", "delete", "enter":
		m.stripConfirm = true
	case "esc":
		m.strip = false
	default:
		m.strip = false
		return m.onKey(k)
	}
	return m, nil
}

// onOtherKey handles every key the modal and a confirmation leave alone.
func (m *Model) onOtherKey(key string, k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch key {
	case "shift+tab":
		m.cycleApproval()
		return m, nil
	case "ctrl+t":
		m.toggle(panelTrace)
		return m, nil
	case "ctrl+o":
		m.toggle(panelAgents)
		return m, nil
	case "ctrl+g":
		m.openGrants()
		return m, nil
	case "ctrl+s":
		if m.panel == panelSessions {
			m.panel = panelNone
		} else {
			m.openSessions()
		}
		return m, nil
	case "ctrl+e":
		m.expanded = !m.expanded
		return m, nil
	case "pgup":
		m.scroll += max(1, m.transcriptHeight()-2)
		return m, nil
	case "pgdown":
		m.scroll = max(0, m.scroll-max(1, m.transcriptHeight()-2))
		return m, nil
	}
	if m.panel != panelNone {
		if m.onPanelKey(key, k) {
			cmd := m.pending
			m.pending = nil
			return m, cmd
		}
	}
	if m.focus == focusKeys {
		return m.onCommandKey(key)
	}
	return m.onComposerKey(key, k)
}

func (m *Model) quit() (tea.Model, tea.Cmd) {
	m.quitting = true
	m.cancel()
	return m, tea.Quit
}

func (m *Model) toggle(p panel) {
	if m.panel == p {
		m.panel = panelNone
		return
	}
	m.panel, m.sel = p, 0
}

// onModalKey answers the first ask: y once, a always (then a scope and
// expiry), n or Esc deny. Before the grace period has passed every key is
// type-ahead: it goes on to the composer and moves the arming further out.
func (m *Model) onModalKey(key string, k tea.KeyPressMsg) (tea.Cmd, bool) {
	a := m.queue[0]
	if m.noting {
		switch key {
		case "enter":
			m.answer(a, runtime.AnswerArgs{RequestID: a.RequestID, Answer: runtime.AnswerDeny, Note: strings.TrimSpace(string(m.note))})
		case "esc":
			m.answer(a, runtime.AnswerArgs{RequestID: a.RequestID, Answer: runtime.AnswerDeny})
		case "backspace":
			if len(m.note) > 0 {
				m.note = m.note[:len(m.note)-1]
			}
		case "ctrl+u":
			m.note = nil
		default:
			if t := k.Key().Text; t != "" {
				m.note = append(m.note, []rune(t)...)
			}
		}
		return nil, true
	}
	if !m.Armed() {
		m.armAt = m.now().Add(m.grace)
		return m.armTick(), false
	}
	if m.always {
		switch key {
		case "s":
			m.scope = policy.ScopeSession
		case "w":
			m.scope = policy.ScopeWorkspace
		case "1", "2", "3", "4":
			m.expiry = int(key[0] - '1')
		case "tab", "right":
			m.expiry = (m.expiry + 1) % len(expiries)
		case "enter", "a", "y":
			m.answer(a, runtime.AnswerArgs{RequestID: a.RequestID, Answer: runtime.AnswerAlways, Scope: m.scope,
				ExpiresInSec: expiries[m.expiry].sec})
		case "esc":
			m.always = false
		}
		return nil, true
	}
	switch key {
	case "y", "Y":
		m.answer(a, runtime.AnswerArgs{RequestID: a.RequestID, Answer: runtime.AnswerOnce})
	case "a", "A":
		if a.AlwaysRefused != "" {
			m.setNotice(true, "Always is not offered here: %s", a.AlwaysRefused)
			return nil, true
		}
		m.always, m.scope, m.expiry = true, policy.ScopeSession, 0
	case "n", "N", "esc":
		// The note is optional: Enter or Esc on the empty line denies.
		m.noting, m.note = true, nil
	case "t", "T":
		m.modalTrace = !m.modalTrace
	default:
		// Panels and axis keys still work with a modal open.
		return nil, false
	}
	return nil, true
}

func (m *Model) answer(a runtime.Approval, args runtime.AnswerArgs) {
	if err := m.svc.Answer(m.ctx, args); err != nil {
		m.setNotice(true, "answer: %v", err)
		return
	}
	m.dequeue(a.RequestID)
	switch args.Answer {
	case runtime.AnswerOnce:
		m.setNotice(false, "Allowed %s once.", a.Tool)
	case runtime.AnswerAlways:
		m.setNotice(false, "Always allowed %s (%s, %s).", a.Signature, args.Scope, expiries[m.expiry].label)
	default:
		if args.Note != "" {
			m.setNotice(false, "Denied %s, with your note.", a.Tool)
		} else {
			m.setNotice(false, "Denied %s.", a.Tool)
		}
	}
}

func (m *Model) onConfirmKey(key string) (tea.Model, tea.Cmd) {
	c := m.confirm
	switch key {
	case "y", "Y", "enter":
		m.confirm = nil
		if err := c.apply(); err != nil {
			m.setNotice(true, "%v", err)
		}
	case "n", "N", "esc":
		m.confirm = nil
		m.setNotice(false, "Unchanged.")
	}
	return m, nil
}

// onCommandKey handles single keys outside the composer.
func (m *Model) onCommandKey(key string) (tea.Model, tea.Cmd) {
	switch key {
	case "B", "b":
		m.cycleSandbox()
	case "?":
		m.toggle(panelHelp)
	case "q":
		return m.quit()
	case "i", "enter":
		m.focus = focusComposer
	case "/", "!":
		m.focus = focusComposer
		m.input = []rune(key)
	case "k", "up":
		m.scroll++
	case "j", "down":
		m.scroll = max(0, m.scroll-1)
	case "g", "home":
		m.scroll = 1 << 30
	case "G", "end":
		m.scroll = 0
	case "e":
		m.expanded = !m.expanded
	case "esc":
		m.panel = panelNone
	}
	return m, nil
}

func (m *Model) onComposerKey(key string, k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch key {
	case "esc":
		if m.panel != panelNone {
			m.panel = panelNone
			return m, nil
		}
		m.focus = focusKeys
		return m, nil
	case "enter":
		line := string(m.input)
		m.input = nil
		return m.submit(line)
	case "backspace":
		if len(m.input) > 0 {
			m.input = m.input[:len(m.input)-1]
		}
		return m, nil
	case "ctrl+u":
		m.input = nil
		return m, nil
	case "?":
		if len(m.input) == 0 {
			m.toggle(panelHelp)
			return m, nil
		}
	}
	if t := k.Key().Text; t != "" {
		m.input = append(m.input, []rune(t)...)
	}
	return m, nil
}

// submit runs one composer line.
func (m *Model) submit(line string) (tea.Model, tea.Cmd) {
	c := ParseComposer(line)
	m.notice = ""
	switch c.Kind {
	case CmdNone:
	case CmdPrompt, CmdShell, CmdPlan:
		if err := m.svc.SendMessage(m.ctx, m.sess.ID, c.Text); err != nil {
			m.setNotice(true, "%v", err)
			return m, nil
		}
		m.busy, m.scroll = true, 0
	case CmdMode:
		if c.Err != "" {
			m.setNotice(true, "%s", c.Err)
			return m, nil
		}
		if c.Approval == nil && c.Sandbox == nil && c.Network == nil {
			ap, sb := AxesText(m.sess.Approval, m.sess.Sandbox)
			m.setNotice(false, "%s · %s — /mode never|on-request|always, read-only|workspace-write|full-access, network on|off", ap, sb)
			return m, nil
		}
		if c.Approval != nil {
			m.setApproval(*c.Approval)
		}
		if c.Sandbox != nil || c.Network != nil {
			sb := m.sess.Sandbox
			if c.Sandbox != nil {
				sb.Kind = *c.Sandbox
			}
			if c.Network != nil {
				sb.NetworkAccess = *c.Network
			}
			m.setSandbox(sb)
		}
	case CmdGrants:
		m.openGrants()
	case CmdSessions:
		m.openSessions()
	case CmdAudit:
		m.panel, m.sel = panelTrace, 0
		m.traceText = []rune(c.Text)
	case CmdHelp:
		m.panel = panelHelp
	case CmdQuit:
		return m.quit()
	case CmdUnknown:
		m.setNotice(true, "%s", c.Err)
	}
	return m, nil
}

// cycleApproval steps On request → Always ask → Never ask → On request.
func (m *Model) cycleApproval() {
	next := map[policy.ApprovalPolicy]policy.ApprovalPolicy{policy.OnRequest: policy.Always, policy.Always: policy.Never,
		policy.Never: policy.OnRequest}[m.sess.Approval]
	m.setApproval(next)
}

// cycleSandbox steps Read only → Workspace write → Full access → Read
// only; Full access only after a yes.
func (m *Model) cycleSandbox() {
	sb := m.sess.Sandbox
	next := map[policy.SandboxKind]policy.SandboxKind{policy.ReadOnly: policy.WorkspaceWrite,
		policy.WorkspaceWrite: policy.DangerFullAccess, policy.DangerFullAccess: policy.ReadOnly}
	sb.Kind = next[sb.Kind]
	if m.lockedKind != nil && *m.lockedKind == sb.Kind {
		// The organisation refused this one a moment ago: the next B
		// goes on past it.
		sb.Kind = next[sb.Kind]
	}
	m.setSandbox(sb)
}

const neverFullAccessWarning = "Never ask with Full access runs every action the model chooses outside the cage and without asking you: it can delete anything you can and reach the network. Use this pair only in a throw-away machine. Continue?"

func (m *Model) setApproval(a policy.ApprovalPolicy) {
	apply := func() error {
		s, err := m.svc.SetApprovalPolicy(m.ctx, m.sess.ID, a)
		if err != nil {
			return fmt.Errorf("approval: %w", err)
		}
		m.sess = s
		m.setNotice(false, "Approval is %s now.", ApprovalLabel(a))
		return nil
	}
	if a == policy.Never && m.sess.Sandbox.Kind == policy.DangerFullAccess {
		m.confirm = &confirmation{text: neverFullAccessWarning, apply: apply}
		return
	}
	if err := apply(); err != nil {
		m.setNotice(true, "%v", err)
	}
}

func (m *Model) setSandbox(sb runtime.Sandbox) {
	apply := func() error {
		s, err := m.svc.SetSandboxPolicy(m.ctx, m.sess.ID, sb)
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		m.sess = s
		_, words := AxesText(s.Approval, s.Sandbox)
		m.setNotice(false, "%s now.", words)
		return nil
	}
	if o := m.info.Org; o != nil && o.Sandbox != nil && policy.SandboxWidth(sb.Kind) > policy.SandboxWidth(*o.Sandbox) {
		// Above the organisation's ceiling: no "are you sure?" for what
		// the runtime refuses; its refusal names the policy.
		if err := apply(); err != nil {
			m.setNotice(true, "🔒 %v", err)
			kind := sb.Kind
			m.lockedKind = &kind
		}
		return
	}
	m.lockedKind = nil
	if sb.Kind == policy.DangerFullAccess && m.sess.Sandbox.Kind != policy.DangerFullAccess {
		text := FullAccessWarning
		if m.sess.Approval == policy.Never {
			text = neverFullAccessWarning
		}
		m.confirm = &confirmation{text: text, apply: apply}
		return
	}
	if err := apply(); err != nil {
		m.setNotice(true, "%v", err)
	}
}

func (m *Model) openGrants() {
	gs, err := m.svc.ListGrants(m.ctx, m.sess.ID)
	if err != nil {
		m.setNotice(true, "grants: %v", err)
		return
	}
	m.grants, m.panel, m.sel = gs, panelGrants, 0
}

// onPanelKey handles the open panel's keys; false passes the key on.
func (m *Model) onPanelKey(key string, k tea.KeyPressMsg) bool {
	switch key {
	case "esc":
		m.panel = panelNone
		return true
	case "up":
		m.sel = max(0, m.sel-1)
		return true
	case "down":
		m.sel++
		return true
	}
	switch m.panel {
	case panelHelp:
		if key == "?" {
			m.panel = panelNone
			return true
		}
	case panelGrants:
		switch key {
		case "r", "delete", "x":
			if m.sel < len(m.grants) {
				g := m.grants[m.sel]
				if err := m.svc.RevokeGrant(m.ctx, runtime.RevokeGrantArgs{ID: g.ID, Kind: g.Kind, SessionID: m.sess.ID}); err != nil {
					m.setNotice(true, "revoke: %v", err)
				} else {
					m.setNotice(false, "Revoked %s.", g.Signature)
				}
				m.openGrants()
			}
			return true
		}
		return m.focus == focusKeys || len(m.input) == 0
	case panelSessions:
		switch key {
		case "enter":
			if m.focus == focusComposer && len(m.input) > 0 {
				return false
			}
			if m.sel < len(m.sessions) {
				m.pending = m.switchTo(m.sessions[m.sel].ID)
			}
			return true
		case "n":
			if m.focus == focusKeys || len(m.input) == 0 {
				m.pending = m.newSession()
				return true
			}
		}
		return false
	case panelAgents:
		switch key {
		case "x", "delete":
			run := m.runningAgents()
			if m.sel < len(run) {
				if err := m.svc.KillAgent(m.ctx, m.sess.ID, run[m.sel].id); err != nil {
					m.setNotice(true, "stop: %v", err)
				} else {
					m.setNotice(false, "Stopped %s.", run[m.sel].id)
				}
			}
			return true
		}
	case panelTrace:
		switch key {
		case "1":
			m.traceFilter = ""
		case "2":
			m.traceFilter = "asked"
		case "3":
			m.traceFilter = "allowed"
		case "4":
			m.traceFilter = "denied"
		case "backspace":
			if len(m.traceText) > 0 {
				m.traceText = m.traceText[:len(m.traceText)-1]
			}
		default:
			if t := k.Key().Text; t != "" && m.focus == focusComposer {
				m.traceText = append(m.traceText, []rune(t)...)
			} else {
				return false
			}
		}
		m.sel = 0
		return true
	}
	return false
}
