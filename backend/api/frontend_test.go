package api

import (
	"context"
	"testing"

	"github.com/warden-dev/warden/backend/gate"
)

// An answer names the front end it came through: its own word wins, else
// the transport's mark.
func TestAnswerVia(t *testing.T) {
	cases := []struct {
		name, mark, own, want string
	}{
		{"the window's transport", gate.ViaWindow, "", gate.ViaWindow},
		{"serve's transport", gate.ViaServe, "", gate.ViaServe},
		{"the answer names itself", gate.ViaServe, gate.ViaRemote, gate.ViaRemote},
		{"no mark, no name", "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.mark != "" {
				ctx = WithFrontEnd(ctx, tc.mark)
			}
			if got := answerVia(ctx, gate.AnswerArgs{Via: tc.own}).Via; got != tc.want {
				t.Fatalf("via %q, want %q", got, tc.want)
			}
		})
	}
}
