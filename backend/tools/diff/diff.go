// Package diff renders a unified diff between two texts, for the approval
// prompt of a file write. It uses Myers' O(ND) algorithm on lines.
package diff

import (
	"fmt"
	"strings"
)

type opKind byte

const (
	opEq  opKind = ' '
	opDel opKind = '-'
	opIns opKind = '+'
)

type op struct {
	kind opKind
	line string
}

// Unified returns the unified diff turning a into b with three lines of
// context, headed "--- oldName" / "+++ newName". Equal texts give "".
func Unified(oldName, newName, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	ops := myers(al, bl)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	const ctx = 3
	// Walk the script, cutting it into hunks of changes with context.
	i := 0
	ai, bi := 0, 0 // line indexes at ops[i]
	for i < len(ops) {
		if ops[i].kind == opEq {
			i, ai, bi = i+1, ai+1, bi+1
			continue
		}
		// Start a hunk ctx lines back.
		back := 0
		for back < ctx && i-back-1 >= 0 && ops[i-back-1].kind == opEq {
			back++
		}
		start, aStart, bStart := i-back, ai-back, bi-back
		end := i
		eqRun := 0
		for end < len(ops) {
			if ops[end].kind == opEq {
				eqRun++
				if eqRun > 2*ctx {
					break
				}
			} else {
				eqRun = 0
			}
			end++
		}
		// Trim trailing context to ctx lines.
		trail := 0
		for end-trail-1 >= start && ops[end-trail-1].kind == opEq {
			trail++
		}
		if trail > ctx {
			end -= trail - ctx
		}
		aN, bN := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != opIns {
				aN++
			}
			if o.kind != opDel {
				bN++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", rng(aStart, aN), rng(bStart, bN))
		for _, o := range ops[start:end] {
			sb.WriteByte(byte(o.kind))
			sb.WriteString(strings.TrimSuffix(o.line, "\n"))
			sb.WriteByte('\n')
			if !strings.HasSuffix(o.line, "\n") {
				sb.WriteString("\\ No newline at end of file\n")
			}
		}
		for _, o := range ops[i:end] {
			if o.kind != opIns {
				ai++
			}
			if o.kind != opDel {
				bi++
			}
		}
		i = end
	}
	return sb.String()
}

func rng(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines keeps each line's newline so a missing final newline shows.
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

// maxEdits bounds the search; past it the texts are shown as wholly
// replaced, which is correct if not minimal, and keeps memory at O(maxEdits²).
const maxEdits = 2000

// myers computes a shortest edit script from a to b.
func myers(a, b []string) []op {
	n, m := len(a), len(b)
	max := n + m
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max && d <= maxEdits; d++ {
		// Only diagonals -d..d can matter at this depth.
		trace = append(trace, append([]int(nil), v[max-d:max+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[max+k-1] < v[max+k+1]) {
				x = v[max+k+1]
			} else {
				x = v[max+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[max+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, d)
			}
		}
	}
	ops := make([]op, 0, n+m)
	for _, l := range a {
		ops = append(ops, op{opDel, l})
	}
	for _, l := range b {
		ops = append(ops, op{opIns, l})
	}
	return ops
}

func backtrack(trace [][]int, a, b []string, d int) []op {
	x, y := len(a), len(b)
	var ops []op
	for ; d >= 0; d-- {
		v := trace[d] // v[i] is diagonal i-d
		k := x - y
		var pk int
		if k == -d || (k != d && v[k-1+d] < v[k+1+d]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := 0
		if d > 0 {
			px = v[pk+d]
		}
		py := px - pk
		for x > px && y > py {
			ops = append(ops, op{opEq, a[x-1]})
			x, y = x-1, y-1
		}
		if d > 0 {
			if x == px {
				ops = append(ops, op{opIns, b[y-1]})
			} else {
				ops = append(ops, op{opDel, a[x-1]})
			}
		}
		x, y = px, py
	}
	for l, r := 0, len(ops)-1; l < r; l, r = l+1, r-1 {
		ops[l], ops[r] = ops[r], ops[l]
	}
	return ops
}
