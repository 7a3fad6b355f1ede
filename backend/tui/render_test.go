package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model/script"
)

func TestMarkdownCases(t *testing.T) {
	cases := []struct {
		name, src string
		width     int
		want      []string
	}{
		{"heading and paragraph wrap", "# Title\n\nOne two three four five six seven", 16, []string{"# Title", "", "One two three", "four five six", "seven"}},
		{"emphasis and code lose their markers", "a **bold** _em_ `x*y`", 40, []string{"a bold em x*y"}},
		{"list with hanging indent", "- alpha beta gamma\n- [x] done", 14, []string{"• alpha beta", "  gamma", "• ☑ done"}},
		{"ordered list", "1. one\n2. two", 20, []string{"1. one", "2. two"}},
		{"quote", "> said so", 20, []string{"│ said so"}},
		{"link keeps its URL", "[docs](https://x.dev)", 40, []string{"docs (https://x.dev)"}},
		{"image is a placeholder", "![a cat](cat.png)", 40, []string{"[image: a cat]"}},
		{"fenced code wraps with a marker", "```\n0123456789abcdef\n```", 12, []string{"│ 0123456789", "│ ↪ abcdef"}},
		{"bidi control is a badge", "abc\u202edef", 40, []string{"abc⟨U+202E⟩def"}},
		{"unclosed markers are text", "2 * 3 and `x", 40, []string{"2 * 3 and `x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, l := range renderMarkdown(c.src, c.width, newTheme()) {
				got = append(got, strings.TrimRight(ansi.Strip(l), " "))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// The status bar never cuts either axis, at any width down to 20.
func TestStatusNeverCutsAxes(t *testing.T) {
	m := &Model{th: newTheme(), sess: runtime.Session{Approval: policy.Always, Sandbox: runtime.Sandbox{Kind: policy.WorkspaceWrite, NetworkAccess: true}}}
	for w := 20; w <= 250; w += 7 {
		plain := ansi.Strip(strings.Join(m.statusLines(w), " "))
		plain = strings.Join(strings.Fields(plain), " ")
		for _, want := range []string{"Approval: Always ask", "Sandbox: Workspace write (network on)"} {
			if !strings.Contains(plain, want) {
				t.Errorf("width %d: %q lacks %q", w, plain, want)
			}
		}
		for _, l := range m.statusLines(w) {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: status line %d wide", w, ansi.StringWidth(l))
			}
		}
	}
}

// The terminal's own sentences say what the window says: each appears
// verbatim in the window's words.ts/signature.ts. (The words of reasons,
// tools, axis values and layers are not the terminal's: both read them
// from backend/policy/words.go.)
func TestWordsMatchTheWindow(t *testing.T) {
	var src strings.Builder
	for _, f := range []string{"words.ts", "signature.ts"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "frontend", "src", "model", f))
		if err != nil {
			t.Fatalf("the window's words: %v", err)
		}
		src.Write(b)
	}
	ts := src.String()
	for _, w := range []string{FullAccessWarning, neverFullAccessWarning, "exactly this command, character for character, ",
		"in this workspace, from now on"} {
		if !strings.Contains(ts, strings.ReplaceAll(w, `"`, `\"`)) && !strings.Contains(ts, w) {
			t.Errorf("the window does not say %q", w)
		}
	}
}

// Every reason, axis value and layer the engine has is in words on the
// terminal: the table's words, never the raw value (two network reasons
// were missing when the terminal kept its own copy).
func TestWordsFromTheTable(t *testing.T) {
	for r, want := range policy.ReasonWords() {
		if got := ReasonText(r); got != want || got == string(r) {
			t.Errorf("reason %s: %q, want %q", r, got, want)
		}
	}
	for a, w := range policy.ApprovalWords() {
		if ApprovalLabel(a) != w.Label {
			t.Errorf("approval %s: %q", a, ApprovalLabel(a))
		}
	}
	for k, w := range policy.SandboxWords() {
		if SandboxLabel(k) != w.Label {
			t.Errorf("sandbox %s: %q", k, SandboxLabel(k))
		}
	}
	for l, w := range policy.LayerWords() {
		if got := LayerText(l, "tui"); got != w.Label+" (tui)" {
			t.Errorf("layer %s: %q", l, got)
		}
	}
	for tool, w := range policy.ToolWords() {
		if got := SignatureWords(tool, policy.ScopeSession); got != w+" in this session" {
			t.Errorf("tool %s: %q", tool, got)
		}
	}
}

type markdownCase struct {
	Name   string   `json:"name"`
	Src    string   `json:"src"`
	Width  int      `json:"width"`
	Want   []string `json:"want"`
	Italic []string `json:"italic"`
	Bold   []string `json:"bold"`
	Code   []string `json:"code"`
	Link   []string `json:"link"`
}

// Markdown as CommonMark reads it, from testdata/markdown-cases.json: every
// escape, entity, code span, and emphasis only where a delimiter run may
// open or close it (an underscore inside a word is a letter).
func TestMarkdownCaseFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "markdown-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []markdownCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	th := newTheme()
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			w := c.Width
			if w == 0 {
				w = 60
			}
			var got []string
			for _, l := range renderMarkdown(c.Src, w, th) {
				got = append(got, strings.TrimRight(ansi.Strip(l), " "))
			}
			if strings.Join(got, "\n") != strings.Join(c.Want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.Want, "\n"))
			}
			spans := inline(strings.ReplaceAll(c.Src, "\n", " "), th, th.plain) // a paragraph's lines join
			has := func(text string, ok func(lipgloss.Style) bool) bool {
				for _, sp := range spans {
					if sp.text == text && ok(sp.style) {
						return true
					}
				}
				return false
			}
			for _, want := range []struct {
				what  string
				texts []string
				ok    func(lipgloss.Style) bool
			}{
				{"italic", c.Italic, lipgloss.Style.GetItalic},
				{"bold", c.Bold, lipgloss.Style.GetBold},
				{"code", c.Code, func(s lipgloss.Style) bool { return s.GetForeground() == th.code.GetForeground() }},
				{"link", c.Link, lipgloss.Style.GetUnderline},
			} {
				for _, text := range want.texts {
					if !has(text, want.ok) {
						t.Errorf("no %s span %q in %+v", want.what, text, spanTexts(spans))
					}
				}
			}
		})
	}
}

func spanTexts(spans []span) []string {
	var out []string
	for _, sp := range spans {
		out = append(out, sp.text)
	}
	return out
}

// The demo's own words (backend/runtime/model/script/demo.json: every
// reply and the closing note) as the terminal draws them, at 80 and 120
// columns. ANTHROPIC_API_KEY and OPENAI_BASE_URL are what a new user must
// copy: the golden shows them whole. -update rewrites it.
func TestGoldenDemoMarkdown(t *testing.T) {
	var demo struct {
		Turns []struct {
			Text string `json:"text"`
		} `json:"turns"`
		OnEnd string `json:"on_end"`
	}
	if err := json.Unmarshal(script.DemoJSON(), &demo); err != nil {
		t.Fatal(err)
	}
	texts := []string{}
	for _, tr := range demo.Turns {
		texts = append(texts, tr.Text)
	}
	texts = append(texts, demo.OnEnd)
	for _, w := range []int{80, 120} {
		var b strings.Builder
		for i, text := range texts {
			fmt.Fprintf(&b, "── reply %d ──\n", i+1)
			for _, l := range renderMarkdown(text, w, newTheme()) {
				b.WriteString(strings.TrimRight(ansi.Strip(l), " ") + "\n")
			}
		}
		got := b.String()
		for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "rm -rf build", "warden-demo.txt"} {
			if !strings.Contains(got, want) {
				t.Errorf("width %d: the demo's text lacks %q:\n%s", w, want, got)
			}
		}
		compareGolden(t, filepath.Join("testdata", "golden", fmt.Sprintf("markdown-demo-%d.txt", w)), got)
	}
}

// A Markdown page with snake_case_names, as a model's reply on the whole
// screen at 80×24 and 120×40 (testdata/markdown-page.md): underscores,
// escapes, code and emphasis as CommonMark reads them.
func TestGoldenMarkdownPage(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("testdata", "markdown-page.md"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "name": "markdown-page", "on_end": "Done.",
		"turns": []any{map[string]any{"text": string(page)}}})
	script := filepath.Join(t.TempDir(), "page.json")
	if err := os.WriteFile(script, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		ws := filepath.Join(os.TempDir(), "warden-tui-golden-md")
		os.RemoveAll(ws)
		t.Cleanup(func() { os.RemoveAll(ws) })
		r := newRigScript(t, ws, script)
		r.m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		r.typeText("how do I configure it?")
		r.key("enter")
		r.pump("the page", func(m *Model) bool { return !m.busy && strings.Contains(r.screen(), "config_v2") })
		s := r.screen()
		for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "snake_case_names", "default_model", "max_output_tokens and retry_after_ms",
			"*not emphasis*, 2 * 3 * 4, C:\\Users\\me and AT&T", `default_model = "anthropic:claude"`, "the config_v2 page (https://example.com/config_v2)"} {
			if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
				t.Errorf("%dx%d lacks %q:\n%s", size[0], size[1], want, s)
			}
		}
		checkGolden(t, filepath.Join("testdata", "golden", fmt.Sprintf("markdown-page-%dx%d.txt", size[0], size[1])), s, size[0], size[1])
	}
}
