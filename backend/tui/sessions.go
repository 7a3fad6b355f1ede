package tui

// Opening the service and moving between its sessions.

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/warden-dev/warden/backend/reveal"
	"github.com/warden-dev/warden/backend/runtime"
)

// tailEvents is how many of a session's newest events the transcript
// opens on.
const tailEvents = 20000

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
	m.setNotice(false, "Session %s.", reveal.RevealText(orDefault(ld.sess.Title, shortID(ld.sess.ID))))
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
