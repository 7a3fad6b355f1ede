// Package tools holds the Tool interface, the typed adapter, the registry
// and one file per built-in tool (its model-facing description beside it).
// The graph's one registry is built by backend/assemble (Builtins plus the
// browser, computer and MCP tools); the runtime layers its meta tools on it.
//
// A tool never consults the policy itself: it states its effects from its
// arguments, and the gate (backend/gate) decides before Invoke is ever
// called.
package tools

import (
	"context"
	"encoding/json"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Env is what a tool knows about the session it runs in.
type Env struct {
	SessionID string
	// CallID names the call being run; the gate sets it to the call's id
	// before Invoke, so a tool that records events about its call (a
	// subagent, a monitor, a plan) names the same call the log does.
	CallID    string
	Workspace string // absolute, symlink-resolved
	Sandbox   policy.SandboxPolicy
	// Output receives streamed output (stdout/stderr chunks, monitor lines)
	// while a tool runs. It may be nil.
	Output func(stream string, chunk []byte)
	// Egress decides the connections of the call's caged commands; the
	// gate sets it (gate_net.go).
	Egress *sandbox.Egress
	// Cage is the OS cage the call's commands run in, as decided (the
	// gate sets it from the decision: the claim's cage, or the sandbox's
	// whole reach when a human answered this call). Nil outside the gate:
	// the command then gets the sandbox axis's cage.
	Cage *policy.Cage
	// Log appends a typed event to the session's log for what a tool
	// starts that outlives its call (a monitor's start and end). It may be
	// nil; it is safe to call after the call returned.
	Log func(store.Event)
	// Ask puts a question to the human from inside a running call (the
	// gate sets it): recorded and answered like any ask, it returns the
	// outcome — allow, or deny with who decided and why.
	Ask func(ctx context.Context, q Question) (policy.Decision, error)
	// Proceed, when set, is the gate's word that the call was recorded and
	// may take effect: nil, or why it must not. A tool that holds its
	// effects (Holder) gets it and is called before the call is recorded,
	// so its set-up (shell.exec's cage) overlaps the recording; it starts
	// nothing that acts until Proceed delivers nil.
	Proceed <-chan error
}

// Wait blocks until env's Proceed delivers (at once when there is none)
// and returns its word: nil lets the call act.
func (e Env) Wait(ctx context.Context) error {
	if e.Proceed == nil {
		return nil
	}
	select {
	case err := <-e.Proceed:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Holder is a prepared call that holds its effects until Env.Proceed says
// so; the gate may invoke it before the call is recorded.
type Holder interface {
	HoldsEffects() bool
}

// Question is what a tool asks the human through Env.Ask.
type Question struct {
	Signature string          // what "always" would remember; the tool's name when empty
	Args      json.RawMessage // shown with the prompt
	Why       string          // one line for the trace
}

// Previewer is implemented by tools that can show a human what a call would
// change (fs.write's diff, patch.apply's patch) for the approval prompt.
type Previewer interface {
	Preview(args json.RawMessage, env Env) (string, error)
}

// Content is one part of a tool result.
type Content struct {
	Type     string `json:"type"` // "text" | "image"
	Text     string `json:"text,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	Data     []byte `json:"data,omitempty"` // image bytes
}

// Result is what the model reads back. IsError marks a failure the model
// should see and re-plan from (bad arguments, nonexistent file, timeout...).
type Result struct {
	Content    []Content       `json:"content"`
	IsError    bool            `json:"is_error,omitempty"`
	Structured json.RawMessage `json:"structured,omitempty"`
}

// TextResult is a one-part text result.
func TextResult(text string) Result { return Result{Content: []Content{{Type: "text", Text: text}}} }

// ErrorResult is a one-part text result marked as an error.
func ErrorResult(text string) Result {
	r := TextResult(text)
	r.IsError = true
	return r
}

// Tool is one capability the model can call.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON schema of the arguments.
	Schema() json.RawMessage
	Risk() policy.Risk
	// Effects says what the call would do, before it runs. An error means
	// the arguments are unusable; the gate reports it without invoking.
	Effects(args json.RawMessage, env Env) ([]policy.Effect, error)
	Invoke(ctx context.Context, args json.RawMessage, env Env) (Result, error)
}

// Prepared is one call with its arguments decoded once: the gate asks it
// for the call's effects (again after a wait, for paths that may resolve
// differently) and invokes it, without decoding the arguments again.
type Prepared interface {
	// Args are the call's arguments as the model sent them.
	Args() json.RawMessage
	Effects(env Env) ([]policy.Effect, error)
	Invoke(ctx context.Context, env Env) (Result, error)
}

// PreparedPreviewer is a prepared call that previews itself from its
// decoded arguments (the typed adapter's).
type PreparedPreviewer interface {
	Preview(env Env) (string, error)
}

// Preparer is a tool that decodes its arguments once per call (the typed
// adapter, typed.go).
type Preparer interface {
	// Prepare decodes args; an error means they are unusable.
	Prepare(args json.RawMessage) (Prepared, error)
}

// Prepare is the call of t with args: the tool's own when it decodes once
// (Preparer), else one that hands the raw arguments to Effects and Invoke.
func Prepare(t Tool, args json.RawMessage) (Prepared, error) {
	if p, ok := t.(Preparer); ok {
		return p.Prepare(args)
	}
	return rawCall{t: t, args: args}, nil
}

// rawCall is a call of a tool that takes its arguments as JSON each time
// (MCP tools, whose server decodes them).
type rawCall struct {
	t    Tool
	args json.RawMessage
}

func (c rawCall) Args() json.RawMessage                    { return c.args }
func (c rawCall) Effects(env Env) ([]policy.Effect, error) { return c.t.Effects(c.args, env) }
func (c rawCall) Invoke(ctx context.Context, env Env) (Result, error) {
	return c.t.Invoke(ctx, c.args, env)
}

// RefusedConnections lists what the call's commands were refused, one line
// each with how to allow it, for the model to read: what the gate's
// decider of the call's connections kept (backend/gate).
func RefusedConnections(eg *sandbox.Egress) []string {
	if eg == nil {
		return nil
	}
	if r, ok := eg.Decider.(interface{ Refused() []string }); ok {
		return r.Refused()
	}
	return nil
}
