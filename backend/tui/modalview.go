package tui

// Drawing the permission modal: what is asked, why, what "always" would
// cover, and the keys.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
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
	sessLine := "Session: " + RevealText(m.sess.Title)
	if a.SessionID != m.sess.ID {
		sessLine = "Session: subagent " + shortID(a.SessionID) + " of " + RevealText(m.sess.Title)
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
		risky := RiskyPrograms(steps)
		shown := ShowCommand(cmd, risky)
		// The window's fold (head, tail and every risky line of a long
		// command), then, when the room is shorter still, a fold that
		// keeps the risky lines, the last line and the hidden characters.
		var kept []keptRow
		folded := FoldLines(shown.Lines, 3, 5)
		for k, l := range folded {
			if l.Gap > 0 {
				kept = append(kept, keptRow{text: th.dim.Render(clipWidth(fmt.Sprintf("  ⟨… %d lines …⟩", l.Gap), w)), lines: l.Gap})
				continue
			}
			mark, st := "  ", th.code
			if l.Risky {
				mark, st = "▶ ", th.risky
			}
			// Of a risky line, its first row and each row that names a risky
			// program stay, with the row after it (the program's arguments);
			// of the last line, its last two rows.
			wrapped := hardWrap(piecesShown(l.Pieces), w-2)
			for i, row := range wrapped {
				keep := k == len(folded)-1 && i >= len(wrapped)-2 ||
					l.Risky && (i == 0 || namesAny(row, risky) || namesAny(wrapped[i-1], risky))
				r := keptRow{text: th.risky.Render(mark) + st.Render(row), keep: keep}
				if i == 0 {
					mark, r.lines = "  ", max(l.Blank, 1)
				}
				kept = append(kept, r)
			}
		}
		if len(shown.Invisible) > 0 {
			var names []string
			for _, iv := range shown.Invisible {
				names = append(names, fmt.Sprintf("%s %s ×%d", iv.Label, iv.Name, iv.Count))
			}
			for _, l := range wrapSpans([]span{{text: "Hidden characters: " + strings.Join(names, "; "), style: th.bad}}, w, "", "", th.plain) {
				kept = append(kept, keptRow{text: l, keep: true})
			}
		}
		return append([]string{th.bold.Render(label)}, foldKeeping(kept, max(room-1, minKept(kept)), w, th)...)
	} else if preview != "" && (tool == "fs.write" || tool == "patch.apply" || looksLikeDiff(preview)) {
		label = "Change:"
		rows = m.diffLines(preview, w, "")
	} else {
		b := plainJSON(a, "  ")
		if a == nil {
			b = raw
		} else if strings.Count(string(b), "\n") >= room-1 {
			// Too tall indented: one line, wrapped, keeps more of it.
			b = plainJSON(a, "")
		}
		for _, l := range strings.Split(string(b), "\n") {
			for _, row := range hardWrap(RevealText(l), w) {
				rows = append(rows, th.code.Render(row))
			}
		}
	}
	if room-1 < 3 {
		rows = keepTail(rows, max(room-1, 1), w, th)
	} else {
		rows = foldRows(rows, room-1)
	}
	return append([]string{th.bold.Render(label)}, rows...)
}

// plainJSON is v as JSON the way it was written: & < > as themselves, not
// as \u0026 (json.Marshal escapes them for HTML), indented by indent.
func plainJSON(v any, indent string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// keepTail fits rows into n rows keeping the last ones, the first row
// saying how many more there are above: the end of a command is where
// `; rm -rf ~` hides.
func keepTail(rows []string, n, w int, th theme) []string {
	if len(rows) <= n {
		return rows
	}
	if n <= 1 {
		return []string{th.dim.Render(clipWidth(fmt.Sprintf("  ⟨… %d lines …⟩", len(rows)), w))}
	}
	return append([]string{th.dim.Render(clipWidth(fmt.Sprintf("  ⟨… %d more lines …⟩", len(rows)-n+1), w))}, rows[len(rows)-n+1:]...)
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
// the window's "Why?" lists them: step — saw … → concluded. The step that
// decided the ask is marked ▶ and kept when the rest is folded.
func (m *Model) modalTraceLines(steps []policy.Step, w int) []keptRow {
	th := m.th
	out := []keptRow{{text: th.bold.Render("Decision trace (▶ decided):"), keep: true}}
	if len(steps) == 0 {
		return append(out, keptRow{text: th.dim.Render("  (the engine recorded no steps)"), keep: true})
	}
	decisive := DecisiveStep(steps, "ask")
	for i, s := range steps {
		mark, st := "  ", th.dim
		if i == decisive {
			mark, st = "▶ ", th.risky
		}
		first := fmt.Sprintf("%s%d. ", mark, i+1)
		for j, l := range wrapSpans([]span{{text: s.Step, style: th.bold}, {text: " — saw ", style: th.plain},
			{text: RevealText(s.Saw), style: th.code}, {text: " → ", style: th.plain}, {text: RevealText(s.Concluded), style: th.italic}},
			w, first, strings.Repeat(" ", textWidth(first)), st) {
			r := keptRow{text: l, keep: i == decisive}
			if j == 0 { // a fold names the steps it hides
				r.label = RevealText(s.Step)
			}
			out = append(out, r)
		}
	}
	return out
}

// passThrough are the conclusions of a step that let the chain go on
// without deciding anything.
var passThrough = map[string]bool{"no veto": true, "admissible": true, "not needed": true}

// DecisiveStep is the index of the step that decided a call whose verdict
// is verdict ("ask", "allow", "deny"): for an allow, a trust that applied
// (it silenced what would have asked); else the first step that concluded
// the verdict (a later step that only repeats it, as grants does for an ask
// no grant covers, decided nothing); else the last step that was not a
// pass-through; -1 for no steps.
func DecisiveStep(steps []policy.Step, verdict string) int {
	if verdict == string(policy.VerdictAllow) {
		for i, s := range steps {
			if strings.TrimSpace(s.Concluded) == "applied" {
				return i
			}
		}
	}
	last := -1
	for i, s := range steps {
		c := strings.ToLower(strings.TrimSpace(s.Concluded))
		word := strings.FieldsFunc(c, func(r rune) bool { return r == ' ' || r == ':' || r == '(' || r == ';' })
		if len(word) > 0 && word[0] == verdict {
			return i
		}
		if !passThrough[c] {
			last = i
		}
	}
	if last < 0 {
		return len(steps) - 1
	}
	return last
}

// keptRow is one drawn row and whether folding must keep it.
type keptRow struct {
	text  string
	keep  bool
	label string // what a fold line says for it ("" for a continuation row)
	lines int    // the source lines it stands for, when a fold counts those
}

// namesAny says whether row holds one of the programs as a word.
func namesAny(row string, programs []string) bool {
	for _, p := range programs {
		for i := strings.Index(row, p); i >= 0; {
			end := i + len(p)
			if (i == 0 || !isWordByte(row[i-1])) && (end == len(row) || !isWordByte(row[end])) {
				return true
			}
			next := strings.Index(row[i+1:], p)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// piecesShown is a line's pieces as the terminal draws them: badges as
// their label, tabs expanded.
func piecesShown(ps []Piece) string { return expandTabs(joinPieces(ps)) }

// minKept is the fewest rows foldKeeping can fold rows into: the kept ones
// and a fold line for each stretch between them.
func minKept(rows []keptRow) int {
	n := 0
	for i, r := range rows {
		if r.keep || i == 0 || rows[i-1].keep {
			n++
		}
	}
	return n
}

// foldKeeping fits rows into n rows by folding stretches of rows not kept
// into one line each — "⟨… planning, sandbox …⟩" by the labels of what it
// hides, "⟨… k more lines …⟩" when they have none — the longest stretch
// first; the kept rows always stay (taller than n when they alone are).
func foldKeeping(rows []keptRow, n, w int, th theme) []string {
	type stretch struct{ from, to int }
	var runs []stretch
	for i := 0; i < len(rows); {
		if rows[i].keep {
			i++
			continue
		}
		j := i
		for j < len(rows) && !rows[j].keep {
			j++
		}
		runs = append(runs, stretch{i, j})
		i = j
	}
	folded := map[int]int{} // a run's start → its end, for the runs folded
	over := len(rows) - n
	for over > 0 {
		best := -1
		for k, r := range runs {
			if _, done := folded[r.from]; !done && r.to-r.from > 1 && (best < 0 || r.to-r.from > runs[best].to-runs[best].from) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		folded[runs[best].from] = runs[best].to
		over -= runs[best].to - runs[best].from - 1
	}
	var out []string
	for i := 0; i < len(rows); {
		if end, ok := folded[i]; ok {
			var labels []string
			lines := 0
			for _, r := range rows[i:end] {
				if r.label != "" {
					labels = append(labels, r.label)
				}
				lines += r.lines
			}
			if lines == 0 {
				lines = end - i
			}
			what := fmt.Sprintf("%d more lines", lines)
			if len(labels) > 0 {
				what = strings.Join(labels, ", ")
			}
			out = append(out, th.dim.Render(clipWidth("  ⟨… "+what+" …⟩", w)))
			i = end
			continue
		}
		out = append(out, rows[i].text)
		i++
	}
	return out
}
