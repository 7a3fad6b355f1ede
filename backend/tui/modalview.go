package tui

// Drawing the permission modal: what is asked, why, what "always" would
// cover, and the keys.

import (
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/reveal"
)

const modalMaxWidth = 120

// modal draws the first waiting ask, "Permission request", in at most h
// rows. Its middle (arguments, MCP review, trace) is folded so that reserve
// rows stay free for the transcript above; what must be read whole (the
// decisive step, why, what always covers, the keys) takes from them.
func (m *Model) modal(w, h, reserve int) []string {
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
	var head, where, tail []string
	rs := th.warn
	if a.Risk == policy.RiskHigh {
		rs = th.bad
	}
	head = append(head, th.bold.Render("Tool: ")+th.tool.Render(a.Tool)+"  "+rs.Render(RiskText(a.Risk)))
	// Where the call runs: the session, its folder and its axes (the status
	// bar shows the axes too, so on a short screen these lines go first).
	ap, sb := AxesText(m.sess.Approval, m.sess.Sandbox)
	sessLine := "Session: " + reveal.RevealText(m.sess.Title)
	if a.SessionID != m.sess.ID {
		sessLine = "Session: subagent " + shortID(a.SessionID) + " of " + reveal.RevealText(m.sess.Title)
	}
	// The session and its folder share a line when both fit whole.
	if both := sessLine + " · Workspace: " + m.sess.Workspace; textWidth(both) <= cw {
		where = append(where, both)
	} else {
		where = append(where, clipWidth(sessLine, cw), clipMiddle("Workspace: "+m.sess.Workspace, cw))
	}
	where = append(where, wrapSpans([]span{{text: ap + " · " + sb, style: th.plain}}, cw, "", "", th.plain)...)
	if !a.Live {
		head = append(head, th.dim.Render(clipWidth("(asked before a restart: the answer is recorded, nothing runs now)", cw)))
	}

	// One reason reads on the line of "Why:"; several are a list.
	if len(a.Reasons) == 1 {
		tail = append(tail, wrapSpans([]span{{text: "Why: ", style: th.bold}, {text: ReasonText(a.Reasons[0]), style: th.plain}},
			cw, "", "     ", th.plain)...)
	} else {
		tail = append(tail, th.bold.Render("Why:"))
		for _, r := range a.Reasons {
			tail = append(tail, wrapSpans([]span{{text: ReasonText(r), style: th.plain}}, cw, "• ", "  ", th.warn)...)
		}
	}
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
		note := reveal.RevealText(string(m.note))
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
		always, deny, trace := " · a always allow…", " · n or Esc deny (a note next)", " · t trace"
		if a.AlwaysRefused != "" {
			always = ""
		}
		if m.modalTrace {
			deny, trace = " · n deny (a note next)", " · t or Esc hide trace"
		}
		keys := "y allow once" + always + deny + trace
		tail = append(tail, wrapSpans([]span{{text: keys, style: th.bold}}, cw, "", "", th.plain)...)
	}
	var mcp, trace []string
	var traceRows []keptRow
	if a.Mcp != nil {
		mcp = m.mcpLines(*a.Mcp, cw, 1<<20)
	}
	if m.modalTrace {
		traceRows = m.modalTraceLines(a.Trace, cw)
	}
	// The middle shares what room is left: the arguments, the MCP review
	// and, behind t, the decision trace. Each keeps what must be read when
	// folded (the risky lines and the end of a command, the decisive step,
	// the changed lines of a description); an MCP review outranks the call's
	// JSON. Where even that does not fit, the lines of where the call runs
	// and the blank line go, and the middle is fitted again.
	blank := []string{""}
	var args []string
	fit := func() int {
		room := max(h-reserve-2-len(head)-len(where)-len(blank)-len(tail), 2)
		argRoom := room - min(len(mcp), room*2/3) - max(min(len(traceRows), room/2), minKept(traceRows))
		args = m.argLines(a.Tool, a.Args, a.Preview, a.Trace, cw, max(argRoom, 3))
		left := room - len(args)
		trace = nil
		if len(traceRows) > 0 {
			trace = foldKeeping(traceRows, max(left-min(len(mcp), left*2/3), minKept(traceRows)), cw, th)
			left -= len(trace)
		}
		if a.Mcp != nil {
			// Folded to its changed lines (room 0 folds every unchanged run
			// and cuts nothing), the review may take the transcript's rows
			// that the trace has not taken.
			need := len(m.mcpLines(*a.Mcp, cw, 0))
			mcp = m.mcpLines(*a.Mcp, cw, max(min(max(left, need), left+reserve), 3))
		}
		return len(head) + len(where) + len(blank) + len(args) + len(mcp) + len(trace) + len(tail) + 2 - h
	}
	if fit() > 0 && len(where)+len(blank) > 0 {
		where, blank = nil, nil
		fit()
	}
	middle := append(append(append([]string(nil), args...), mcp...), trace...)
	// On a screen too small even for that, the middle folds further; the
	// tail (why, what always covers, the keys) is never cut.
	if over := len(head) + len(where) + len(blank) + len(middle) + len(tail) + 2 - h; over > 0 {
		middle = keepTail(middle, max(len(middle)-over, 0), cw, th)
	}
	content := append(append(append(append(append([]string(nil), head...), where...), blank...), middle...), tail...)
	if len(content)+2 > h {
		content = content[len(content)-max(h-2, 1):]
	}
	// The modal sits at the bottom of the body, above the composer, as
	// tall as its content (the transcript fills the rows above it).
	box := m.box(w, min(len(content)+2, h), title, content)
	for i := range box {
		box[i] = indent + box[i]
	}
	return box
}

// transcriptReserve is how many rows of the transcript a modal leaves
// above itself, out of a body of h rows: enough for the model's last
// sentence on a small screen, none on a screen too small for both.
func transcriptReserve(h int) int {
	if h < 12 {
		return 0
	}
	return min(max(h/7, 2), 6)
}
