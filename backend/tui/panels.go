package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/reveal"
	"github.com/warden-dev/warden/backend/store"
)

// traceLines lists every PermissionRequested / Granted / Denied of the
// session, newest last, filtered by kind (1-4) and by typed text.
func (m *Model) traceLines(w int) []string {
	th := m.th
	filter := "all"
	if m.traceFilter != "" {
		filter = m.traceFilter
	}
	out := []string{th.dim.Render(clipWidth(fmt.Sprintf("filter: %s · text: %q · 1 all 2 asked 3 allowed 4 denied · type to filter · Esc closes",
		filter, string(m.traceText)), w))}
	needle := strings.ToLower(string(m.traceText))
	var rows []string
	for _, e := range m.events {
		var word string
		switch e.Kind {
		case store.KindPermissionRequested:
			word = "asked"
		case store.KindPermissionGranted:
			word = "allowed"
		case store.KindPermissionDenied:
			word = "denied"
		default:
			continue
		}
		if m.traceFilter != "" && m.traceFilter != word {
			continue
		}
		var d struct {
			Tool        string          `json:"tool"`
			Signature   string          `json:"signature"`
			Source      string          `json:"source"`
			By          string          `json:"by"`
			Reason      policy.Reason   `json:"reason"`
			Reasons     []policy.Reason `json:"reasons"`
			Layer       policy.Layer    `json:"layer"`
			LayerDetail string          `json:"layer_detail"`
		}
		_ = json.Unmarshal(e.Data, &d)
		why := ""
		switch e.Kind {
		case store.KindPermissionRequested:
			var rs []string
			for _, r := range d.Reasons {
				rs = append(rs, ReasonText(r))
			}
			why = strings.Join(rs, "; ")
		case store.KindPermissionGranted:
			why = GrantSourceText(d.Source)
		case store.KindPermissionDenied:
			why = DeniedByText(d.By)
			if d.Reason != policy.ReasonUserDenied {
				why += ": " + ReasonText(d.Reason)
			}
		}
		if l := LayerText(d.Layer, d.LayerDetail); l != "" {
			why += " · decided by: " + l
		}
		at := time.UnixMilli(e.At).Format("15:04:05")
		line := fmt.Sprintf("%s %-8s %-10s %s — %s", at, kindWords[string(e.Kind)], d.Tool, reveal.RevealText(d.Signature), why)
		if needle != "" && !strings.Contains(strings.ToLower(line), needle) {
			continue
		}
		st := th.plain
		switch word {
		case "denied":
			st = th.bad
		case "allowed":
			st = th.ok
		case "asked":
			st = th.warn
		}
		// Each event wraps under its time, so nothing of it is cut.
		rows = append(rows, wrapSpans([]span{{text: line, style: st}}, w, "", "         ", st)...)
	}
	if len(rows) == 0 {
		rows = []string{th.dim.Render("(no permission events match)")}
	}
	return append(out, rows...)
}

func (m *Model) agentLines(w int) []string {
	th := m.th
	ags := m.agents()
	if len(ags) == 0 {
		return []string{th.dim.Render("No subagents or monitors in this session.")}
	}
	out := []string{th.dim.Render("↑↓ choose · x stops a running one · Esc closes")}
	run := 0
	for _, a := range ags {
		kind := "monitor "
		if a.subagent {
			kind = "subagent"
		}
		state := "finished"
		if a.running {
			state = "running "
		}
		line := clipWidth(fmt.Sprintf("%s %s %s %s", kind, state, shortID(a.id), reveal.RevealText(firstLine(a.what))), w-2)
		if a.running && run == m.sel {
			line = th.selected.Render("› " + line)
		} else {
			line = "  " + line
		}
		if a.running {
			run++
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) grantLines(w int) []string {
	th := m.th
	if len(m.grants) == 0 {
		return []string{th.dim.Render("No grants, rules or MCP trust for this session. Esc closes.")}
	}
	if m.sel >= len(m.grants) {
		m.sel = len(m.grants) - 1
	}
	out := []string{th.dim.Render("↑↓ choose · r revokes · Esc closes")}
	for i, g := range m.grants {
		exp := "no expiry"
		if g.ExpiresAt > 0 {
			exp = "until " + time.UnixMilli(g.ExpiresAt).Format("2006-01-02 15:04")
		}
		what := g.Signature
		if g.Kind == "mcp-server" {
			what = "MCP server " + g.Server
		}
		line := clipWidth(fmt.Sprintf("%-10s %-9s %s · %s · used %d", g.Kind, g.Scope, reveal.RevealText(what), exp, g.Uses), w-2)
		if i == m.sel {
			out = append(out, th.selected.Render("› "+line))
			out = append(out, wrapSpans([]span{{text: SignatureWords(g.Signature, scopeOf(g.Scope)), style: th.dim}}, w, "    ", "    ", th.plain)...)
		} else {
			out = append(out, "  "+line)
		}
	}
	return out
}

// sessionLines lists the workspace's sessions: title, age, state.
func (m *Model) sessionLines(w int) []string {
	th := m.th
	out := []string{th.dim.Render(clipWidth("↑↓ choose · Enter resumes · n new session · Esc or Ctrl+S closes", w))}
	if len(m.sessions) == 0 {
		return append(out, th.dim.Render("No sessions in this workspace."))
	}
	m.sel = min(m.sel, len(m.sessions)-1)
	for i, s := range m.sessions {
		state := "idle"
		switch {
		case s.Pending > 0:
			state = fmt.Sprintf("%d waiting for you", s.Pending)
		case s.Busy:
			state = "working"
		case s.Planning:
			state = "planning"
		}
		if s.ID == m.sess.ID {
			state += " · on screen"
		}
		title := reveal.RevealText(orDefault(s.Title, "(untitled)"))
		// The id tells apart titles made in the same minute.
		meta := shortID(s.ID) + " · " + ageText(m.now(), s.UpdatedAt) + " · " + state
		room := max(w-2-textWidth(meta)-2, 8)
		title = clipWidth(title, room)
		line := title + strings.Repeat(" ", room-textWidth(title)+2) + meta
		if i == m.sel {
			out = append(out, th.selected.Render(clipWidth("› "+line, w)))
		} else {
			out = append(out, clipWidth("  "+line, w))
		}
	}
	return out
}

// ageText says how long ago a unix-millisecond time was, in words.
func ageText(now time.Time, ms int64) string {
	if ms == 0 {
		return "never"
	}
	d := now.Sub(time.UnixMilli(ms))
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	default:
		return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
	}
}

func (m *Model) openGrants() {
	gs, err := m.svc.ListGrants(m.ctx, m.sess.ID)
	if err != nil {
		m.setNotice(true, "grants: %v", err)
		return
	}
	m.grants, m.panel, m.sel = gs, panelGrants, 0
}
