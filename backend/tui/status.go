package tui

// The status bar: both axes first, then what else fits.

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/warden-dev/warden/backend/policy"
)

// statusLines are the status bar: both axes in the window's words first,
// never cut (they wrap at a word before they would be), then planning,
// cage, model and the pending count as far as they fit.
func (m *Model) statusLines(w int) []string {
	ap, sb := AxesText(m.sess.Approval, m.sess.Sandbox)
	axes := ap + " · " + sb
	planning := "Planning: off"
	if m.sess.Planning {
		planning = "Planning: ON (actions paused)"
	}
	// Under Full access the cage still holds every command no human
	// answered (the claim is enforced): only a human's yes runs unconfined.
	cage := "Cage: on"
	switch {
	case !m.info.Caged:
		cage = "Cage: off (" + orDefault(m.info.CageReason, "unavailable") + ")"
	case m.sess.Sandbox.Kind == policy.DangerFullAccess:
		cage = "Cage: unasked commands (Full access)"
	}
	modelName := "Model: " + shortModel(orDefault(m.info.Model, "none"))
	if m.info.Demo {
		modelName = "Model: DEMO"
	}
	rest := []string{planning, cage, modelName}
	switch {
	case m.openErr != nil:
		rest = []string{"not open · any key exits"}
	case m.svc == nil:
		rest = []string{"opening… · Ctrl+C quits"}
	}
	// While an ask is open the turn waits for you, not for the model.
	if m.busy && len(m.queue) == 0 {
		rest = append(rest, "working… (Ctrl+C stops)")
	}
	if n := len(m.queue); n > 0 {
		rest = append(rest, fmt.Sprintf("%d waiting for you", n))
	}
	if m.svc != nil {
		hint := "? help"
		if m.focus == focusComposer {
			hint = "Esc: keys · ? help"
		}
		rest = append(rest, hint)
	}
	pad := func(s string) string {
		if d := w - lipgloss.Width(s); d > 0 {
			s += m.th.status.Render(strings.Repeat(" ", d))
		}
		return s
	}
	sep := m.th.status.Render(" · ")
	if textWidth(axes) <= w {
		line1 := m.th.statusAxis.Render(axes)
		used := textWidth(axes)
		var more []string
		for i, r := range rest {
			if len(more) == 0 && used+3+textWidth(r) <= w {
				line1 += sep + m.th.status.Render(r)
				used += 3 + textWidth(r)
				continue
			}
			more = rest[i:]
			break
		}
		if len(more) == 0 {
			return []string{pad(line1)}
		}
		return []string{pad(line1), pad(m.th.status.Render(clipWidth(strings.Join(more, " · "), w)))}
	}
	// Narrower than both axes: one axis a line, wrapped, never cut.
	var out []string
	for _, a := range []string{ap, sb} {
		for _, l := range wrapSpans([]span{{text: a, style: m.th.statusAxis}}, w, "", "", m.th.status) {
			out = append(out, pad(l))
		}
	}
	return append(out, pad(m.th.status.Render(clipWidth(strings.Join(rest, " · "), w))))
}
