package tui

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// wrapSpans with a first-line prefix narrower than the rest's (a hanging
// indent, or none then one) never draws a line wider than asked and loses
// no character: a long path cut across lines comes back whole.
func TestWrapSpansUnequalPrefixes(t *testing.T) {
	path := "(/work/wt-reveal/artifacts/tui-e2e/run-3344970417/config/warden/config.toml)"
	cases := []struct {
		name, first, rest, text string
		width                   int
	}{
		{"a path under a hanging indent", "    ", "      ", "Configured in: your config " + path, 76},
		{"no first prefix, a deep rest", "", "         ", "17:09:00 command `corp-check` passed shell.exec · 115 ms: " + strings.Repeat("word ", 30), 40},
		{"a word longer than two lines", "• ", "    ", strings.Repeat("x", 150), 30},
		{"rest narrower than first", "          ", "  ", path + " " + path, 50},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines := wrapSpans([]span{{text: c.text, style: lipgloss.NewStyle()}}, c.width, c.first, c.rest, lipgloss.NewStyle())
			var got strings.Builder
			for i, l := range lines {
				plain := ansi.Strip(l)
				if w := textWidth(plain); w > c.width {
					t.Errorf("line %d is %d wide (> %d): %q", i, w, c.width, plain)
				}
				p := c.rest
				if i == 0 {
					p = c.first
				}
				got.WriteString(strings.TrimPrefix(plain, p))
			}
			// Word breaks become nothing (a cut word) or a line end (a space).
			squash := func(s string) string { return strings.ReplaceAll(s, " ", "") }
			if squash(got.String()) != squash(c.text) {
				t.Errorf("text lost:\ngot  %q\nwant %q", got.String(), c.text)
			}
		})
	}
}
