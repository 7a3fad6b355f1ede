package tui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/warden-dev/warden/backend/reveal"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// agent is a subagent or monitor of the session, from its events.
type agent struct {
	id, what string
	subagent bool
	running  bool
}

func (a agent) kind() string {
	if a.subagent {
		return "subagent"
	}
	return "monitor"
}

func (m *Model) agents() []agent {
	var out []agent
	idx := map[string]int{}
	for _, e := range m.events {
		switch e.Kind {
		case store.KindSubagentStarted:
			var d store.SubagentStarted
			if json.Unmarshal(e.Data, &d) == nil {
				idx[d.SubagentID] = len(out)
				out = append(out, agent{id: d.SubagentID, what: d.Task, subagent: true, running: true})
			}
		case store.KindMonitorStarted:
			var d store.MonitorStarted
			if json.Unmarshal(e.Data, &d) == nil {
				idx[d.MonitorID] = len(out)
				out = append(out, agent{id: d.MonitorID, what: d.Command, running: true})
			}
		case store.KindSubagentFinished, store.KindMonitorStopped:
			var d struct {
				S string `json:"subagent_id"`
				M string `json:"monitor_id"`
			}
			if json.Unmarshal(e.Data, &d) == nil {
				if i, ok := idx[d.S+d.M]; ok {
					out[i].running = false
				}
			}
		}
	}
	return out
}

func (m *Model) runningAgents() []agent {
	var out []agent
	for _, a := range m.agents() {
		if a.running {
			out = append(out, a)
		}
	}
	return out
}

// transcriptKey is what the drawn transcript depends on (events are only
// ever appended while a session is on screen).
type transcriptKey struct {
	session  string
	width, n int
	expanded bool
	delta    string
}

// transcriptLines draws the session's events at width w. The call the
// permission modal asks about is left out: the modal shows it, and the
// rows above the modal are for what the model said before it.
func (m *Model) transcriptLines(w int) []string {
	all := m.drawTranscript(w)
	if len(m.queue) == 0 || m.panel != panelNone {
		return all
	}
	span, ok := m.cache.asked[m.queue[0].CallID]
	if !ok {
		return all
	}
	out := append(all[:span[0]:span[0]], all[span[1]:]...)
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// drawTranscript draws every event at width w, once per change (the
// cache), noting where each asked call's lines are.
func (m *Model) drawTranscript(w int) []string {
	key := transcriptKey{session: m.sess.ID, width: w, n: len(m.events), expanded: m.expanded, delta: m.delta}
	if c := &m.cache; c.key == key && c.lines != nil {
		return c.lines
	}
	asked := map[string][2]int{}
	th := m.th
	var out []string
	if m.more {
		out = append(out, th.dim.Render(clipWidth(fmt.Sprintf("(showing the newest %d events of this session)", tailEvents), w)), "")
	}
	calls := map[string]*call{}
	var order []any // *call or []string
	blank := func() { order = append(order, []string{""}) }
	// A call's arguments are known before any of its events: the model's
	// message names them, a "!cmd" line is its command. A call refused
	// before it was asked or started has no other record of them.
	argsOf := map[string]json.RawMessage{}
	var bang string
	getCall := func(id, tool string) *call {
		if cl, ok := calls[id]; ok {
			if cl.tool == "" {
				cl.tool = tool
			}
			return cl
		}
		cl := &call{id: id, tool: tool, status: "running", args: argsOf[id]}
		if cl.args == nil && strings.HasPrefix(id, "bang-") && bang != "" {
			cl.args, _ = json.Marshal(map[string]string{"command": bang})
		}
		calls[id] = cl
		order = append(order, cl)
		return cl
	}
	sets := m.changeSets()
	target, hasTarget := undoTarget(sets)
	undone := undoneSets(sets)
	for _, e := range m.events {
		switch e.Kind {
		case store.KindMessageAppended:
			var d store.MessageAppended
			if json.Unmarshal(e.Data, &d) != nil {
				continue
			}
			var lines []string
			for _, tc := range d.ToolCalls {
				argsOf[tc.ID] = tc.Args
			}
			switch d.Role {
			case "user":
				if c, ok := strings.CutPrefix(strings.TrimSpace(d.Text), "!"); ok {
					bang = strings.TrimSpace(c)
				}
				lines = wrapSpans([]span{{text: reveal.RevealText(d.Text), style: th.plain}}, w, "› ", "  ", th.user)
			case "assistant":
				if strings.TrimSpace(d.Text) != "" {
					lines = append([]string{th.assistant.Render("● " + shortModel(orDefault(d.Model, "assistant")))}, renderMarkdown(d.Text, w, th)...)
				}
			case "system":
				lines = wrapSpans([]span{{text: reveal.RevealText(d.Text), style: th.system}}, w, "warden: ", "        ", th.system)
			case "tool":
				if cl, ok := calls[d.ToolCallID]; ok && cl.output.Len() == 0 && cl.err == "" {
					cl.output.WriteString(d.Text)
				}
			}
			for _, img := range d.Images {
				lines = append(lines, th.dim.Render(clipWidth(imageLine(img), w)))
			}
			if len(lines) > 0 {
				order = append(order, lines)
				blank()
			}
		case store.KindPermissionRequested:
			var d store.PermissionRequested
			if json.Unmarshal(e.Data, &d) == nil {
				cl := getCall(d.CallID, d.Tool)
				cl.args, cl.status = d.Args, "asked"
			}
		case store.KindPermissionGranted:
			var d store.PermissionGranted
			if json.Unmarshal(e.Data, &d) == nil {
				getCall(d.CallID, d.Tool).verdict = GrantSourceText(d.Source)
			}
		case store.KindPermissionDenied:
			var d store.PermissionDenied
			if json.Unmarshal(e.Data, &d) == nil {
				cl := getCall(d.CallID, d.Tool)
				cl.status, cl.denial = "denied", &d
				if cmd, ok := strings.CutPrefix(d.Signature, "shell="); ok && len(cl.args) == 0 {
					cl.args, _ = json.Marshal(map[string]string{"command": cmd})
				}
			}
		case store.KindWorkspaceChanged:
			var d store.WorkspaceChanged
			if json.Unmarshal(e.Data, &d) != nil || len(d.Files)+d.Omitted == 0 {
				continue
			}
			undo := ""
			switch {
			case d.CallID == target.CallID && hasTarget:
				undo = "u undoes it"
				if d.Cause == store.CauseUndo {
					undo = "u undoes this undo"
				}
			case undone[d.CallID]:
				undo = "undone"
			}
			if cl, ok := calls[d.CallID]; ok && d.Cause == store.CauseCall {
				cl.changes, cl.undo = &d, undo
				continue
			}
			what := map[string]string{store.CauseUndo: "Undo of ", store.CauseRestore: "Restore: ", store.CauseOutside: "Changed between calls: "}[d.Cause]
			if d.Cause == store.CauseUndo {
				of := "an earlier change"
				for _, s := range sets {
					if s.CallID == d.UndoOf {
						of = m.changeWhat(s)
					}
				}
				what += of + ": "
			}
			order = append(order, []string{changeLine(th, "· "+what+filesText(d, 3), undo, w)})
		case store.KindToolInvocationStarted:
			var d store.ToolInvocationStarted
			if json.Unmarshal(e.Data, &d) == nil {
				cl := getCall(d.CallID, d.Tool)
				cl.args, cl.status = d.Args, "running"
			}
		case store.KindToolOutput:
			var d store.ToolOutput
			if json.Unmarshal(e.Data, &d) == nil {
				getCall(d.CallID, "").output.WriteString(d.Chunk)
			}
		case store.KindToolInvocationCompleted:
			var d store.ToolInvocationCompleted
			if json.Unmarshal(e.Data, &d) == nil {
				cl := getCall(d.CallID, d.Tool)
				cl.status, cl.exit, cl.ms = "done", d.ExitCode, d.DurationMs
				if d.Output != "" {
					cl.output.Reset()
					cl.output.WriteString(d.Output)
				}
			}
		case store.KindToolInvocationFailed:
			var d store.ToolInvocationFailed
			if json.Unmarshal(e.Data, &d) == nil {
				cl := getCall(d.CallID, d.Tool)
				cl.status, cl.err, cl.ms = "failed", d.Error, d.DurationMs
			}
		case store.KindApprovalPolicyChanged, store.KindSandboxPolicyChanged, store.KindPlanningEntered, store.KindPlanningExited:
			order = append(order, []string{th.dim.Render(clipWidth("· "+axisEventText(e), w))})
		case store.KindSubagentStarted:
			var d store.SubagentStarted
			if json.Unmarshal(e.Data, &d) == nil {
				order = append(order, []string{th.dim.Render(clipWidth("· subagent started: "+reveal.RevealText(d.Task), w))})
			}
		case store.KindPlanPresented:
			var d struct {
				Plan string `json:"plan"`
			}
			if json.Unmarshal(e.Data, &d) == nil {
				order = append(order, append([]string{th.heading.Render("Plan")}, renderMarkdown(d.Plan, w, th)...))
				blank()
			}
		}
	}
	for _, o := range order {
		switch o := o.(type) {
		case []string:
			out = append(out, o...)
		case *call:
			start := len(out)
			out = append(out, m.callLines(o, w)...)
			out = append(out, "")
			if o.status == "asked" {
				asked[o.id] = [2]int{start, len(out)}
			}
		}
	}
	if m.delta != "" {
		out = append(out, th.assistant.Render("● …"))
		out = append(out, renderMarkdown(m.delta, w, th)...)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	for id, sp := range asked { // the last call's blank line was trimmed
		asked[id] = [2]int{sp[0], min(sp[1], len(out))}
	}
	m.cache.key, m.cache.lines, m.cache.asked = key, out, asked
	return out
}

func imageLine(img store.Image) string {
	kind := strings.TrimPrefix(img.MimeType, "image/")
	if img.Omitted != "" {
		return fmt.Sprintf("[image %s left out: %s]", kind, img.Omitted)
	}
	size := fmt.Sprintf("%d B", len(img.Data))
	if len(img.Data) >= 1024 {
		size = fmt.Sprintf("%.0f KB", float64(len(img.Data))/1024)
	}
	if img.Width > 0 {
		return fmt.Sprintf("[image %d×%d %s, %s]", img.Width, img.Height, kind, size)
	}
	return fmt.Sprintf("[image %s, %s]", kind, size)
}

func axisEventText(e runtime.Event) string {
	var d struct {
		By string `json:"by"`
	}
	_ = json.Unmarshal(e.Data, &d)
	by := ""
	if d.By != "" {
		by = " (by " + d.By + ")"
	}
	switch e.Kind {
	case store.KindApprovalPolicyChanged:
		var c store.ApprovalPolicyChanged
		if json.Unmarshal(e.Data, &c) == nil {
			return "Approval changed: " + ApprovalLabel(c.From) + " → " + ApprovalLabel(c.To) + by
		}
	case store.KindSandboxPolicyChanged:
		var c store.SandboxPolicyChanged
		if json.Unmarshal(e.Data, &c) == nil {
			_, from := AxesText(0, runtime.Sandbox{Kind: c.From.Kind, NetworkAccess: c.From.NetworkAccess})
			_, to := AxesText(0, runtime.Sandbox{Kind: c.To.Kind, NetworkAccess: c.To.NetworkAccess})
			return "Sandbox changed: " + from[len("Sandbox: "):] + " → " + to[len("Sandbox: "):] + by
		}
	case store.KindPlanningEntered:
		return "Planning freeze on" + by
	case store.KindPlanningExited:
		return "Planning freeze off" + by
	}
	return string(e.Kind)
}

// clipMiddle shortens s to w columns keeping its head and its tail: the
// end of a command is where `; rm -rf ~` hides.
func clipMiddle(s string, w int) string {
	if textWidth(s) <= w {
		return s
	}
	if w < 5 {
		return clipWidth(s, w)
	}
	tailW := (w - 1) / 2
	head, _ := splitWidth(s, w-1-tailW)
	return head + "…" + tailOf(s, tailW)
}

// tailOf is the last w columns of s.
func tailOf(s string, w int) string {
	rs := []rune(s)
	used := 0
	i := len(rs)
	for i > 0 {
		cw := textWidth(string(rs[i-1]))
		if used+cw > w {
			break
		}
		used += cw
		i--
	}
	return string(rs[i:])
}

// shortModel names a model briefly: a script by its file name, not its
// whole path.
func shortModel(label string) string {
	if spec, ok := strings.CutPrefix(label, "script:"); ok {
		return "script " + filepath.Base(spec)
	}
	return label
}

func (m *Model) transcriptHeight() int { return max(m.height-4, 1) }

// bodyTranscript is the bottom of the transcript, scrolled up by m.scroll.
func (m *Model) bodyTranscript(w, h int) []string {
	if h <= 0 {
		return nil
	}
	all := m.transcriptLines(w)
	if m.scroll > len(all)-h {
		m.scroll = max(len(all)-h, 0)
	}
	end := len(all) - m.scroll
	start := max(end-h, 0)
	out := append([]string(nil), all[start:end]...)
	if m.scroll > 0 && len(out) > 0 {
		out[len(out)-1] = m.th.dim.Render(clipWidth(fmt.Sprintf("↓ %d more lines (PgDn, End)", m.scroll), w))
	}
	for len(out) < h {
		out = append([]string{""}, out...)
	}
	return out
}
