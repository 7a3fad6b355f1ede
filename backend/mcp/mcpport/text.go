package mcpport

import (
	"fmt"
	"strings"
)

// EscapeForDisplay makes server-controlled text (descriptions, log lines,
// error messages) safe to print in a terminal or a log: control characters,
// including the escape that starts a terminal sequence, become visible \x
// escapes. Newlines and tabs stay.
func EscapeForDisplay(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == '\u202e' || r == '\u202d' || r == '\u2066' || r == '\u2067' || r == '\u2068' || r == '\u2069' || r == '\u202a' || r == '\u202b' || r == '\u202c':
			fmt.Fprintf(&b, `\u%04x`, r) // bidi overrides can disguise text
		case r == '\ufffd':
			b.WriteString(`\ufffd`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// DescriptionDiff is a line diff of two descriptions for the re-prompt:
// lines prefixed "-" were trusted and are gone, "+" are new, " " are kept.
// The text is server data; the result is escaped for display.
func DescriptionDiff(old, current string) string {
	a, b := lines(old), lines(current)
	// Longest common subsequence; descriptions are short enough for the
	// quadratic table, and the cap keeps a hostile one from making it big.
	const maxLines = 400
	if len(a) > maxLines {
		a = append(a[:maxLines], "[... cut]")
	}
	if len(b) > maxLines {
		b = append(b[:maxLines], "[... cut]")
	}
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out.WriteString(" " + a[i] + "\n")
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("-" + a[i] + "\n")
			i++
		default:
			out.WriteString("+" + b[j] + "\n")
			j++
		}
	}
	return out.String()
}

// lines splits escaped text; an empty description has no lines at all, so a
// tool that is new shows only additions.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(EscapeForDisplay(s), "\n")
}
