package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/rivo/uniseg"
)

// span is a run of text in one style.
type span struct {
	text  string
	style lipgloss.Style
}

// textWidth is the display width of plain text.
func textWidth(s string) int { return uniseg.StringWidth(s) }

// splitWidth cuts s after at most w display columns (at least one
// grapheme, so a cut always makes progress).
func splitWidth(s string, w int) (head, rest string) {
	used, i := 0, 0
	state := -1
	rest = s
	for len(rest) > 0 {
		var cluster string
		var width int
		cluster, rest, width, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if used+width > w && i > 0 {
			return s[:i], s[i:]
		}
		used += width
		i += len(cluster)
	}
	return s, ""
}

// wrapSpans word-wraps styled spans to width columns; the first line is
// prefixed with first, the rest with rest (plain text; the two may differ
// in width, as for a hanging indent). A word wider than the line is cut.
func wrapSpans(spans []span, width int, first, rest string, prefixStyle lipgloss.Style) []string {
	room := func(prefix string) int { return max(width-textWidth(prefix), 1) }
	avail := room(first)
	var lines []string
	var cur strings.Builder
	curW := 0
	pending := "" // a space owed before the next word on this line
	pendingStyle := lipgloss.NewStyle()
	newLine := func() {
		p := rest
		if len(lines) == 0 {
			p = first
		}
		lines = append(lines, prefixStyle.Render(p)+cur.String())
		cur.Reset()
		curW = 0
		pending = ""
		avail = room(rest)
	}
	for _, sp := range spans {
		words := splitKeepSpaces(sp.text)
		for _, w := range words {
			if w == " " {
				if curW > 0 {
					pending = " "
					pendingStyle = sp.style
				}
				continue
			}
			ww := textWidth(w)
			need := ww
			if pending != "" {
				need++
			}
			if curW > 0 && curW+need > avail {
				newLine()
			}
			if pending != "" && curW > 0 {
				cur.WriteString(pendingStyle.Render(" "))
				curW++
			}
			pending = ""
			for ww > avail-curW {
				head, tail := splitWidth(w, avail-curW)
				if textWidth(head) > avail-curW && curW > 0 {
					newLine()
					continue
				}
				cur.WriteString(sp.style.Render(head))
				curW += textWidth(head)
				newLine()
				w = tail
				ww = textWidth(w)
			}
			if w != "" {
				cur.WriteString(sp.style.Render(w))
				curW += ww
			}
		}
	}
	if curW > 0 || len(lines) == 0 {
		newLine()
	}
	return lines
}

// splitKeepSpaces splits s into words and single " " separators (runs of
// white space collapse, as in a paragraph).
func splitKeepSpaces(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if r == ' ' || r == '\t' || r == '\n' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			if len(out) == 0 || out[len(out)-1] != " " {
				out = append(out, " ")
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// hardWrap cuts one line of preformatted text (code, shell output) into
// rows of width columns, marking continuation rows with "↪ ".
func hardWrap(s string, width int) []string {
	if width < 3 {
		width = 3
	}
	var out []string
	first := true
	for {
		w := width
		if !first {
			w = width - 2
		}
		head, tail := splitWidth(s, w)
		if first {
			out = append(out, head)
		} else {
			out = append(out, "↪ "+head)
		}
		first = false
		if tail == "" {
			return out
		}
		s = tail
	}
}
