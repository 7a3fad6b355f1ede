// Package runtime is the agent runtime behind both windows onto Warden: the
// desktop app (app/, bound through Wails) and `warden serve` (backend/server,
// HTTP + WebSocket). Service is the single API they call.
//
// It owns sessions (axes, planning freeze, subagents), the model loop (user
// message → streamed model turn → tool calls through the gate → results →
// until the model stops) and the approval broker, which parks a call the
// policy engine asked about until a human answers once, always or deny.
//
// Every state change is an event in the store; the pushed stream a window
// renders is the store's log plus transient deltas. Nothing a model can call
// changes an axis, a grant, a trust or leaves the freeze: those are Service
// methods, which only a window or the CLI calls.
package runtime
