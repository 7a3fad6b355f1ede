package tui

// One tool call in the transcript: a line with its command and state, why
// it was refused, and (expanded) its output or diff.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/reveal"
	"github.com/warden-dev/warden/backend/store"
)

// call is one tool call as the transcript shows it.
type call struct {
	id, tool string
	args     json.RawMessage
	output   strings.Builder
	status   string // asked | running | done | failed | denied
	verdict  string // what allowed it, in words
	denial   *store.PermissionDenied
	changes  *store.WorkspaceChanged
	undo     string // "undone" or "u undoes" for its change set
	exit     *int
	ms       int64
	err      string
}

// callSummary is a call's arguments in one line: the command of a shell
// call, the path of a file call, else the JSON.
func callSummary(tool string, args json.RawMessage) string {
	var a map[string]any
	_ = json.Unmarshal(args, &a)
	for _, k := range []string{"command", "path", "url", "pattern", "action", "task"} {
		if v, ok := a[k].(string); ok {
			return v
		}
	}
	if len(args) == 0 {
		return ""
	}
	return string(args)
}

// callLines draws one tool call: one line when collapsed (Ctrl+E expands
// every call), with its output and verdict when expanded or when it needs
// attention.
func (m *Model) callLines(cl *call, w int) []string {
	th := m.th
	mark, st := "▸", th.tool
	if m.expanded {
		mark = "▾"
	}
	var state string
	switch cl.status {
	case "asked":
		state, st = "waiting for you", th.warn
	case "running":
		state = "running"
	case "denied":
		state, st = "✗ denied", th.bad
	case "failed":
		state, st = "✗ failed", th.bad
	case "done":
		state = "✓"
		if cl.exit != nil {
			state = fmt.Sprintf("✓ exit %d", *cl.exit)
			if *cl.exit != 0 {
				state, st = fmt.Sprintf("✗ exit %d", *cl.exit), th.bad
			}
		}
	}
	head := mark + " " + cl.tool + " "
	tail := "  " + state
	sum := strings.ReplaceAll(reveal.RevealText(callSummary(cl.tool, cl.args)), "\n", "⏎")
	room := w - textWidth(head) - textWidth(tail)
	var line string
	if room >= 4 {
		line = th.tool.Render(head) + th.code.Render(clipMiddle(sum, room)) + st.Render(tail)
	} else {
		line = st.Render(clipWidth(head+tail, w))
	}
	out := []string{line}
	if cl.status == "denied" && cl.denial != nil {
		out = append(out, wrapSpans(m.denialSpans(cl), w, "  ✗ ", "    ", th.bad)...)
	}
	if c := cl.changes; c != nil && len(c.Files)+c.Omitted > 0 {
		out = append(out, changeLine(th, "  ↳ "+filesText(*c, 3), cl.undo, w))
	}
	if cl.status == "failed" && cl.err != "" {
		out = append(out, wrapSpans([]span{{text: reveal.RevealText(firstLine(cl.err)), style: th.bad}}, w, "  ", "  ", th.plain)...)
	}
	if !m.expanded {
		return out
	}
	if cl.verdict != "" {
		out = append(out, th.dim.Render(clipWidth("  "+cl.verdict, w)))
	}
	if cl.tool == "fs.write" || cl.tool == "patch.apply" || looksLikeDiff(cl.output.String()) {
		out = append(out, m.diffLines(cl.output.String(), w-2, "  ")...)
	} else if o := strings.TrimRight(cl.output.String(), "\n"); o != "" {
		for _, l := range strings.Split(o, "\n") {
			for _, row := range hardWrap(reveal.RevealText(expandTabs(l)), w-4) {
				out = append(out, th.dim.Render("  │ ")+row)
			}
		}
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func looksLikeDiff(s string) bool {
	return strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "diff --git")
}

// diffLines colours a unified diff (+ green, - red, @@ dim), each line
// wrapped; the +/- stay, so it reads without colour too.
func (m *Model) diffLines(d string, w int, indent string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		st := m.th.plain
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
			st = m.th.bold
		case strings.HasPrefix(l, "+"):
			st = m.th.add
		case strings.HasPrefix(l, "-"):
			st = m.th.del
		case strings.HasPrefix(l, "@@"):
			st = m.th.dim
		}
		for _, row := range hardWrap(reveal.RevealText(expandTabs(l)), w) {
			out = append(out, indent+st.Render(row))
		}
	}
	return out
}

// denialSpans say who refused a call and what: the command (or path, or
// URL) it refused, unless the engine's detail already quotes it, why, and
// what would admit it. The detail's `code` reads as code.
func (m *Model) denialSpans(cl *call) []span {
	th, d := m.th, cl.denial
	out := []span{{text: DeniedByText(string(d.By)) + ": ", style: th.bad}}
	what := strings.ReplaceAll(callSummary(cl.tool, cl.args), "\n", "⏎")
	if what == "" {
		what = cl.tool
	}
	if !strings.Contains(d.Detail, what) {
		out = append(out, span{text: reveal.RevealText(clipMiddle(what, 200)), style: th.code}, span{text: " — ", style: th.plain})
	}
	switch {
	case d.Detail != "":
		out = append(out, inline(d.Detail, th, th.plain)...)
	case d.Reason != policy.ReasonUserDenied:
		out = append(out, span{text: ReasonText(d.Reason), style: th.plain})
	}
	if d.Remedy != "" {
		out = append(out, span{text: ". Remedy: " + reveal.RevealText(d.Remedy), style: th.plain})
		if key := remedyKeys[d.Remedy]; key != "" {
			out = append(out, span{text: " (" + key + ")", style: th.dim})
		}
	}
	return out
}

// remedyKeys are the terminal's ways to do what a sandbox denial's remedy
// says (the remedy strings of backend/policy/sandbox.go).
var remedyKeys = map[string]string{
	"switch the sandbox to workspace-write": "/mode workspace-write, or B",
	"turn network access on":                "/mode network on",
	"add the folder as a writable root, or switch the sandbox to danger-full-access": "/mode full-access",
}

// changeLine is a change set's line: what changed and, for the one u
// undoes, that it does; an undone one says so.
func changeLine(th theme, text, undo string, w int) string {
	if undo != "" {
		text += " · " + undo
	}
	return th.dim.Render(clipWidth(text, w))
}
