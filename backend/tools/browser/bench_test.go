package browser

import (
	"testing"
)

// BenchmarkColdStart measures a session's first action on a fresh Manager:
// driver start, chromium launch, context, first navigate.
func BenchmarkColdStart(b *testing.B) {
	site := newSite(b)
	nav := `{"action": "navigate", "url": "` + site.URL + `/form.html"}`
	for b.Loop() {
		m := NewManager(Options{DriverDir: sharedDriverDir})
		mustOK(b, call(b, NewActionTool(m), offline, nav))
		b.ReportMetric(float64(m.ColdStart().Milliseconds()), "launch-ms")
		if err := m.Shutdown(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAction measures one browser.action on a warm session.
func BenchmarkAction(b *testing.B) {
	site := newSite(b)
	m := newManager(b)
	act := NewActionTool(m)
	nav := `{"action": "navigate", "url": "` + site.URL + `/form.html"}`
	mustOK(b, call(b, act, offline, nav))
	cases := []struct{ name, args string }{
		{"navigate", nav},
		{"fill", `{"action": "fill", "selector": "#name", "value": "Ann"}`},
		{"select", `{"action": "select", "selector": "#colour", "value": "green"}`},
		{"hover", `{"action": "hover", "selector": "#hover-target"}`},
		{"get_text", `{"action": "get_text", "selector": "h1"}`},
		{"screenshot", `{"action": "screenshot"}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				mustOK(b, call(b, act, offline, c.args))
			}
		})
	}
}
