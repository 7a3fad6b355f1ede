package runtime

import (
	"context"
	"encoding/json"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/runtime/model"
)

// RunToolCall is the agent loop's step for one tool call a model made
// (runCall: the gate's Prepare and Run — decision, checkpoints, cage,
// post-call check, events — then the tool's result message), exported to
// the benchmarks of package runtime_test, which build the whole graph with
// assemble (an import cycle for this package's own tests).
func (s *Service) RunToolCall(ctx context.Context, sessionID, callID, name string, args json.RawMessage) error {
	return s.runCall(ctx, sessionID, model.ToolCall{ID: callID, Name: name, Args: args}, 0)
}

// GateRequest is the request the loop hands the gate for that call, so a
// benchmark can check the decision (the cage's shape) the loop's calls get.
func (s *Service) GateRequest(ctx context.Context, sessionID, callID, name string, args json.RawMessage) (gate.Request, bool) {
	t, ok := s.tool(ctx, sessionID, name)
	if !ok {
		return gate.Request{}, false
	}
	return s.request(sessionID, callID, t, args), true
}
