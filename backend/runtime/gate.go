package runtime

import (
	"context"
	"encoding/json"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// The runtime's side of the gate: what it passes in. The gate never calls
// the runtime; it is handed the session source with each request, the
// trust step with each answer, and this listener for the asks it opens and
// closes.

// The answer's words, as the gate defines them (the API carries them).
type (
	// AnswerArgs is a human's answer to one ask.
	AnswerArgs = gate.AnswerArgs
	// RequestError refuses an answer; errors.Is(err, ErrUnknownRequest).
	RequestError = gate.RequestError
)

// ErrUnknownRequest is wrapped by every refusal of an answer whose request
// is unknown, already answered differently, or from another session.
var ErrUnknownRequest = gate.ErrUnknownRequest

// Answer kinds.
const (
	AnswerOnce   = gate.AnswerOnce
	AnswerAlways = gate.AnswerAlways
	AnswerDeny   = gate.AnswerDeny
)

// onGate turns the gate's events into pushes for the windows.
func (s *Service) onGate(ev gate.Event) {
	switch x := ev.(type) {
	case gate.AskOpened:
		v := x.Pending
		v.Mcp = s.mcpInfo(v.SessionID, v.Effects)
		s.hub.publish(Push{Type: PushApproval, Approval: &v})
		s.touch(v.SessionID)
	case gate.AskClosed:
		s.hub.publish(Push{Type: PushApprovalResolved, RequestID: x.RequestID, SessionID: x.SessionID})
		s.touch(x.SessionID)
	}
}

// request is one call of a session as the gate takes it.
func (s *Service) request(sessionID, callID string, t tools.Tool, args json.RawMessage) gate.Request {
	return gate.Request{Tool: t, Args: args, Session: s.gateSession,
		Env: tools.Env{SessionID: sessionID, CallID: callID, Output: s.output(sessionID, callID), Log: s.logTo(sessionID)}}
}

// gateSession is the session source the runtime hands the gate.
func (s *Service) gateSession(ctx context.Context, env tools.Env) (policy.Session, error) {
	ps, _, err := s.policySession(ctx, env.SessionID)
	return ps, err
}
