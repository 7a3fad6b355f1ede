// Package gate is a tool call's whole permission life, in one place. Every
// call of every front end — the runtime's agent loop, `warden tool`,
// `warden policy check` (Decide), `warden serve`, the TUI, the bench —
// passes the one Gate that backend/assemble builds per process. No tool
// consults the policy itself.
//
// # A call's walk
//
//	Prepare   the arguments are decoded once (tools.Prepare; the typed
//	          adapter keeps the decoded value) and the effects computed
//	          once under the session as it is. Scheduling reads them
//	          (Prepared.ReadOnly), and so do the decision, the checkpoint
//	          and the re-check after a wait.
//	Decide    the pure engine (backend/policy: planning freeze, sandbox,
//	          org and user rules, approval policy, grants, MCP trust). The
//	          decision names its Layer.
//	Pre-call  hooks (Hook.BeforeCall) see a call the chain allows or
//	          would ask about and may only refuse it (layer answerer,
//	          detail hook:<name>, reason hook-denied).
//	Ask       the ask machine (package ask, its transitions a data file)
//	          records the request, then the answerers answer in order
//	          (Answerer: allow, deny or pass; answerer-allow/-deny), then
//	          the human last: the gate's seat, answered through Answer
//	          from a window, the TUI, serve or a remote link (layer human,
//	          detail the front end), or Config.Approver / Request.Approver
//	          standing in. No human (Headless) is a no-approver denial
//	          after ApprovalTimeout. An axis change re-decides live asks
//	          (Redecide); a stopped turn cancels them (Cancel).
//	Re-check  after a wait, the effects are computed again from the
//	          decoded arguments: a path that resolves differently now
//	          (a symlink moved while a human thought) runs nothing.
//	Invoke    between two checkpoints (Checkpointer, for calls that may
//	          change files), with the call's network decided host by host
//	          (net.go) and Env.Ask for a tool's own questions.
//	Post-call the post-call checks (PostCall.AfterCall) read the call's
//	          change set before the call returns and may revert from the
//	          checkpoint; their events are recorded and their note told to
//	          the model. Then the after-call hooks observe (Hook.AfterCall).
//
// Every step is first recorded as the store's own event (PermissionRequested,
// PermissionGranted/Denied with Layer and LayerDetail, ToolInvocation*), so
// the session's log is the state; telemetry reads decisions from there.
//
// # One walk of an answer
//
// api.Answer → runtime.Service.Answer → Gate.Answer: checked against the
// machine (a repeated answer is a no-op, a different one refused), the
// runtime's Before callback (MCP trust), the grant for "always", then the
// seat resolves the live waiter through the machine (ask.Machine.Step
// records to the store) and hands the outcome to the waiting call, which
// wakes in Run. Nothing in this package calls the runtime: the runtime
// passes callbacks in (Request.Session, Before, Listen) and resumes a
// restored ask itself when Answer says Answered.Restored.
//
// # Hook points for other layers
//
//   - PostCall: `AfterCall(ctx, CallInfo, Changes) (PostReport, error)`,
//     after the checkpoint's Finish, before the call returns (the check
//     that what the cage wrote never runs outside it). Changes.Event is the
//     recorded change set, Changes.Checkpoint the pair to revert from.
//   - Answerer: `Kind() string; Answer(ctx, Question) (Verdict, error)`,
//     in Config.Answerers, before the human. Never asked about a tool's own
//     question or an ask only a human may answer (NeedsHuman).
//   - Hook: `Name(); BeforeCall(ctx, CallInfo) (*Refusal, error);
//     AfterCall(ctx, CallInfo, tools.Result)` in Config.Hooks.
//   - Org and user rules live in the pure engine: nothing here.
//
// The seat's shutdown rule: after Shutdown, an ask whose wait ends stays
// pending in the store for the next start (unless headless, when its end
// is recorded as the time-out it would have been).
package gate
