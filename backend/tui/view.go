package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/warden-dev/warden/backend/reveal"
)

// View draws the whole screen.
func (m *Model) View() tea.View {
	if m.startOpen != nil {
		defer m.startOpen() // the first frame first
	}
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "warden"
	if m.sess.Title != "" {
		v.WindowTitle += " · " + m.sess.Title
	}
	return v
}

// Render is the screen as a string of exactly height lines, none wider
// than width (the golden tests compare it with ANSI stripped).
func (m *Model) Render() string {
	if m.quitting {
		return ""
	}
	w, h := max(m.width, 20), max(m.height, 6)
	status := m.statusLines(w)
	bottom := []string{m.composerLine(w)}
	if m.notice != "" {
		st := m.th.dim
		if m.noticeBad {
			st = m.th.bad
		}
		// A notice wraps to two lines at most (what an undo brought back
		// and how to undo it again does not fit one on 80 columns).
		lines := wrapSpans([]span{{text: reveal.RevealText(m.notice), style: st}}, w, "", "", st)
		if len(lines) > 2 {
			lines = []string{lines[0], clipANSI(lines[1], w-1) + st.Render("…")}
		}
		bottom = append(lines, bottom...)
	}
	if run := m.runningAgents(); len(run) > 0 {
		bottom = append([]string{m.ambientLine(run, w)}, bottom...)
	}
	bodyH := max(h-len(status)-len(bottom), 1)
	var body []string
	switch {
	case m.openErr != nil:
		c := wrapSpans([]span{{text: reveal.RevealText(m.openErr.Error()), style: m.th.bad}}, w-4, "", "", m.th.plain)
		c = append(c, m.th.dim.Render(clipMiddle("Database: "+reveal.RevealText(m.starting.DBPath), w-4)), "", m.th.bold.Render("Press any key to exit."))
		body = m.box(w, min(len(c)+2, bodyH), "Could not open the session", c)
		for len(body) < bodyH {
			body = append([]string{""}, body...)
		}
	case m.svc == nil:
		body = make([]string, bodyH-1, bodyH)
		body = append(body, m.th.dim.Render(clipMiddle("Opening "+reveal.RevealText(m.starting.DBPath)+"…", w)))
	case m.confirm != nil:
		// Over the transcript, as the permission modal.
		c := m.confirmLines(w - 4)
		box := m.box(w, min(len(c)+2, bodyH), m.confirm.title, c)
		body = append(m.bodyTranscript(w, bodyH-len(box)), box...)
	case len(m.queue) > 0 && m.panel == panelNone:
		// The modal overlays the bottom of the transcript: its last lines
		// (the model's explanation of the call) stay readable above.
		box := m.modal(w, bodyH, transcriptReserve(bodyH))
		body = append(m.bodyTranscript(w, bodyH-len(box)), box...)
	case m.panel == panelHelp:
		body = m.box(w, bodyH, "Keys", helpLines())
	case m.panel == panelTrace:
		body = m.box(w, bodyH, "Trace: permission events of this session", m.traceLines(w-4))
	case m.panel == panelAgents:
		body = m.box(w, bodyH, "Agents and monitors", m.agentLines(w-4))
	case m.panel == panelSessions:
		body = m.box(w, bodyH, "Sessions in this workspace", m.sessionLines(w-4))
	case m.panel == panelGrants:
		body = m.box(w, bodyH, "Grants, rules and MCP trust", m.grantLines(w-4))
	case m.panel == panelAnswerers:
		body = m.box(w, bodyH, "Answerers and hooks", m.answererLines(w-4, bodyH-2))
	default:
		body = m.bodyTranscript(w, bodyH)
	}
	lines := append(body, bottom...)
	lines = append(lines, status...)
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = clipANSI(l, w)
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) composerLine(w int) string {
	if m.focus == focusKeys {
		return m.th.dim.Render(clipWidth("keys: B sandbox · Shift+Tab approval · u undo · Ctrl+T trace · Ctrl+O agents · ? help · i type · q quit", w))
	}
	prompt := "› "
	if len(m.queue) > 0 && !m.Armed() {
		prompt = "› "
	}
	text := reveal.RevealText(string(m.input))
	room := w - 3
	if textWidth(text) > room {
		text = "…" + tailOf(text, room-1)
	}
	return m.th.user.Render(prompt) + text + m.th.selected.Render(" ")
}

// ambientLine is the strip of running subagents and monitors above the
// composer; focused (Ctrl+K) it picks one and asks before stopping it.
func (m *Model) ambientLine(run []agent, w int) string {
	th := m.th
	if m.strip {
		sel := min(m.stripSel, len(run)-1)
		a := run[sel]
		what := a.kind() + " " + shortID(a.id) + " " + reveal.RevealText(firstLine(a.what))
		if m.stripConfirm {
			return th.bad.Render(clipWidth("⚙ Stop "+what+"? y stops it · n keeps it", w))
		}
		return th.warn.Render("⚙ ") + th.selected.Render(clipWidth(what, max(w/2, 10))) +
			th.warn.Render(clipWidth(fmt.Sprintf(" (%d of %d) ←→ choose · x stop · Esc", sel+1, len(run)), max(w-2-min(textWidth(what), max(w/2, 10)), 0)))
	}
	var parts []string
	for _, a := range run {
		parts = append(parts, a.kind()+" "+shortID(a.id)+" "+reveal.RevealText(firstLine(a.what)))
	}
	return th.warn.Render(clipWidth(fmt.Sprintf("⚙ %d running: %s (Ctrl+K stops one)", len(run), strings.Join(parts, " · ")), w))
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// box frames lines with a title, filling h rows (the content is cut at the
// bottom with a count when it does not fit).
func (m *Model) box(w, h int, title string, content []string) []string {
	inner := max(h-2, 1)
	if len(content) > inner {
		more := len(content) - inner + 1
		content = append(content[:inner-1:inner-1], m.th.dim.Render(fmt.Sprintf("… %d more lines", more)))
	}
	for len(content) < inner {
		content = append(content, "")
	}
	bw := w - 2
	top := m.th.modalBorder.Render("╭─ ") + m.th.modalTitle.Render(clipWidth(title, max(bw-4, 1))) + " "
	top += m.th.modalBorder.Render(strings.Repeat("─", max(w-lipgloss.Width(top)-1, 0)) + "╮")
	out := []string{top}
	for _, l := range content {
		l = clipANSI(l, bw-2)
		padN := max(bw-2-lipgloss.Width(l), 0)
		out = append(out, m.th.modalBorder.Render("│ ")+l+strings.Repeat(" ", padN)+m.th.modalBorder.Render(" │"))
	}
	out = append(out, m.th.modalBorder.Render("╰"+strings.Repeat("─", max(w-2, 0))+"╯"))
	return out
}

func clipANSI(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	return truncateANSI(s, w)
}

func helpLines() []string {
	return []string{
		"Typing (the composer)",
		"  Enter            send; !cmd runs a shell command through the gate",
		"  /plan            planning freeze on/off      /mode never|on-request|always",
		"  /grants          grants, rules, MCP trust     /mode read-only|workspace-write|full-access",
		"  /audit [text]    trace panel                  /mode network on|off",
		"  /sessions        session list                 /undo (as u)   /quit",
		"  /answerers       who answers an ask before you: answerers, hooks, their last answers",
		"  Esc              leave the composer for single keys (i or Enter: back)",
		"Everywhere",
		"  Shift+Tab        cycle approval: On request → Always ask → Never ask",
		"  Ctrl+S           sessions of this workspace (↑↓, Enter resumes, n new)",
		"  Ctrl+T           trace: every ask, allow and deny (1 all 2 asked 3 allowed 4 denied, type to filter)",
		"  Ctrl+O           agents and monitors (↑↓, x stops one)",
		"  Ctrl+K           the running strip: ←→ choose, x stop (asks y/n on the strip)",
		"  Ctrl+G           grants (↑↓, r revokes)",
		"  Ctrl+E           expand or collapse tool calls     PgUp/PgDn scroll",
		"  Ctrl+C           stop the turn; quit when idle",
		"Single keys (after Esc)",
		"  B                cycle sandbox: Read only → Workspace write → Full access (asks; B again skips it)",
		"  u                undo the newest change to files (asks; u again undoes the undo)",
		"  ?  q  j/k  g/G   this help, quit, scroll, top/bottom",
		"Permission request",
		"  y once · a always (s/w scope, 1-4 expiry, Enter) · t decision trace (t or Esc hides it)",
		"  n or Esc deny: type an optional note to the model, Enter sends it, Esc denies without",
		"  keys answer only after a short pause (type-ahead never answers)",
	}
}

func truncateANSI(s string, w int) string { return ansi.Truncate(s, w, "") }
