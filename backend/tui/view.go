package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
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
		bottom = append([]string{st.Render(clipWidth(RevealText(m.notice), w))}, bottom...)
	}
	if run := m.runningAgents(); len(run) > 0 {
		bottom = append([]string{m.ambientLine(run, w)}, bottom...)
	}
	bodyH := max(h-len(status)-len(bottom), 1)
	var body []string
	switch {
	case m.openErr != nil:
		c := wrapSpans([]span{{text: RevealText(m.openErr.Error()), style: m.th.bad}}, w-4, "", "", m.th.plain)
		c = append(c, m.th.dim.Render(clipMiddle("Database: "+RevealText(m.starting.DBPath), w-4)), "", m.th.bold.Render("Press any key to exit."))
		body = m.box(w, min(len(c)+2, bodyH), "Could not open the session", c)
		for len(body) < bodyH {
			body = append([]string{""}, body...)
		}
	case m.svc == nil:
		body = make([]string, bodyH-1, bodyH)
		body = append(body, m.th.dim.Render(clipMiddle("Opening "+RevealText(m.starting.DBPath)+"…", w)))
	case m.confirm != nil:
		c := m.confirmLines(w - 4)
		body = m.box(w, min(len(c)+2, bodyH), "Confirm", c)
		for len(body) < bodyH {
			body = append([]string{""}, body...)
		}
	case len(m.queue) > 0 && m.panel == panelNone:
		body = m.modal(w, bodyH)
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

func (m *Model) transcriptHeight() int { return max(m.height-4, 1) }

// bodyTranscript is the bottom of the transcript, scrolled up by m.scroll.
func (m *Model) bodyTranscript(w, h int) []string {
	all := m.transcriptLines(w)
	if m.scroll > len(all)-h {
		m.scroll = max(len(all)-h, 0)
	}
	end := len(all) - m.scroll
	start := max(end-h, 0)
	out := append([]string(nil), all[start:end]...)
	if m.scroll > 0 && len(out) > 0 {
		out[len(out)-1] = m.th.dim.Render(clipWidth(fmt.Sprintf("↓ %d more lines (PgDn, End)", m.scroll), w))
	}
	for len(out) < h {
		out = append([]string{""}, out...)
	}
	return out
}

// statusLines are the status bar: both axes in the window's words first,
// never cut (they wrap at a word before they would be), then planning,
// cage, model and the pending count as far as they fit.
func (m *Model) statusLines(w int) []string {
	ap, sb := AxesText(m.sess.Approval, m.sess.Sandbox)
	axes := ap + " · " + sb
	planning := "Planning: off"
	if m.sess.Planning {
		planning = "Planning: ON (actions paused)"
	}
	cage := "Cage: on"
	switch {
	case m.sess.Sandbox.Kind == policy.DangerFullAccess:
		cage = "Cage: none (Full access)"
	case !m.info.Caged:
		cage = "Cage: off (" + orDefault(m.info.CageReason, "unavailable") + ")"
	}
	modelName := "Model: " + shortModel(orDefault(m.info.Model, "none"))
	if m.info.Demo {
		modelName = "Model: DEMO"
	}
	rest := []string{planning, cage, modelName}
	if o := m.info.Org; o != nil {
		// Managed values are shown locked, with the file that sets them.
		axes += " 🔒"
		rest = append([]string{"🔒 limits set by your organisation's policy (" + o.File + ")"}, rest...)
	}
	switch {
	case m.openErr != nil:
		rest = []string{"not open · any key exits"}
	case m.svc == nil:
		rest = []string{"opening… · Ctrl+C quits"}
	}
	if m.busy {
		rest = append(rest, "working… (Ctrl+C stops)")
	}
	if n := len(m.queue); n > 0 {
		rest = append(rest, fmt.Sprintf("%d waiting for you", n))
	}
	if m.svc != nil {
		hint := "? help"
		if m.focus == focusComposer {
			hint = "Esc: keys · ? help"
		}
		rest = append(rest, hint)
	}
	pad := func(s string) string {
		if d := w - lipgloss.Width(s); d > 0 {
			s += m.th.status.Render(strings.Repeat(" ", d))
		}
		return s
	}
	sep := m.th.status.Render(" · ")
	if textWidth(axes) <= w {
		line1 := m.th.statusAxis.Render(axes)
		used := textWidth(axes)
		var more []string
		for i, r := range rest {
			if len(more) == 0 && used+3+textWidth(r) <= w {
				line1 += sep + m.th.status.Render(r)
				used += 3 + textWidth(r)
				continue
			}
			more = rest[i:]
			break
		}
		if len(more) == 0 {
			return []string{pad(line1)}
		}
		return []string{pad(line1), pad(m.th.status.Render(clipWidth(strings.Join(more, " · "), w)))}
	}
	// Narrower than both axes: one axis a line, wrapped, never cut.
	var out []string
	for _, a := range []string{ap, sb} {
		for _, l := range wrapSpans([]span{{text: a, style: m.th.statusAxis}}, w, "", "", m.th.status) {
			out = append(out, pad(l))
		}
	}
	return append(out, pad(m.th.status.Render(clipWidth(strings.Join(rest, " · "), w))))
}

func (m *Model) composerLine(w int) string {
	if m.focus == focusKeys {
		return m.th.dim.Render(clipWidth("keys: B sandbox · Shift+Tab approval · Ctrl+T trace · Ctrl+O agents · ? help · i type · q quit", w))
	}
	prompt := "› "
	if len(m.queue) > 0 && !m.Armed() {
		prompt = "› "
	}
	text := RevealText(string(m.input))
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
		what := a.kind() + " " + shortID(a.id) + " " + RevealText(firstLine(a.what))
		if m.stripConfirm {
			return th.bad.Render(clipWidth("⚙ Stop "+what+"? y stops it · n keeps it", w))
		}
		return th.warn.Render("⚙ ") + th.selected.Render(clipWidth(what, max(w/2, 10))) +
			th.warn.Render(clipWidth(fmt.Sprintf(" (%d of %d) ←→ choose · x stop · Esc", sel+1, len(run)), max(w-2-min(textWidth(what), max(w/2, 10)), 0)))
	}
	var parts []string
	for _, a := range run {
		parts = append(parts, a.kind()+" "+shortID(a.id)+" "+RevealText(firstLine(a.what)))
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

func (m *Model) confirmLines(w int) []string {
	out := wrapSpans([]span{{text: m.confirm.text, style: m.th.warn}}, w, "", "", m.th.plain)
	return append(out, "", m.th.bold.Render("y yes · n or Esc no"))
}

func helpLines() []string {
	return []string{
		"Typing (the composer)",
		"  Enter            send; !cmd runs a shell command through the gate",
		"  /plan            planning freeze on/off      /mode never|on-request|always",
		"  /grants          grants, rules, MCP trust     /mode read-only|workspace-write|full-access",
		"  /audit [text]    trace panel                  /mode network on|off",
		"  /sessions        session list                 /quit",
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
		"  B                cycle sandbox: Read only → Workspace write → Full access (asks first)",
		"  ?  q  j/k  g/G   this help, quit, scroll, top/bottom",
		"Permission request",
		"  y once · a always (s/w scope, 1-4 expiry, Enter) · t decision trace",
		"  n or Esc deny: type an optional note to the model, Enter sends it, Esc denies without",
		"  keys answer only after a short pause (type-ahead never answers)",
	}
}

const modalMaxWidth = 120

// modal draws the first waiting ask: "Permission request".
func (m *Model) modal(w, h int) []string {
	a := m.queue[0]
	th := m.th
	// On a wide terminal the modal keeps a readable width, centred.
	full := w
	w = min(w, modalMaxWidth)
	indent := strings.Repeat(" ", (full-w)/2)
	cw := w - 4
	title := "Permission request"
	if n := len(m.queue); n > 1 {
		title += fmt.Sprintf(" (1 of %d, %d more waiting)", n, n-1)
	}
	var head, tail []string
	risk := string(a.Risk)
	rs := th.warn
	if a.Risk == policy.RiskHigh {
		rs = th.bad
	}
	head = append(head, th.bold.Render("Tool: ")+th.tool.Render(a.Tool)+"   "+th.bold.Render("Risk: ")+rs.Render(orDefault(risk, "unknown")))
	ap, sb := AxesText(m.sess.Approval, m.sess.Sandbox)
	sessLine := "Session: " + RevealText(m.sess.Title)
	if a.SessionID != m.sess.ID {
		sessLine = "Session: subagent " + shortID(a.SessionID) + " of " + RevealText(m.sess.Title)
	}
	head = append(head, clipWidth(sessLine, cw))
	head = append(head, wrapSpans([]span{{text: ap + " · " + sb, style: th.plain}}, cw, "", "", th.plain)...)
	head = append(head, clipMiddle("Workspace: "+m.sess.Workspace, cw))
	if !a.Live {
		head = append(head, th.dim.Render(clipWidth("(asked before a restart: the answer is recorded, nothing runs now)", cw)))
	}

	reasons := []string{th.bold.Render("Why:")}
	for _, r := range a.Reasons {
		reasons = append(reasons, wrapSpans([]span{{text: ReasonText(r), style: th.plain}}, cw, "• ", "  ", th.warn)...)
	}
	tail = append(tail, reasons...)
	if a.AlwaysRefused != "" {
		tail = append(tail, wrapSpans([]span{{text: "Always is not offered: " + a.AlwaysRefused, style: th.dim}}, cw, "", "", th.plain)...)
	} else {
		scope := policy.ScopeSession
		if m.always {
			scope = m.scope
		}
		tail = append(tail, wrapSpans([]span{{text: "Always allow will cover: ", style: th.bold},
			{text: SignatureWords(a.Signature, scope), style: th.plain}}, cw, "", "", th.plain)...)
	}
	tail = append(tail, "")
	switch {
	case m.noting:
		note := RevealText(string(m.note))
		room := cw - len("Note to the model (optional): ") - 1
		if textWidth(note) > room {
			note = "…" + tailOf(note, room-1)
		}
		tail = append(tail, th.bold.Render("Note to the model (optional): ")+note+th.selected.Render(" "),
			th.bold.Render(clipWidth("Enter deny with this note · Esc deny without a note", cw)))
	case !m.Armed():
		tail = append(tail, th.dim.Render(clipWidth("(keys wait a moment: type-ahead never answers)", cw)))
	case m.always:
		scope := func(s policy.GrantScope, label string) string {
			if m.scope == s {
				return th.selected.Render(label)
			}
			return label
		}
		exp := func(i int) string {
			l := fmt.Sprintf("%d %s", i+1, expiries[i].label)
			if m.expiry == i {
				return th.selected.Render(l)
			}
			return l
		}
		tail = append(tail, "Always for: "+scope(policy.ScopeSession, "s session")+"  "+scope(policy.ScopeWorkspace, "w workspace"),
			"Expires: "+exp(0)+"  "+exp(1)+"  "+exp(2)+"  "+exp(3)+" · Enter ok · Esc back")
	default:
		keys := "y allow once · a always allow… · n or Esc deny (a note next) · t trace"
		if a.AlwaysRefused != "" {
			keys = "y allow once · n or Esc deny (a note next) · t trace"
		}
		tail = append(tail, wrapSpans([]span{{text: keys, style: th.bold}}, cw, "", "", th.plain)...)
	}
	room := max(h-2-len(head)-len(tail)-1, 2)
	// The middle shares what room is left: the arguments, the MCP review
	// and, behind t, the decision trace. Each keeps its head and tail when
	// folded; the arguments get their share first.
	var mcp, trace []string
	if a.Mcp != nil {
		mcp = m.mcpLines(*a.Mcp, cw, 1<<20)
	}
	if m.modalTrace {
		trace = m.modalTraceLines(a.Trace, cw)
	}
	// An MCP review outranks the call's JSON: a changed description is
	// what the human must read.
	argRoom := room - min(len(mcp), room*2/3) - min(len(trace), room/2)
	args := m.argLines(a.Tool, a.Args, a.Preview, a.Trace, cw, max(argRoom, 2))
	left := room - len(args)
	if len(trace) > 0 {
		trace = foldRows(trace, max(left-min(len(mcp), left*2/3), 2))
		left -= len(trace)
	}
	if len(mcp) > 0 {
		mcp = m.mcpLines(*a.Mcp, cw, max(left, 3))
	}
	content := append(head, "")
	content = append(content, args...)
	content = append(content, mcp...)
	content = append(content, trace...)
	content = append(content, tail...)
	// The modal sits at the bottom of the body, above the composer.
	box := m.box(w, min(len(content)+2, h), title, content)
	for i := range box {
		box[i] = indent + box[i]
	}
	for len(box) < h {
		box = append([]string{""}, box...)
	}
	return box
}

// argLines draws an ask's arguments in at most room rows: a shell command
// revealed and highlighted, risky lines marked ▶; a write as its diff;
// else the JSON. Long content keeps its head and its tail.
func (m *Model) argLines(tool string, raw json.RawMessage, preview string, trace []policy.Step, w, room int) []string {
	th := m.th
	var a map[string]any
	_ = json.Unmarshal(raw, &a)
	var rows []string
	label := "Arguments:"
	if cmd, ok := a["command"].(string); ok && strings.HasPrefix(tool, "shell") {
		label = "Command:"
		var steps []StepView
		for _, s := range trace {
			steps = append(steps, StepView{Step: s.Step, Saw: s.Saw, Concluded: s.Concluded})
		}
		shown := ShowCommand(cmd, RiskyPrograms(steps))
		for _, l := range shown.Lines {
			mark, st := "  ", th.code
			if l.Risky {
				mark, st = "▶ ", th.risky
			}
			var b strings.Builder
			for _, p := range l.Pieces {
				if p.Badge != "" {
					b.WriteString(p.Badge)
				} else {
					b.WriteString(expandTabs(p.Text))
				}
			}
			for i, row := range foldRows(hardWrap(b.String(), w-2), 5) {
				if i > 0 {
					mark = "  "
				}
				rows = append(rows, th.risky.Render(mark)+st.Render(row))
			}
		}
		if len(shown.Invisible) > 0 {
			var names []string
			for _, iv := range shown.Invisible {
				names = append(names, fmt.Sprintf("%s %s ×%d", iv.Label, iv.Name, iv.Count))
			}
			rows = append(rows, wrapSpans([]span{{text: "Hidden characters: " + strings.Join(names, "; "), style: th.bad}}, w, "", "", th.plain)...)
		}
	} else if preview != "" && (tool == "fs.write" || tool == "patch.apply" || looksLikeDiff(preview)) {
		label = "Change:"
		rows = m.diffLines(preview, w, "")
	} else {
		b, _ := json.MarshalIndent(a, "", "  ")
		if a == nil {
			b = raw
		} else if strings.Count(string(b), "\n") >= room-1 {
			// Too tall indented: one line, wrapped, keeps more of it.
			b, _ = json.Marshal(a)
		}
		for _, l := range strings.Split(string(b), "\n") {
			for _, row := range hardWrap(RevealText(l), w) {
				rows = append(rows, th.code.Render(row))
			}
		}
	}
	rows = foldRows(rows, room-1)
	return append([]string{th.bold.Render(label)}, rows...)
}

// foldRows keeps at most n rows: the head, a count of what is folded and
// the tail, so the end is always on screen.
func foldRows(rows []string, n int) []string {
	if len(rows) <= n || n < 3 {
		return rows
	}
	tail := (n - 1) / 2
	head := n - 1 - tail
	out := append([]string(nil), rows[:head]...)
	out = append(out, fmt.Sprintf("  ⟨… %d more lines …⟩", len(rows)-head-tail))
	return append(out, rows[len(rows)-tail:]...)
}

func truncateANSI(s string, w int) string { return ansi.Truncate(s, w, "") }

// modalTraceLines are the engine's decision steps for the ask in words, as
// the window's "Why?" lists them: step — saw … → concluded.
func (m *Model) modalTraceLines(steps []policy.Step, w int) []string {
	th := m.th
	out := []string{th.bold.Render("Decision trace (t hides):")}
	if len(steps) == 0 {
		return append(out, th.dim.Render("  (the engine recorded no steps)"))
	}
	for i, s := range steps {
		out = append(out, wrapSpans([]span{{text: s.Step, style: th.bold}, {text: " — saw ", style: th.plain},
			{text: RevealText(s.Saw), style: th.code}, {text: " → ", style: th.plain}, {text: s.Concluded, style: th.italic}},
			w, fmt.Sprintf("%d. ", i+1), "   ", th.dim)...)
	}
	return out
}

// mcpChangeText says why an MCP tool is asked for, in the window's words
// (McpToolReview.vue).
var mcpChangeText = map[string]string{
	"server":  "This server is not trusted in this session.",
	"config":  "The server's launch config changed since it was trusted.",
	"new":     "This tool is new: it was not offered when the server was trusted.",
	"changed": "This tool's description or schema changed since the server was trusted. The model has not been shown the new text.",
}

// mcpLines review an MCP tool in at most room rows: server and tool, why
// it is asked for, and its description — as a diff against the trusted one
// when it changed, unchanged lines folded first when room is short. Every
// text here is the server's: shown revealed, never as markup.
func (m *Model) mcpLines(mc runtime.McpInfo, w, room int) []string {
	th := m.th
	head := "MCP server " + RevealText(mc.Server)
	if mc.Tool != "" {
		head += ", tool " + RevealText(mc.Tool)
	}
	out := []string{th.bold.Render(clipWidth(head, w))}
	if t := mcpChangeText[mc.Change]; t != "" {
		st := th.warn
		if mc.Change == "changed" {
			st = th.bad
		}
		out = append(out, wrapSpans([]span{{text: t, style: st}}, w, "", "", th.plain)...)
	}
	switch {
	case mc.Change == "changed":
		// The runtime diffs the two (mcp.DescriptionDiff), as for the window.
		out = append(out, wrapSpans([]span{{text: "Description, as trusted (-) and now (+):", style: th.bold}}, w, "", "", th.plain)...)
		type row struct {
			text string
			kept bool
		}
		var rows []row
		for _, l := range strings.Split(strings.TrimRight(mc.DescriptionDiff, "\n"), "\n") {
			st, mark, kept := th.plain, "  ", true
			switch {
			case strings.HasPrefix(l, "+"):
				st, mark, kept = th.add, "+ ", false
			case strings.HasPrefix(l, "-"):
				st, mark, kept = th.del, "- ", false
			}
			body := l
			if len(body) > 0 {
				body = body[1:]
			}
			for i, r := range hardWrap(RevealText(expandTabs(body)), w-2) {
				if i > 0 {
					mark = "  "
				}
				rows = append(rows, row{st.Render(mark + r), kept})
			}
		}
		// Fold runs of unchanged lines, longest first, until the rest fits.
		over := len(out) + len(rows) - room
		var diff []string
		for i := 0; i < len(rows); {
			j := i
			for j < len(rows) && rows[j].kept {
				j++
			}
			if n := j - i; n > 1 && over > 0 {
				diff = append(diff, th.dim.Render(clipWidth(fmt.Sprintf("  ⟨… %d unchanged lines …⟩", n), w)))
				over -= n - 1
				i = j
				continue
			}
			if j == i {
				j++
			}
			for ; i < j; i++ {
				diff = append(diff, rows[i].text)
			}
		}
		out = append(out, diff...)
	case mc.Description != "":
		out = append(out, th.bold.Render("Description:"))
		for _, row := range hardWrap(RevealText(expandTabs(mc.Description)), w) {
			out = append(out, th.plain.Render(row))
		}
	}
	out = foldRows(out, room)
	for i, l := range out {
		out[i] = clipANSI(l, w) // the fold's count line on a narrow screen
	}
	return out
}
