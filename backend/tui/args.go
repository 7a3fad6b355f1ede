package tui

// An ask's arguments in the modal: a shell command revealed with its risky
// lines marked, a write as its diff, anything else as JSON.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/reveal"
)

// argLines draws an ask's arguments in at most room rows: a shell command
// revealed and highlighted, risky lines marked ▶; a write as its diff;
// else the JSON. Long content keeps its head and its tail.
func (m *Model) argLines(tool string, raw json.RawMessage, preview string, trace []policy.Step, w, room int) []string {
	th := m.th
	var a map[string]any
	_ = json.Unmarshal(raw, &a)
	var rows []string
	label := "Arguments:"
	if cmd, ok := a["command"].(string); ok && strings.HasPrefix(tool, "shell") {
		label = "Command:"
		var steps []reveal.StepView
		for _, s := range trace {
			steps = append(steps, reveal.StepView{Step: s.Step, Saw: s.Saw, Concluded: s.Concluded})
		}
		risky := reveal.RiskyPrograms(steps)
		shown := reveal.ShowCommand(cmd, risky)
		// The window's fold (head, tail and every risky line of a long
		// command), then, when the room is shorter still, a fold that
		// keeps the risky lines, the last line and the hidden characters.
		var kept []keptRow
		folded := reveal.FoldLines(shown.Lines, 3, 5)
		for k, l := range folded {
			if l.Gap > 0 {
				kept = append(kept, keptRow{text: th.dim.Render(clipWidth(fmt.Sprintf("  ⟨… %d lines …⟩", l.Gap), w)), lines: l.Gap})
				continue
			}
			mark, st := "  ", th.code
			if l.Risky {
				mark, st = "▶ ", th.risky
			}
			// Of a risky line, its first row and each row that names a risky
			// program stay, with the row after it (the program's arguments);
			// of the last line, its last two rows.
			wrapped := hardWrap(piecesShown(l.Pieces), w-2)
			for i, row := range wrapped {
				keep := k == len(folded)-1 && i >= len(wrapped)-2 ||
					l.Risky && (i == 0 || namesAny(row, risky) || namesAny(wrapped[i-1], risky))
				r := keptRow{text: th.risky.Render(mark) + st.Render(row), keep: keep}
				if i == 0 {
					mark, r.lines = "  ", max(l.Blank, 1)
				}
				kept = append(kept, r)
			}
		}
		if len(shown.Invisible) > 0 {
			var names []string
			for _, iv := range shown.Invisible {
				names = append(names, fmt.Sprintf("%s %s ×%d", iv.Label, iv.Name, iv.Count))
			}
			for _, l := range wrapSpans([]span{{text: "Hidden characters: " + strings.Join(names, "; "), style: th.bad}}, w, "", "", th.plain) {
				kept = append(kept, keptRow{text: l, keep: true})
			}
		}
		return append([]string{th.bold.Render(label)}, foldKeeping(kept, max(room-1, minKept(kept)), w, th)...)
	} else if preview != "" && (tool == "fs.write" || tool == "patch.apply" || looksLikeDiff(preview)) {
		label = "Change:"
		rows = m.diffLines(preview, w, "")
	} else {
		b := plainJSON(a, "  ")
		if a == nil {
			b = raw
		} else if strings.Count(string(b), "\n") >= room-1 {
			// Too tall indented: one line, wrapped, keeps more of it.
			b = plainJSON(a, "")
		}
		for _, l := range strings.Split(string(b), "\n") {
			for _, row := range hardWrap(reveal.RevealText(l), w) {
				rows = append(rows, th.code.Render(row))
			}
		}
	}
	if room-1 < 3 {
		rows = keepTail(rows, max(room-1, 1), w, th)
	} else {
		rows = foldRows(rows, room-1)
	}
	return append([]string{th.bold.Render(label)}, rows...)
}

// plainJSON is v as JSON the way it was written: & < > as themselves, not
// as \u0026 (json.Marshal escapes them for HTML), indented by indent.
func plainJSON(v any, indent string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// namesAny says whether row holds one of the programs as a word.
func namesAny(row string, programs []string) bool {
	for _, p := range programs {
		for i := strings.Index(row, p); i >= 0; {
			end := i + len(p)
			if (i == 0 || !isWordByte(row[i-1])) && (end == len(row) || !isWordByte(row[end])) {
				return true
			}
			next := strings.Index(row[i+1:], p)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// piecesShown is a line's pieces as the terminal draws them: badges as
// their label, tabs expanded.
func piecesShown(ps []reveal.Piece) string { return expandTabs(reveal.PiecesText(ps)) }
