package patch

import (
	"fmt"
	"strings"
)

// Apply applies a section's hunks to the old text, in order, each at its
// stated line or the nearest place after the previous hunk where its context
// and removed lines match exactly. A hunk that matches nowhere is an error
// and nothing is returned.
func Apply(old string, hunks []Hunk) (string, error) {
	lines := splitLines(old)
	var out []string
	pos := 0   // next unconsumed old line
	delta := 0 // how far hunks have landed from their stated lines
	for n, h := range hunks {
		var from, to []string
		for _, l := range h.Lines {
			if l.Kind != '+' {
				from = append(from, l.Text)
			}
			if l.Kind != '-' {
				to = append(to, l.Text)
			}
		}
		want := h.OldStart - 1
		if h.OldLines == 0 {
			want = h.OldStart // pure insertion after line OldStart
		}
		at := find(lines, from, pos, want+delta)
		if at < 0 {
			return "", fmt.Errorf("hunk %d (@@ -%d,%d +%d,%d @@) does not apply: its context and removed lines are not in the file", n+1, h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		}
		delta = at - want
		out = append(out, lines[pos:at]...)
		out = append(out, to...)
		pos = at + len(from)
	}
	out = append(out, lines[pos:]...)
	return strings.Join(out, ""), nil
}

// find returns the index nearest to want, not before lo, where seq occurs.
func find(lines, seq []string, lo, want int) int {
	last := len(lines) - len(seq)
	if last < lo {
		return -1
	}
	want = max(lo, min(want, last))
	for d := 0; want-d >= lo || want+d <= last; d++ {
		if i := want - d; i >= lo && matchAt(lines, seq, i) {
			return i
		}
		if i := want + d; d > 0 && i <= last && matchAt(lines, seq, i) {
			return i
		}
	}
	return -1
}

func matchAt(lines, seq []string, i int) bool {
	for j, s := range seq {
		if lines[i+j] != s {
			return false
		}
	}
	return true
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
