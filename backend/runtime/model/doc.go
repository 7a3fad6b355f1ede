// Package model is the provider-neutral seam between the agent loop and the
// language models it talks to.
//
// A Provider turns a Request (system, user, assistant and tool-result
// messages plus tool specs) into a Stream of typed Events: text deltas, tool
// calls (start, argument deltas, done with complete JSON arguments), usage and
// a stop reason. Accumulator (or Collect) folds the events back into one
// assistant Message, so the loop can both show streaming text and act on the
// finished turn.
//
// Tool names inside Warden use dots and colons ("shell.exec",
// "mcp-tool:srv/tool"); model APIs accept only ^[a-zA-Z0-9_-]{1,64}$. Every
// provider translates through a NameMap built from the request's tools, so
// the rest of Warden only ever sees internal names.
//
// Errors from providers are *Error values that match one of the sentinel
// kinds (ErrAuth, ErrModelNotFound, ErrRateLimited, ErrServer, ErrBadRequest,
// ErrProtocol, ErrScriptMismatch) with errors.Is; cancellation surfaces as
// the context's error.
package model
