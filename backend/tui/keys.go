package tui

// Keys: every key press enters at onKey and goes to the one part of the
// screen that owns it — the opening screen, a confirmation, the running
// strip, the permission modal, an open panel, single-key mode or the
// composer, in that order.

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/warden-dev/warden/backend/runtime"
)

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
	}
	if editLine(&m.input, key, k) {
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
	case "u":
		m.undoLast()
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
	case "?":
		if len(m.input) == 0 {
			m.toggle(panelHelp)
			return m, nil
		}
	}
	editLine(&m.input, key, k)
	return m, nil
}

// editLine applies a key to a line being typed (the composer, the deny
// note): Backspace, Ctrl+U, or the key's text; false for any other key.
func editLine(line *[]rune, key string, k tea.KeyPressMsg) bool {
	switch key {
	case "backspace":
		if n := len(*line); n > 0 {
			*line = (*line)[:n-1]
		}
		return true
	case "ctrl+u":
		*line = nil
		return true
	}
	if t := k.Key().Text; t != "" {
		*line = append(*line, []rune(t)...)
		return true
	}
	return false
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
	case CmdUndo:
		m.undoLast()
	case CmdAnswerers:
		m.openAnswerers()
	case CmdHelp:
		m.panel = panelHelp
	case CmdQuit:
		return m.quit()
	case CmdUnknown:
		m.setNotice(true, "%s", c.Err)
	}
	return m, nil
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
	case panelAnswerers:
		return m.onAnswererKey(key)
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
