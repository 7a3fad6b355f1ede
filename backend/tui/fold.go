package tui

// Folding rows into the room there is: what must be read (kept rows, the
// end of a command) stays, and each fold says what it hides.

import (
	"fmt"
	"strings"
)

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

// keptRow is one drawn row and whether folding must keep it.
type keptRow struct {
	text  string
	keep  bool
	label string // what a fold line says for it ("" for a continuation row)
	lines int    // the source lines it stands for, when a fold counts those
}

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
