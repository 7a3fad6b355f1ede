//go:build e2e_tui

package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// screensFixture is a session whose model writes two files, then explains
// and asks for `rm -rf notes`, then answers with a Markdown page full of
// snake_case_names.
func screensFixture(t *testing.T) fixture {
	f := newFixture(t)
	page := "## Configure the provider\n\nSet `ANTHROPIC_API_KEY` (or OPENAI_API_KEY) first; a local server needs OPENAI_BASE_URL. " +
		"The keys are snake_case_names:\n\n- default_model picks the model\n- max_output_tokens and retry_after_ms are _optional_\n" +
		"- \\*not emphasis\\* and 2 * 3 * 4\n\n```toml\ndefault_model = \"anthropic:claude\"\n```\n\n**Every** key has a default."
	turns := []any{
		map[string]any{"text": "Writing two notes.", "tool_calls": []any{map[string]any{"id": "w1", "name": "shell.exec",
			"args": map[string]any{"command": "mkdir -p notes && echo one > notes/a.txt && echo two > notes/b.txt"}}}},
		map[string]any{"text": "The notes are stale: I'll delete them with `rm -rf notes`, which removes the folder and both files for good.",
			"tool_calls": []any{map[string]any{"id": "r1", "name": "shell.exec", "args": map[string]any{"command": "rm -rf notes"}}}},
		map[string]any{"text": page},
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "name": "tui-screens", "on_end": "Done.", "turns": turns})
	if err := os.WriteFile(f.script, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// The screens of the issue at 80×24 and 120×40, in a real terminal: the
// permission modal over the transcript (the model's explanation readable
// above it), its trace with the decisive step and Esc back to the ask, a
// Markdown page with snake_case_names, u undoing the rm (the files back on
// disk), and B's cycle with the question skipped to Read only. Each
// screen is written to artifacts/tui-screens/ for a human to look at.
func TestTerminalScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(strings.Join([]string{itoa(size[0]), itoa(size[1])}, "x"), func(t *testing.T) {
			f := screensFixture(t)
			save := screenSaver(t, f.root, size)
			tm := startTerm(t, size[0], size[1], f.env, f.argv()...)
			tm.waitFor("the status bar", "Approval: On request")
			tm.keys("go", "Enter")
			// The ask is pushed the moment it is recorded; the model's
			// text before it comes with its stored message a moment
			// later, so the screen is read once both are up.
			s := tm.waitFor("the modal", "Permission request", "rm -rf notes", "The notes are stale")
			if !strings.Contains(s, "Writing two notes.") && size[1] >= 40 {
				t.Errorf("the transcript is not readable above the modal:\n%s", s)
			}
			save("modal", s)
			time.Sleep(grace)
			tm.keys("t")
			save("trace", tm.waitFor("the trace", "Decision trace (▶ decided):", "▶ 3. approval — saw on-request"))
			tm.keys("Escape")
			s = tm.waitFor("the ask again", "n or Esc deny")
			if strings.Contains(s, "Decision trace") || strings.Contains(s, "Note to the model") {
				t.Errorf("Esc from the trace did not return to the ask:\n%s", s)
			}
			tm.keys("y")
			s = tm.waitFor("the page", "snake_case_names", "max_output_tokens and retry_after_ms", "*not emphasis* and 2 * 3 * 4")
			if !strings.Contains(s, "ANTHROPIC_API_KEY") && size[1] >= 40 {
				t.Errorf("the page lost ANTHROPIC_API_KEY:\n%s", s)
			}
			save("markdown", s)
			if _, err := os.Stat(filepath.Join(f.ws, "notes", "a.txt")); !os.IsNotExist(err) {
				t.Fatalf("rm -rf notes did not run: %v", err)
			}
			tm.keys("Escape")
			time.Sleep(300 * time.Millisecond)
			tm.keys("u")
			save("undo-confirm", tm.waitFor("the undo question", "Undo this change?", "rm -rf notes"))
			tm.keys("y")
			save("undone", tm.waitFor("the undo's feedback", "Undid shell.exec rm -rf notes", "u undoes this undo"))
			if b, err := os.ReadFile(filepath.Join(f.ws, "notes", "a.txt")); err != nil || string(b) != "one\n" {
				t.Fatalf("u did not bring notes/a.txt back: %q %v", b, err)
			}
			tm.keys("B")
			save("bcycle-confirm", tm.waitFor("the Full access question", "Switch to Full access?", "B skip to Read only"))
			tm.keys("B")
			save("bcycle-readonly", tm.waitFor("Read only", "Sandbox: Read only"))
			tm.keys("q")
			waitExit(t, tm)
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// screenSaver writes captures to artifacts/tui-screens/<w>x<h>/<name>.txt
// (for a human to look at) and logs them.
func screenSaver(t *testing.T, root string, size [2]int) func(name, s string) {
	out := filepath.Join(root, "artifacts", "tui-screens", itoa(size[0])+"x"+itoa(size[1]))
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(out, name+".txt"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", name, s)
	}
}
