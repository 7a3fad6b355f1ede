// Package reveal is the window's rule for showing a command exactly as the
// shell reads it (frontend/src/model/reveal.ts), in Go for everything that
// draws without the window's code: the terminal UI (backend/tui), the remote
// approval page (backend/gate/remote) and the CLI's text output
// (backend/termtext, which takes InvisibleName from here). It is the one Go
// copy, held to the window's case file (testdata/reveal-cases.json at the
// repository root): characters that render as nothing, reorder their
// neighbours (U+202E), pass for a space, or push the dangerous part out of
// view (4,000 spaces, 60 blank lines) become visible badges, and a long
// command keeps its tail and its risky lines in sight.
package reveal

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// InvisibleName says what a badge stands for, or "" for an ordinary
// character. It is the one table of invisible characters: the window's
// reveal.ts mirrors it (the case file checks both), termtext.Visible uses it.
func InvisibleName(r rune) string {
	switch {
	case r == 0x09:
		return "" // a tab is white space (long runs are folded below)
	case r < 0x20 || r == 0x7f, r >= 0x80 && r <= 0x9f:
		return "control character"
	case r >= 0x202a && r <= 0x202e:
		return "bidi control (reorders the text around it)"
	case r >= 0x2066 && r <= 0x2069:
		return "bidi isolate (reorders the text around it)"
	case r == 0x200e || r == 0x200f || r == 0x061c:
		return "direction mark"
	case r == 0x00a0 || r == 0x202f || r == 0x2007:
		return "non-breaking space"
	case r >= 0x2000 && r <= 0x200a, r == 0x205f || r == 0x3000 || r == 0x1680:
		return "unusual space"
	case r >= 0x200b && r <= 0x200d:
		return "zero-width character"
	case r == 0x2060 || r == 0xfeff || r == 0x180e || r == 0x00ad || r == 0x034f:
		return "invisible character"
	case r >= 0x2061 && r <= 0x2064:
		return "invisible operator"
	case r == 0x2028 || r == 0x2029:
		return "line or paragraph separator"
	case r >= 0xfe00 && r <= 0xfe0f:
		return "variation selector"
	case r >= 0xe0000 && r <= 0xe007f:
		return "tag character (invisible)"
	case r >= 0xfff9 && r <= 0xfffb:
		return "interlinear annotation"
	}
	return ""
}

// CodePointLabel is "U+202E".
func CodePointLabel(r rune) string { return fmt.Sprintf("U+%04X", r) }

// Piece is part of one line: visible text, or a badge for a run of one
// invisible character (or of more spaces than a human can count).
type Piece struct {
	Text  string
	Badge string // "⟨U+202E⟩", "⟨U+200B ×3⟩", "⟨4000 spaces⟩"
	Title string // what it is, in words
}

// maxSpaceRun: longer runs of spaces or tabs become a badge.
const maxSpaceRun = 8

// RevealLine splits one line into text and badges.
func RevealLine(line string) []Piece {
	var out []Piece
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, Piece{Text: text.String()})
			text.Reset()
		}
	}
	rs := []rune(line)
	for i := 0; i < len(rs); {
		ch := rs[i]
		j := i + 1
		for j < len(rs) && rs[j] == ch {
			j++
		}
		run := j - i
		if name := InvisibleName(ch); name != "" {
			flush()
			p := Piece{Badge: "⟨" + CodePointLabel(ch) + "⟩", Title: name}
			if run > 1 {
				p = Piece{Badge: fmt.Sprintf("⟨%s ×%d⟩", CodePointLabel(ch), run), Title: fmt.Sprintf("%d × %s", run, name)}
			}
			out = append(out, p)
		} else if (ch == ' ' || ch == '\t') && run > maxSpaceRun {
			flush()
			what := "spaces"
			if ch == '\t' {
				what = "tabs"
			}
			out = append(out, Piece{Badge: fmt.Sprintf("⟨%d %s⟩", run, what), Title: fmt.Sprintf("%d %s in a row", run, what)})
		} else {
			text.WriteString(strings.Repeat(string(ch), run))
		}
		i = j
	}
	flush()
	return out
}

// RevealText is s with every invisible character as its badge (line breaks
// kept): the plain form for a terminal, which has no hover title.
func RevealText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = PiecesText(RevealLine(l))
	}
	return strings.Join(lines, "\n")
}

// PiecesText is a line's pieces as plain text: text as it is, a badge as
// its label.
func PiecesText(ps []Piece) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Badge != "" {
			b.WriteString(p.Badge)
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Invisible is one kind of invisible character of a command, counted.
type Invisible struct {
	Label, Name string
	Count       int
}

// InvisibleChars lists every invisible or control character of s (line
// feeds aside), in order of first appearance.
func InvisibleChars(s string) []Invisible {
	var out []Invisible
	idx := map[rune]int{}
	for _, r := range s {
		if r == '\n' {
			continue
		}
		name := InvisibleName(r)
		if name == "" {
			continue
		}
		if i, ok := idx[r]; ok {
			out[i].Count++
			continue
		}
		idx[r] = len(out)
		out = append(out, Invisible{Label: CodePointLabel(r), Name: name, Count: 1})
	}
	return out
}

// ShownLine is one line of a command as shown: its number, its pieces,
// whether it holds a risky program; Blank > 0 stands for a folded run of
// blank lines; Gap > 0 for folded-away lines of a long command.
type ShownLine struct {
	N      int
	Pieces []Piece
	Risky  bool
	Blank  int
	Gap    int
}

// ShownCommand is a command ready to draw.
type ShownCommand struct {
	Lines     []ShownLine
	Total     int
	Invisible []Invisible
}

const maxBlankRun = 2

// ShowCommand splits cmd into lines, folds runs of blank lines into a
// badge, reveals invisible characters and marks the lines that hold one of
// the risky programs.
func ShowCommand(cmd string, risky []string) ShownCommand {
	cmd = strings.ReplaceAll(cmd, "\r\n", "\n")
	cmd = strings.ReplaceAll(cmd, "\r", "\n")
	raw := strings.Split(cmd, "\n")
	var lines []ShownLine
	for i := 0; i < len(raw); {
		if strings.TrimSpace(raw[i]) == "" && len(raw) > 1 {
			j := i
			for j < len(raw) && strings.TrimSpace(raw[j]) == "" && !hasInvisible(raw[j]) {
				j++
			}
			if run := j - i; run > maxBlankRun {
				lines = append(lines, ShownLine{N: i + 1, Blank: run,
					Pieces: []Piece{{Badge: fmt.Sprintf("⟨%d blank lines⟩", run), Title: fmt.Sprintf("%d blank lines", run)}}})
				i = j
				continue
			}
		}
		lines = append(lines, ShownLine{N: i + 1, Pieces: RevealLine(raw[i]), Risky: lineIsRisky(raw[i], risky)})
		i++
	}
	return ShownCommand{Lines: lines, Total: len(raw), Invisible: InvisibleChars(cmd)}
}

func hasInvisible(s string) bool {
	for _, r := range s {
		if InvisibleName(r) != "" {
			return true
		}
	}
	return false
}

// Compiled on first use: every `warden tool` process links this package;
// few of its calls need the expression.
var (
	segSplit   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("&&|\\|\\||[;|&(){}`]|\\$\\(") })
	assignWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })
	durWord    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+[smhd]?$`) })
	wrappers   = map[string]bool{"sudo": true, "env": true, "command": true, "exec": true, "nice": true, "nohup": true,
		"time": true, "timeout": true, "xargs": true, "builtin": true}
)

// lineIsRisky: one of the line's simple commands starts with a risky
// program (after sudo/env-style wrappers, by base name).
func lineIsRisky(line string, risky []string) bool {
	if len(risky) == 0 {
		return false
	}
	for _, seg := range segSplit().Split(line, -1) {
		for _, w := range strings.Fields(seg) {
			if assignWord().MatchString(w) {
				continue
			}
			base := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(w, `"`), `'`), `"`)
			base = strings.TrimSuffix(base, `'`)
			if k := strings.LastIndex(base, "/"); k >= 0 {
				base = base[k+1:]
			}
			for _, r := range risky {
				if r == base {
					return true
				}
			}
			if !wrappers[base] && !strings.HasPrefix(w, "-") && !durWord().MatchString(w) {
				break
			}
		}
	}
	return false
}

// Compiled on first use: every `warden tool` process links this package;
// few of its calls need the expression.
var riskyRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:destructive-effect|network-request|unknown-command|protected-path): ([^;:]+)`)
})
var progRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w.+-]+$`) })

// RiskyPrograms are the programs a decision's approval step names.
func RiskyPrograms(steps []StepView) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range steps {
		if s.Step != "approval" {
			continue
		}
		for _, m := range riskyRe().FindAllStringSubmatch(s.Saw, -1) {
			f := strings.Fields(m[1])
			if len(f) > 0 && progRe().MatchString(f[0]) && !seen[f[0]] {
				seen[f[0]] = true
				out = append(out, f[0])
			}
		}
	}
	return out
}

// StepView is one trace step (policy.Step's fields).
type StepView struct{ Step, Saw, Concluded string }

// foldAbove: commands longer than this are folded to their head, their
// tail and every risky line.
const foldAbove = 12

// FoldLines keeps a long command's head, tail and risky lines, with a Gap
// line for each folded stretch, so its end is never out of sight.
func FoldLines(all []ShownLine, head, tail int) []ShownLine {
	if len(all) <= foldAbove {
		return all
	}
	var out []ShownLine
	gap := 0
	for i, l := range all {
		if i < head || i >= len(all)-tail || l.Risky {
			if gap > 0 {
				out = append(out, ShownLine{Gap: gap})
			}
			gap = 0
			out = append(out, l)
			continue
		}
		if l.Blank > 0 {
			gap += l.Blank
		} else {
			gap++
		}
	}
	if gap > 0 {
		out = append(out, ShownLine{Gap: gap})
	}
	return out
}
