package tui

import (
	"regexp"
	"strings"

	"github.com/warden-dev/warden/backend/reveal"
)

// renderMarkdown draws a model's Markdown as terminal lines of at most
// width columns: headings, wrapped paragraphs, emphasis, inline and fenced
// code (wrapped rows marked ↪), lists, quotes, rules, links with their URL
// and images as a placeholder. It is Warden's own small renderer: glamour
// doubled the binary and the idle memory. Every text node goes through the
// reveal rule, so a U+202E in a reply is a badge, not a reordering.
func renderMarkdown(src string, width int, th theme) []string {
	if width < 8 {
		width = 8
	}
	src = strings.ReplaceAll(src, "\r\n", "\n")
	lines := strings.Split(src, "\n")
	var out []string
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		out = append(out, wrapSpans(inline(strings.Join(para, " "), th, th.plain), width, "", "", th.plain)...)
		para = nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			flush()
			fence := trim[:3]
			lang := strings.TrimSpace(trim[3:])
			if lang != "" {
				out = append(out, th.dim.Render(clipWidth("  "+reveal.RevealText(lang), width)))
			}
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
				for _, row := range hardWrap(reveal.RevealText(expandTabs(lines[i])), width-2) {
					out = append(out, th.dim.Render("│ ")+th.code.Render(row))
				}
			}
		case trim == "":
			flush()
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		case headingRe.MatchString(trim):
			flush()
			m := headingRe.FindStringSubmatch(trim)
			out = append(out, wrapSpans(inline(m[2], th, th.heading), width, m[1]+" ", strings.Repeat(" ", len(m[1])+1), th.heading)...)
		case ruleRe.MatchString(trim):
			flush()
			out = append(out, th.dim.Render(strings.Repeat("─", min(width, 40))))
		case strings.HasPrefix(trim, ">"):
			flush()
			var q []string
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), ">"); i++ {
				q = append(q, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), ">")))
			}
			i--
			out = append(out, wrapSpans(inline(strings.Join(q, " "), th, th.quote), width, "│ ", "│ ", th.dim)...)
		case listRe.MatchString(line):
			flush()
			m := listRe.FindStringSubmatch(line)
			indent := min(len(expandTabs(m[1]))/2*2, 8)
			marker := "• "
			if m[2] != "-" && m[2] != "*" && m[2] != "+" {
				marker = m[2] + " "
			}
			text := m[3]
			// Continuation lines of the item (indented, not a new item).
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") && strings.TrimSpace(lines[i+1]) != "" && !listRe.MatchString(lines[i+1]) {
				i++
				text += " " + strings.TrimSpace(lines[i])
			}
			if strings.HasPrefix(text, "[ ] ") {
				marker, text = marker+"☐ ", text[4:]
			} else if strings.HasPrefix(text, "[x] ") || strings.HasPrefix(text, "[X] ") {
				marker, text = marker+"☑ ", text[4:]
			}
			pre := strings.Repeat(" ", indent) + marker
			out = append(out, wrapSpans(inline(text, th, th.plain), width, pre, strings.Repeat(" ", textWidth(pre)), th.dim)...)
		default:
			para = append(para, trim)
		}
	}
	flush()
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

var (
	headingRe = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	ruleRe    = regexp.MustCompile(`^(?:-{3,}|\*{3,}|_{3,})$`)
	listRe    = regexp.MustCompile(`^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$`)
)

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// clipWidth cuts s to w columns with an ellipsis.
func clipWidth(s string, w int) string {
	if textWidth(s) <= w {
		return s
	}
	if w < 2 {
		head, _ := splitWidth(s, w)
		return head
	}
	head, _ := splitWidth(s, w-1)
	return head + "…"
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}
