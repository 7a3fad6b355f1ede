package computer

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/warden-dev/warden/backend/tools"
)

// BenchmarkComputerUse measures one call end to end (connect, act, sync)
// on a 640x480 Xvfb, with the kbinani capture path and the GetImage one.
func BenchmarkComputerUse(b *testing.B) {
	cases := []struct {
		name, xvfbArg, args string
	}{
		{"screenshot-kbinani", "+xinerama", `{"action": "screenshot"}`},
		{"screenshot-getimage", "-xinerama", `{"action": "screenshot"}`},
		{"click", "-xinerama", `{"action": "click", "x": 10, "y": 10}`},
		{"type-10-chars", "-xinerama", `{"action": "type", "text": "abcdeFGHIJ"}`},
		{"key-combo", "-xinerama", `{"action": "key", "combo": "ctrl+shift+a"}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			disp := startXvfb(b, c.xvfbArg)
			b.Setenv("DISPLAY", disp)
			tool := New(Options{})
			for b.Loop() {
				res, err := tool.Invoke(context.Background(), json.RawMessage(c.args), tools.Env{})
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res.Content)
				}
			}
		})
	}
}
