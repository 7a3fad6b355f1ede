package tui

// The engine's decision trace in the modal, and which of its steps
// decided the call.

import (
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/reveal"
)

// modalTraceLines are the engine's decision steps for the ask in words, as
// the window's "Why?" lists them: step — saw … → concluded. The step that
// decided the ask is marked ▶ and kept when the rest is folded.
func (m *Model) modalTraceLines(steps []policy.Step, w int) []keptRow {
	th := m.th
	out := []keptRow{{text: th.bold.Render("Decision trace (▶ decided):"), keep: true}}
	if len(steps) == 0 {
		return append(out, keptRow{text: th.dim.Render("  (the engine recorded no steps)"), keep: true})
	}
	decisive := DecisiveStep(steps, "ask")
	for i, s := range steps {
		mark, st := "  ", th.dim
		if i == decisive {
			mark, st = "▶ ", th.risky
		}
		first := fmt.Sprintf("%s%d. ", mark, i+1)
		for j, l := range wrapSpans([]span{{text: s.Step, style: th.bold}, {text: " — saw ", style: th.plain},
			{text: reveal.RevealText(s.Saw), style: th.code}, {text: " → ", style: th.plain}, {text: reveal.RevealText(s.Concluded), style: th.italic}},
			w, first, strings.Repeat(" ", textWidth(first)), st) {
			r := keptRow{text: l, keep: i == decisive}
			if j == 0 { // a fold names the steps it hides
				r.label = reveal.RevealText(s.Step)
			}
			out = append(out, r)
		}
	}
	return out
}

// passThrough are the conclusions of a step that let the chain go on
// without deciding anything.
var passThrough = map[string]bool{"no veto": true, "admissible": true, "not needed": true}

// DecisiveStep is the index of the step that decided a call whose verdict
// is verdict ("ask", "allow", "deny"): for an allow, a trust that applied
// (it silenced what would have asked); else the first step that concluded
// the verdict (a later step that only repeats it, as grants does for an ask
// no grant covers, decided nothing); else the last step that was not a
// pass-through; -1 for no steps.
func DecisiveStep(steps []policy.Step, verdict string) int {
	if verdict == string(policy.VerdictAllow) {
		for i, s := range steps {
			if strings.TrimSpace(s.Concluded) == "applied" {
				return i
			}
		}
	}
	last := -1
	for i, s := range steps {
		c := strings.ToLower(strings.TrimSpace(s.Concluded))
		word := strings.FieldsFunc(c, func(r rune) bool { return r == ' ' || r == ':' || r == '(' || r == ';' })
		if len(word) > 0 && word[0] == verdict {
			return i
		}
		if !passThrough[c] {
			last = i
		}
	}
	if last < 0 {
		return len(steps) - 1
	}
	return last
}
