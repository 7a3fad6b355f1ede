// Package runtime is the agent runtime behind both windows onto Warden: the
// desktop app (app/, bound through Wails) and `warden serve` (backend/server,
// HTTP + WebSocket). Service is the single API they call.
//
// It owns sessions (axes, planning freeze, subagents), the model loop (user
// message → streamed model turn → tool calls through the gate → results →
// until the model stops) and the approval broker, which parks a call the
// policy engine asked about until a human answers once, always or deny.
//
// The model sees what the human sees: a tool result's pictures (browser and
// desktop screenshots) go back as image parts, fitted to Config.Images when
// the result is recorded (images.go); a background subagent's end — its
// answer, its failure, or the human's kill — is told to the parent's model at
// its next turn and can be awaited with task_result (task_result.go); a
// monitor's start and end are events, its output readable with monitor.read.
//
// An answer that is not a human's yes or no (a re-decision after an axis
// change, a cancel) reaches the gate as the whole Decision, so the model reads
// what decided, and its transition (cancel, supersede-allow/deny). Every
// ask's life is one state machine (backend/tools/ask) the service shares
// between its gates and the answers to asks restored from the log: a call
// resumed after a restart finds its recorded answer there and carries that
// very ask on, so the log keeps one ask and one answer. The broker records
// each answer to a live ask through that machine before the gate wakes, and
// a repeated answer asks the machine, so no second account of "answered"
// exists. Across restarts (interrupt.go, journal.go): a call a dead process
// left running is interrupted at the next start, never run again; at a
// graceful shutdown a waiting ask stays pending (a pending approval survives
// a restart) unless no human is attached, when its time-out is recorded.
//
// Every state change is an event in the store; the pushed stream a window
// renders is the store's log plus transient deltas. Nothing a model can call
// changes an axis, a grant, a trust or leaves the freeze: those are Service
// methods, which only a window or the CLI calls.
package runtime
