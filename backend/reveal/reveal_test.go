package reveal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// revealText is a case file's TEXT: a string, or pieces that are strings
// or {"repeat": S, "times": N}.
type revealText string

func (t *revealText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = revealText(s)
		return nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("TEXT is neither a string nor pieces: %w", err)
	}
	var out strings.Builder
	for _, p := range parts {
		if json.Unmarshal(p, &s) == nil {
			out.WriteString(s)
			continue
		}
		var r struct {
			Repeat string `json:"repeat"`
			Times  int    `json:"times"`
		}
		if err := json.Unmarshal(p, &r); err != nil {
			return err
		}
		out.WriteString(strings.Repeat(r.Repeat, r.Times))
	}
	*t = revealText(out.String())
	return nil
}

type revealCases struct {
	RevealLine []struct {
		Name string     `json:"name"`
		In   revealText `json:"in"`
		Want string     `json:"want"`
	} `json:"reveal_line"`
	InvisibleChars []struct {
		Name string      `json:"name"`
		In   revealText  `json:"in"`
		Want []Invisible `json:"want"`
	} `json:"invisible_chars"`
	ShowCommand []struct {
		Name      string     `json:"name"`
		Command   revealText `json:"command"`
		Risky     []string   `json:"risky"`
		WantTotal int        `json:"want_total"`
		Want      []shownRow `json:"want"`
	} `json:"show_command"`
	Fold []struct {
		Name    string     `json:"name"`
		Command revealText `json:"command"`
		Risky   []string   `json:"risky"`
		Want    []string   `json:"want"`
	} `json:"fold"`
	RiskyPrograms []struct {
		Name  string `json:"name"`
		Trace []struct {
			Step      string `json:"step"`
			Saw       string `json:"saw"`
			Concluded string `json:"concluded"`
		} `json:"trace"`
		Want []string `json:"want"`
	} `json:"risky_programs"`
}

type shownRow struct {
	N     int    `json:"n"`
	Text  string `json:"text"`
	Risky bool   `json:"risky"`
	Blank int    `json:"blank,omitempty"`
}

func (i *Invisible) UnmarshalJSON(b []byte) error {
	var v struct {
		Label, Name string
		Count       int
	}
	err := json.Unmarshal(b, &v)
	*i = Invisible{Label: v.Label, Name: v.Name, Count: v.Count}
	return err
}

// The prompt's reveal rule on the case file the window's Vitest suite runs
// too (testdata/reveal-cases.json at the repository root): invisible
// characters, long runs, blank runs, risky lines and the fold of a long
// command agree between the two front ends case by case.
func TestRevealCaseFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "reveal-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c revealCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.RevealLine) < 4 || len(c.InvisibleChars) < 4 || len(c.ShowCommand) < 4 || len(c.Fold) < 4 || len(c.RiskyPrograms) < 4 {
		t.Fatalf("too few cases: %d %d %d %d %d", len(c.RevealLine), len(c.InvisibleChars), len(c.ShowCommand), len(c.Fold), len(c.RiskyPrograms))
	}
	for _, k := range c.RevealLine {
		t.Run("reveal_line/"+k.Name, func(t *testing.T) {
			if got := PiecesText(RevealLine(string(k.In))); got != k.Want {
				t.Errorf("got %q want %q", got, k.Want)
			}
		})
	}
	for _, k := range c.InvisibleChars {
		t.Run("invisible_chars/"+k.Name, func(t *testing.T) {
			got := InvisibleChars(string(k.In))
			if len(got) == 0 && len(k.Want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, k.Want) {
				t.Errorf("got %+v want %+v", got, k.Want)
			}
		})
	}
	for _, k := range c.ShowCommand {
		t.Run("show_command/"+k.Name, func(t *testing.T) {
			s := ShowCommand(string(k.Command), k.Risky)
			var got []shownRow
			for _, l := range s.Lines {
				got = append(got, shownRow{N: l.N, Text: PiecesText(l.Pieces), Risky: l.Risky, Blank: l.Blank})
			}
			if s.Total != k.WantTotal || !reflect.DeepEqual(got, k.Want) {
				t.Errorf("total %d (want %d)\ngot  %+v\nwant %+v", s.Total, k.WantTotal, got, k.Want)
			}
		})
	}
	for _, k := range c.Fold {
		t.Run("fold/"+k.Name, func(t *testing.T) {
			var got []string
			for _, l := range FoldLines(ShowCommand(string(k.Command), k.Risky).Lines, 3, 5) {
				if l.Gap > 0 {
					got = append(got, fmt.Sprintf("gap %d", l.Gap))
				} else {
					got = append(got, fmt.Sprint(l.N))
				}
			}
			if !reflect.DeepEqual(got, k.Want) {
				t.Errorf("got %v want %v", got, k.Want)
			}
		})
	}
	for _, k := range c.RiskyPrograms {
		t.Run("risky_programs/"+k.Name, func(t *testing.T) {
			var steps []StepView
			for _, s := range k.Trace {
				steps = append(steps, StepView{Step: s.Step, Saw: s.Saw, Concluded: s.Concluded})
			}
			got := RiskyPrograms(steps)
			if len(got) == 0 && len(k.Want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, k.Want) {
				t.Errorf("got %v want %v", got, k.Want)
			}
		})
	}
}

// RevealLine keeps every visible character, in order, and leaves no
// invisible one outside a badge; a long command's fold never hides its last
// line.
func FuzzReveal(f *testing.F) {
	for _, s := range []string{"rm -rf build", "echo \u202eevil", "a" + strings.Repeat(" ", 40) + "b", "\t\t\t\t\t\t\t\t\tx", "\u200b\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var text strings.Builder
		for _, p := range RevealLine(s) {
			if p.Badge != "" && p.Text != "" {
				t.Fatal("piece is both text and badge")
			}
			for _, r := range p.Text {
				if InvisibleName(r) != "" && r != utf8.RuneError {
					t.Fatalf("invisible %U left in text of %q", r, s)
				}
			}
			text.WriteString(p.Text)
		}
		var want strings.Builder
		rs := []rune(s)
		for i := 0; i < len(rs); {
			j := i + 1
			for j < len(rs) && rs[j] == rs[i] {
				j++
			}
			if InvisibleName(rs[i]) == "" && !((rs[i] == ' ' || rs[i] == '\t') && j-i > maxSpaceRun) {
				want.WriteString(string(rs[i:j]))
			}
			i = j
		}
		if text.String() != want.String() {
			t.Fatalf("visible text %q, want %q", text.String(), want.String())
		}
		sc := ShowCommand(s, []string{"rm"})
		if len(sc.Lines) == 0 {
			t.Fatal("no lines")
		}
		folded := FoldLines(sc.Lines, 3, 5)
		if last, lastAll := folded[len(folded)-1], sc.Lines[len(sc.Lines)-1]; last.N != lastAll.N {
			t.Fatalf("fold hid the last line: %+v vs %+v", last, lastAll)
		}
	})
}
