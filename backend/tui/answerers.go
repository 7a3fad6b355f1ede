package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/warden-dev/warden/backend/gate/lineup"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/reveal"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// /answerers: who answers an ask before the human (the session's command
// answerers and reviewer model), the hooks around every call, each one's
// state, and their last answers — the window's Settings "Answerers and
// hooks" in the terminal, in the same words (backend/policy/words.go). A
// workspace's entry is trusted here as there: the program's start is shown
// under the chosen entry, t asks first (naming what will run), and the
// hashes the human was shown go with the trust, so a file changed since
// is refused.

// answerersShown is how many of the newest answers the panel lists (the
// window's too).
const answerersShown = 10

// programLines is how much of a program the chosen entry shows.
const programLines = 12

// openAnswerers reads the session's answerers and opens the panel.
func (m *Model) openAnswerers() {
	m.panel, m.sel = panelAnswerers, 0
	m.loadAnswerers()
}

// loadAnswerers (re)reads the roster; an error is shown in the panel.
func (m *Model) loadAnswerers() {
	r, err := m.svc.Answerers(m.ctx, runtime.AnswerersArgs{SessionID: m.sess.ID, Last: answerersShown})
	m.answerers, m.answerersErr = &r, err
	if err != nil {
		m.answerers = nil
	}
}

// answererEvent says an event changes what the panel shows: a new answer,
// a trust given or taken back (in the window, or another terminal).
func answererEvent(k store.Kind) bool {
	return k == store.KindAnswererAnswered || k == store.KindAnswererTrusted || k == store.KindAnswererUntrusted
}

// answererEntries are the roster's entries in the order the panel lists
// them (answerers, then hooks): what ↑↓ choose among.
func (m *Model) answererEntries() []lineup.AnswererEntry {
	if m.answerers == nil {
		return nil
	}
	var answerers, hooks []lineup.AnswererEntry
	for _, e := range m.answerers.Entries {
		if e.Role == lineup.RoleHook {
			hooks = append(hooks, e)
		} else {
			answerers = append(answerers, e)
		}
	}
	return append(answerers, hooks...)
}

// answererLines draws the panel in rows lines of w columns: the keys, then
// the content from where the chosen entry is in sight (the last entry
// brings the last answers into sight too).
func (m *Model) answererLines(w, rows int) []string {
	entries := m.answererEntries()
	m.sel = max(min(m.sel, len(entries)-1), 0)
	out, starts := m.answererContent(w)
	keys := "Esc closes · updates as answers arrive"
	if len(entries) > 1 {
		keys = "↑↓ choose · " + keys
	}
	if len(entries) > 0 {
		switch e := entries[m.sel]; {
		case trustable(e):
			keys = "t trusts " + e.Name + " · " + keys
		case untrustable(e):
			keys = "x stops trusting " + e.Name + " · " + keys
		}
	}
	room := max(rows-1, 1)
	off := 0
	if len(starts) > 0 {
		start, end := starts[m.sel], len(out)
		if m.sel+1 < len(starts) {
			end = starts[m.sel+1]
		}
		if m.sel == len(starts)-1 {
			end = len(out)
		}
		off = min(max(end-room, 0), start)
	}
	return append([]string{m.th.dim.Render(clipWidth(keys, w))}, out[off:]...)
}

// trustable: a workspace's entry not trusted yet (or changed since), with
// both hashes (without them the backend refuses: nothing was read).
func trustable(e lineup.AnswererEntry) bool {
	return e.Tier == "workspace" && (e.State == lineup.StateUntrusted || e.State == lineup.StateChanged) && e.ConfigHash != "" && e.ProgramHash != ""
}

// untrustable: a trusted workspace entry, whose trust can be taken back.
func untrustable(e lineup.AnswererEntry) bool {
	return e.Tier == "workspace" && e.State == lineup.StateActive
}

// onAnswererKey: t asks to trust the chosen entry, x to stop trusting it.
func (m *Model) onAnswererKey(key string) bool {
	entries := m.answererEntries()
	if len(entries) == 0 || len(m.input) > 0 && m.focus == focusComposer {
		return false
	}
	e := entries[min(m.sel, len(entries)-1)]
	switch {
	case (key == "t" || key == "T") && trustable(e):
		m.confirm = &confirmation{title: "Trust this " + e.Role + "?", yes: "trust and run it", keep: "leave it untrusted",
			text: trustQuestion(e), apply: func() error { return m.setTrust(e, false) }}
		return true
	case (key == "x" || key == "X" || key == "delete") && untrustable(e):
		m.confirm = &confirmation{title: "Stop trusting this " + e.Role + "?", yes: "stop trusting it", keep: "keep trusting it",
			text: untrustQuestion(e), apply: func() error { return m.setTrust(e, true) }}
		return true
	}
	return false
}

// setTrust gives (or takes back) the human's trust, with the hashes the
// panel showed; a refusal is shown and the roster re-read as it is now.
func (m *Model) setTrust(e lineup.AnswererEntry, untrust bool) error {
	a := runtime.TrustAnswererArgs{SessionID: m.sess.ID, Role: e.Role, Name: e.Name, Untrust: untrust}
	if !untrust {
		a.ConfigHash, a.ProgramHash = e.ConfigHash, e.ProgramHash
	}
	r, err := m.svc.TrustAnswerer(m.ctx, a)
	if err != nil {
		m.loadAnswerers()
		if untrust {
			return fmt.Errorf("stop trusting %s: %w", e.Name, err)
		}
		return fmt.Errorf("trust %s: %w", e.Name, err)
	}
	m.answerers, m.answerersErr = &r, nil
	if untrust {
		m.setNotice(false, "Stopped trusting the %s %q: it does not run in this workspace.", policy.AnswererKindText(e.Role, e.Kind), e.Name)
	} else {
		m.setNotice(false, "Trusted the %s %q: it runs from now on, until its config or program changes.", policy.AnswererKindText(e.Role, e.Kind), e.Name)
	}
	return nil
}

// trustQuestion names exactly what will run, when, and under which limits
// (the window's words).
func trustQuestion(e lineup.AnswererEntry) string {
	what := "it"
	switch {
	case len(e.Command) > 0:
		what = "`" + commandLine(e.Command) + "`"
	case e.Model != "":
		what = "the reviewer model " + e.Model
	}
	tools := ""
	if len(e.Tools) > 0 {
		tools = " of " + strings.Join(e.Tools, ", ")
	}
	when, limit := "for every ask in this workspace, before you are asked", "It can only answer asks the sandbox already admits. "
	if e.Role == lineup.RoleHook {
		when, limit = "before every tool call"+tools, "It can only make a decision stricter. "
		if e.Kind == "after" {
			when, limit = "after every tool call"+tools+", with its result", "It cannot change any decision. "
		}
	}
	return fmt.Sprintf("Trust the %s %q from %s? Warden will run %s %s, in the read-only sandbox with no network. %s"+
		"If its config or program file changes, it stops and you are asked again.",
		policy.AnswererKindText(e.Role, e.Kind), e.Name, whereText(e), reveal.RevealText(what), when, limit)
}

func untrustQuestion(e lineup.AnswererEntry) string {
	return fmt.Sprintf("Stop trusting the %s %q? It stops running in this workspace until you trust it again.", policy.AnswererKindText(e.Role, e.Kind), e.Name)
}

// whereText is whose config an entry comes from, and its file.
func whereText(e lineup.AnswererEntry) string {
	where := policy.AnswererTierWords()[e.Tier]
	if e.File != "" {
		where += " (" + e.File + ")"
	}
	return where
}

// answererContent is the panel's text and the line each entry starts on
// (in answererEntries' order).
func (m *Model) answererContent(w int) (out []string, starts []int) {
	th := m.th
	para := func(text string, st lipgloss.Style) []string {
		return wrapSpans([]span{{text: text, style: st}}, w, "", "", th.plain)
	}
	out = para("Programs and reviewer models that answer an ask before you do, and hooks around every call. They only answer "+
		"what the sandbox already admits; denials, protected paths and other risky asks always come to you.", th.dim)
	if o := m.info.Org; o != nil && len(o.Answerers) > 0 {
		out = append(out, para(fmt.Sprintf("Your organisation allows these answerers: %s (set in %s)",
			strings.Join(o.Answerers, ", "), reveal.RevealText(o.File)), th.plain)...)
	}
	if m.answerersErr != nil {
		return append(out, para(reveal.RevealText(m.answerersErr.Error()), th.bad)...), nil
	}
	r := m.answerers
	if r == nil {
		return out, nil
	}
	if len(r.Entries) == 0 {
		out = append(out, "", th.bold.Render("None configured: every ask comes to you."))
		out = append(out, para("To add one, put an [[answerers]] entry (a program, or a reviewer model) or a [[hooks]] entry in your "+
			"config.toml, or a program in a workspace's .warden/config.toml (it runs once you trust it in the window's Settings). For example:", th.dim)...)
		for _, l := range []string{
			`[[answerers]]`,
			`kind = "command"                 # or "model", with model = "anthropic:…"`,
			`command = ["/opt/corp/check"]    # reads the ask as JSON, prints {"answer": "allow|deny|pass"}`,
			`timeout = "10s"`,
		} {
			out = append(out, th.code.Render(clipWidth("  "+l, w)))
		}
		return out, nil
	}
	entries := m.answererEntries()
	var answerers, hooks []lineup.AnswererEntry
	for _, e := range entries {
		if e.Role == lineup.RoleHook {
			hooks = append(hooks, e)
		} else {
			answerers = append(answerers, e)
		}
	}
	if len(answerers) > 0 {
		var order []string
		for _, e := range answerers {
			if e.State == lineup.StateActive {
				order = append(order, e.Name)
			}
		}
		order = append(order, orDefault(r.HumanLast, "you"))
		out = append(out, para("Asked in this order: "+reveal.RevealText(strings.Join(order, " → ")), th.plain)...)
	}
	for _, g := range []struct {
		title string
		list  []lineup.AnswererEntry
	}{{"Answerers", answerers}, {"Hooks", hooks}} {
		if len(g.list) == 0 {
			continue
		}
		out = append(out, "", th.heading.Render(g.title))
		for _, e := range g.list {
			starts = append(starts, len(out))
			out = append(out, m.answererEntryLines(e, len(starts)-1 == m.sel, w)...)
		}
	}
	if len(r.Last) > 0 {
		out = append(out, "", th.heading.Render("Last answers"))
		for _, a := range r.Last {
			st := th.plain
			switch a.Answer {
			case "deny":
				st = th.bad
			case "allow":
				st = th.ok
			}
			line := []span{{text: time.UnixMilli(a.Time).Format("15:04:05") + " ", style: th.dim}, {text: reveal.RevealText(recordText(a)), style: st},
				{text: " · " + latencyText(a.LatencyMs), style: th.dim}}
			if a.Reason != "" {
				line = append(line, span{text: ": " + reveal.RevealText(a.Reason), style: th.plain})
			}
			out = append(out, wrapSpans(line, w, "", "         ", th.plain)...)
		}
	}
	return out, starts
}

// answererEntryLines is one entry: name, kind and state, then what the
// window's card lists under it, each fact on its own labelled line.
func (m *Model) answererEntryLines(e lineup.AnswererEntry, chosen bool, w int) []string {
	th := m.th
	state := policy.AnswererStateWords()[string(e.State)]
	if state == "" {
		state = string(e.State)
	}
	st := th.plain
	switch e.State {
	case lineup.StateActive:
		st = th.ok
	case lineup.StateUntrusted, lineup.StateChanged:
		st = th.warn
	case lineup.StateNotAllowed, lineup.StateBroken:
		st = th.bad
	case lineup.StateLeftOut:
		st = th.dim
	}
	mark, name := "• ", th.bold
	if chosen {
		mark, name = "› ", th.selected
	}
	out := wrapSpans([]span{{text: reveal.RevealText(e.Name), style: name}, {text: " · " + policy.AnswererKindText(e.Role, e.Kind) + " · ", style: th.dim},
		{text: state, style: st}}, w, mark, "  ", th.plain)
	field := func(label, value string) {
		if value == "" {
			return
		}
		out = append(out, wrapSpans([]span{{text: label + ": ", style: th.dim}, {text: reveal.RevealText(value), style: th.plain}}, w, "    ", "      ", th.plain)...)
	}
	field("Configured in", whereText(e))
	if len(e.Command) > 0 {
		field("Runs", commandLine(e.Command))
	}
	if e.Model != "" {
		model := e.Model
		if e.Budget > 0 {
			model += fmt.Sprintf(" · reviews up to %d asks a session", e.Budget)
		}
		field("Model", model)
	}
	field("Tools", strings.Join(e.Tools, ", "))
	field("Timeout", e.Timeout)
	field("Why", e.Note)
	field("This session", e.Status)
	// The chosen entry's program, to read before trusting it.
	if chosen {
		for _, p := range e.Program {
			out = append(out, wrapSpans([]span{{text: "Program " + reveal.RevealText(p.Path) + ":", style: th.dim}}, w, "    ", "      ", th.plain)...)
			lines := strings.Split(strings.TrimRight(p.Text, "\n"), "\n")
			for i, l := range lines {
				if i == programLines {
					out = append(out, th.dim.Render(clipWidth(fmt.Sprintf("      ⟨… %d more lines: read the file before trusting it⟩", len(lines)-i), w)))
					break
				}
				for _, row := range hardWrap(reveal.RevealText(expandTabs(l)), w-6) {
					out = append(out, "      "+th.code.Render(row))
				}
			}
			if p.Truncated && len(lines) <= programLines {
				out = append(out, th.dim.Render(clipWidth("      (only its start is shown)", w)))
			}
		}
	}
	return out
}

// recordText is one answer as the window words it: "command `corp-check`
// allowed shell.exec".
func recordText(a lineup.AnswererRecord) string {
	who := a.Kind
	if a.Name != "" {
		who += " `" + a.Name + "`"
	}
	verb := policy.AnswerWords()[a.Answer]
	if verb == "" {
		verb = a.Answer
	}
	return who + " " + verb + " " + a.Tool
}

// latencyText is "12 ms" or "1.4 s", as the window shows it.
func latencyText(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// commandLine is an argument vector as one line a human can read and paste
// into a shell (the window's commandLine).
func commandLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-") == "" {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
