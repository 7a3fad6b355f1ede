package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// The line under a refused call names what was refused, who refused it
// and why, for every way a call is refused (testdata/denials.json).
func TestDenialLineNamesTheCall(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "denials.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Name   string `json:"name"`
			Events []struct {
				Kind store.Kind      `json:"kind"`
				Data json.RawMessage `json:"data"`
			} `json:"events"`
			Want []string `json:"want"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			m := &Model{th: newTheme(), sess: runtime.Session{ID: "s1"}}
			for i, e := range c.Events {
				m.events = append(m.events, runtime.Event{Seq: int64(i + 1), SessionID: "s1", Kind: e.Kind, Data: e.Data})
			}
			for _, w := range []int{60, 100, 250} {
				var rows []string
				for _, l := range m.transcriptLines(w) {
					rows = append(rows, strings.TrimSpace(ansi.Strip(l)))
				}
				joined := strings.Join(rows, " ")
				if !strings.Contains(joined, "✗ denied") {
					t.Errorf("width %d: no denied call:\n%s", w, strings.Join(rows, "\n"))
				}
				for _, want := range c.Want {
					if !strings.Contains(joined, want) {
						t.Errorf("width %d: lacks %q:\n%s", w, want, strings.Join(rows, "\n"))
					}
				}
				for _, r := range joined {
					if r == 0x202e || r == 0x1b || r == '`' {
						t.Errorf("width %d: raw %U in %q", w, r, joined)
					}
				}
			}
		})
	}
}
