package tui

// Drawing the permission modal: what is asked, why, what "always" would
// cover, and the keys.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

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
