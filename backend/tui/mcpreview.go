package tui

// The MCP part of the modal: a server's tool and its description, as a
// diff when it changed since the server was trusted.

import (
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/reveal"
	"github.com/warden-dev/warden/backend/runtime"
)

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
	head := "MCP server " + reveal.RevealText(mc.Server)
	if mc.Tool != "" {
		head += ", tool " + reveal.RevealText(mc.Tool)
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
		// The runtime diffs the two (mcpport.DescriptionDiff), as for the window.
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
			for i, r := range hardWrap(reveal.RevealText(expandTabs(body)), w-2) {
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
		for _, row := range hardWrap(reveal.RevealText(expandTabs(mc.Description)), w) {
			out = append(out, th.plain.Render(row))
		}
	}
	out = foldRows(out, room)
	for i, l := range out {
		out[i] = clipANSI(l, w) // the fold's count line on a narrow screen
	}
	return out
}
