package tui

// The permission modal's state: the queue of asks waiting for this
// screen, the grace period before its keys answer, and the answers.

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
)

// expiries are the choices of an "always" answer.
var expiries = []struct {
	label string
	sec   int64
}{{"never", 0}, {"1 hour", 3600}, {"1 day", 86400}, {"1 week", 7 * 86400}}

// Armed says whether the modal's keys answer now.
func (m *Model) Armed() bool { return len(m.queue) > 0 && !m.now().Before(m.armAt) }

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
		default:
			editLine(&m.note, key, k)
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
	case "esc":
		// Esc steps back out of what t opened before it means deny.
		if m.modalTrace {
			m.modalTrace = false
			return nil, true
		}
		m.noting, m.note = true, nil
	case "n", "N":
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
	args.Via = gate.ViaTUI // the decision's layer detail names the front end
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
