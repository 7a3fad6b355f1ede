// Package runtime is the agent runtime behind both windows onto Warden: the
// desktop app (app/, bound through Wails) and `warden serve` (backend/server,
// HTTP + WebSocket). Service is the single API they call.
//
// It owns sessions (axes, planning freeze, subagents) and the model loop
// (user message → streamed model turn → tool calls through the gate →
// results → until the model stops). A call's permission life — deciding,
// asking, the human's seat, answers, the ask machine and its journal — is
// the gate's (backend/gate), built once in backend/assemble and handed in
// as Config.Gate. The runtime never answers an ask itself: it passes the
// gate its session source with each call (gate.go), its MCP trust step with
// each answer, and a listener that turns the asks the gate opens and closes
// into pushes; it re-decides live asks after an axis change and cancels
// them when a turn stops, and it carries on a turn whose ask outlived the
// process once Gate.Answer says it was restored (resume.go).
//
// The model sees what the human sees: a tool result's pictures (browser and
// desktop screenshots) go back as image parts, fitted to Config.Images when
// the result is recorded (images.go); a background subagent's end — its
// answer, its failure, or the human's kill — is told to the parent's model at
// its next turn and can be awaited with task_result (task_result.go); a
// monitor's start and end are events, its output readable with monitor.read.
//
// Across restarts: the gate interrupts the calls a dead process left
// running (never run again) at the next start; at a graceful shutdown a
// waiting ask stays pending (a pending approval survives a restart) unless
// no human is attached, when its time-out is recorded.
//
// Every state change is an event in the store; the pushed stream a window
// renders is the store's log plus transient deltas. Nothing a model can call
// changes an axis, a grant, a trust or leaves the freeze: those are Service
// methods, which only a window or the CLI calls.
package runtime
