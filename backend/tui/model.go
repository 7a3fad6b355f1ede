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

	"github.com/warden-dev/warden/backend/gate/lineup"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// DefaultGrace is how long a new permission modal ignores keys, so a word
// being typed when it opens never answers it.
const DefaultGrace = 400 * time.Millisecond

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
	panelAnswerers
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
	// The /answerers panel's roster, re-read when an answer arrives.
	answerers    *lineup.AnswererRoster
	answerersErr error
	sessions     []runtime.Session
	sel          int

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
		key   transcriptKey
		lines []string
		asked map[string][2]int // an asked call's lines in lines: [start, end)
	}
	quitting bool

	// lockedKind is the sandbox the organisation's policy just refused
	// (B then cycles past it).
	lockedKind *policy.SandboxKind
}

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
		if m.panel == panelAnswerers && answererEvent(p.Event.Kind) {
			m.loadAnswerers()
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
