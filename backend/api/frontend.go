package api

import (
	"context"

	"github.com/warden-dev/warden/backend/gate"
)

// frontEndKey marks a call's context with the front end it came through.
type frontEndKey struct{}

// WithFrontEnd marks ctx as coming through a front end (gate.ViaWindow,
// gate.ViaServe, ...): an answer that does not name its front end is
// recorded as answered from there.
func WithFrontEnd(ctx context.Context, via string) context.Context {
	return context.WithValue(ctx, frontEndKey{}, via)
}

// frontEnd is the front end ctx was marked with, or "".
func frontEnd(ctx context.Context) string {
	v, _ := ctx.Value(frontEndKey{}).(string)
	return v
}

// answerVia fills an answer's front end from its transport.
func answerVia(ctx context.Context, a gate.AnswerArgs) gate.AnswerArgs {
	if a.Via == "" {
		a.Via = frontEnd(ctx)
	}
	return a
}
