package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/warden-dev/warden/backend/policy"
)

// The typed adapter, in the spirit of adk-go's functiontool.New[TArgs,
// TResults]: a built-in declares its argument type once. Its schema derives
// from that type (SchemaOf), its arguments are decoded once per call
// (Prepare), and its functions see the decoded value, never JSON. Its
// model-facing description is an embedded .md file beside the tool's file.
//
// A wrapper of a typed tool must embed it as a Tool (an interface), not as
// its concrete type: a concrete embedding would promote Prepare, and the
// gate would decide on the inner tool's effects instead of the wrapper's.

// Spec is what a typed tool is made of.
type Spec[A any] struct {
	Name string
	// Description is what the model reads (the tool's .md file).
	Description string
	Risk        policy.Risk
	// Check validates decoded arguments beyond their JSON shape (an empty
	// command, a timeout out of range); nil accepts any.
	Check func(a *A) error
	// Decode replaces the default decoding (a JSON object, no unknown
	// fields, the required ones present) and Check, for a tool whose
	// arguments have a grammar of their own (a browser action's verb and
	// its fields); nil: the default.
	Decode func(args json.RawMessage) (A, error)
	// Schema replaces the schema derived from A, for a tool whose schema
	// says more than Go types can (enums, bounds); schema_test checks
	// every such schema against A's fields. nil: SchemaOf[A].
	Schema json.RawMessage
	// Effects says what the call would do, before it runs, under env
	// (paths resolve against its workspace): computed once per decision
	// and again after a wait.
	Effects func(a A, env Env) ([]policy.Effect, error)
	Invoke  func(ctx context.Context, a A, env Env) (Result, error)
	// Preview shows a human what the call would change; nil: none.
	Preview func(a A, env Env) (string, error)
	// Holds says Invoke starts nothing that acts before env.Proceed
	// delivers nil (Holder): it may set up (a cage) while the gate records
	// the call.
	Holds bool
}

// Typed is a tool made from a Spec: a Tool, a Preparer and a Previewer.
type Typed[A any] struct {
	spec   Spec[A]
	desc   string
	schema func() json.RawMessage
}

// NewTyped returns the tool of s. The schema is derived from A once, when
// first asked for: a process that only runs calls (`warden tool`) never
// shows a model the schemas of the tools it registers.
func NewTyped[A any](s Spec[A]) *Typed[A] {
	schema := func() json.RawMessage { return s.Schema }
	if s.Schema == nil {
		schema = sync.OnceValue(SchemaOf[A])
	}
	return &Typed[A]{spec: s, desc: strings.TrimSpace(s.Description), schema: schema}
}

func (t *Typed[A]) Name() string            { return t.spec.Name }
func (t *Typed[A]) Description() string     { return t.desc }
func (t *Typed[A]) Schema() json.RawMessage { return t.schema() }
func (t *Typed[A]) Risk() policy.Risk       { return t.spec.Risk }

// decode is the one place a typed tool's arguments are decoded.
func (t *Typed[A]) decode(args json.RawMessage) (A, error) {
	if t.spec.Decode != nil {
		return t.spec.Decode(args)
	}
	a, err := decodeArgs[A](args)
	if err == nil && t.spec.Check != nil {
		err = t.spec.Check(&a)
	}
	return a, err
}

// Effects decodes args and states their effects (Tool).
func (t *Typed[A]) Effects(args json.RawMessage, env Env) ([]policy.Effect, error) {
	a, err := t.decode(args)
	if err != nil {
		return nil, err
	}
	return t.spec.Effects(a, env)
}

// Invoke decodes args and runs the call (Tool); unusable arguments are a
// result the model reads.
func (t *Typed[A]) Invoke(ctx context.Context, args json.RawMessage, env Env) (Result, error) {
	a, err := t.decode(args)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	return t.spec.Invoke(ctx, a, env)
}

// Preview is the human's view of what the call would change; "" when the
// tool shows none.
func (t *Typed[A]) Preview(args json.RawMessage, env Env) (string, error) {
	if t.spec.Preview == nil {
		return "", nil
	}
	a, err := t.decode(args)
	if err != nil {
		return "", err
	}
	return t.spec.Preview(a, env)
}

// Prepare decodes args once (Preparer).
func (t *Typed[A]) Prepare(args json.RawMessage) (Prepared, error) {
	a, err := t.decode(args)
	if err != nil {
		return nil, err
	}
	return &typedCall[A]{t: t, a: a, args: args}, nil
}

// typedCall is one call of a typed tool with its decoded arguments.
type typedCall[A any] struct {
	t    *Typed[A]
	a    A
	args json.RawMessage
}

func (c *typedCall[A]) Args() json.RawMessage { return c.args }
func (c *typedCall[A]) Effects(env Env) ([]policy.Effect, error) {
	return c.t.spec.Effects(c.a, env)
}
func (c *typedCall[A]) Invoke(ctx context.Context, env Env) (Result, error) {
	return c.t.spec.Invoke(ctx, c.a, env)
}

// HoldsEffects says Invoke waits for env.Proceed before it acts (Holder).
func (c *typedCall[A]) HoldsEffects() bool { return c.t.spec.Holds }

// Preview is the tool's preview of the decoded call ("" for none).
func (c *typedCall[A]) Preview(env Env) (string, error) {
	if c.t.spec.Preview == nil {
		return "", nil
	}
	return c.t.spec.Preview(c.a, env)
}
