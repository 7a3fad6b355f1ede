package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// Decider is the policy engine; *policy.Engine satisfies it.
type Decider interface {
	Decide(call policy.Call, s policy.Session) policy.Decision
}

// Journal is where the gate records a session's events: the store's own
// sealed event types (*store.Store is one). A failure to record a
// permission event stops the call: nothing runs unrecorded.
type Journal = ask.Log

// SessionFunc returns the policy view of the call's session: axes, freeze,
// grants, caged. Its Workspace and Sandbox override the Env's, so the cage
// enforces exactly what the engine decided on.
type SessionFunc func(ctx context.Context, env tools.Env) (policy.Session, error)

// Config wires a gate. Decider is required.
type Config struct {
	Decider Decider
	// Session is the session source of requests that bring none.
	Session SessionFunc
	// Store is the event store: the journal, and what the human seat reads
	// (pending asks after a restart, grants an "always" answer adds).
	// Without it the gate records to Journal and has no seat.
	Store *store.Store
	// Journal is where a gate without a Store records; nil records nothing.
	Journal Journal
	// Approver answers for the human in place of the gate's own seat (a
	// test's scripted human, a harness that approves everything).
	Approver Approver
	// Headless: no human is attached. An ask passes the answerers, waits
	// ApprovalTimeout and becomes Deny{no-approver}.
	Headless bool
	// ApprovalTimeout bounds the wait for an answer (with no human, the
	// gate waits this long, then denies with no-approver). 0 with a human
	// waits until ctx ends.
	ApprovalTimeout time.Duration
	// Answerers answer an ask before the human does, in order (see the
	// package doc); the human is always last.
	Answerers []Answerer
	// Checkpoint is the stage around the invoke of a call that may change
	// files; nil takes none.
	Checkpoint Checkpointer
	// PostCall checks what an invoked call changed, after its checkpoint.
	PostCall []PostCall
	// Hooks run before an allowed call (they may only tighten it: ask or
	// refuse) and after every invoked call (they only observe).
	Hooks []Hook
	// Lineup adds each session's own answerers and hooks (configured per
	// user and workspace, trusted, allowed by the organisation) after
	// Answerers and Hooks; nil adds none.
	Lineup LineupFunc
	// Asks is the process's ask machine; nil makes one recording to the
	// gate's journal (tests hand in one restored from a log).
	Asks  *ask.Machine
	Now   func() time.Time
	NewID func() string
	// Network decides the destinations of caged commands (net.go);
	// SetNetwork replaces it while running.
	Network NetworkConfig
}

// Gate is the one path every tool call takes: prepare, decide, ask,
// checkpoint, invoke, check, each step recorded. A tool never consults the
// policy itself. It is built once per process (backend/assemble).
type Gate struct {
	cfg     Config
	log     Journal // cfg.Store or cfg.Journal, as given
	asks    *ask.Machine
	seat    *seat // nil: no human seat (no store, or an Approver answers)
	network atomic.Pointer[NetworkConfig]
	closing atomic.Bool

	lmu       sync.Mutex
	listeners map[int]func(Event)
	nextL     int
}

// New returns a gate.
func New(cfg Config) (*Gate, error) {
	if cfg.Decider == nil {
		return nil, errors.New("gate: a Decider is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.NewString
	}
	g := &Gate{cfg: cfg, listeners: map[int]func(Event){}}
	switch {
	case cfg.Store != nil:
		g.log = cfg.Store
	case cfg.Journal != nil:
		g.log = cfg.Journal
	default:
		g.log = discard{}
	}
	if cfg.Store != nil && cfg.Approver == nil {
		// Headless, the seat takes answers to asks recorded by an earlier
		// process, and no call waits on it.
		g.seat = newSeat(g)
	}
	g.asks = cfg.Asks
	if g.asks == nil {
		g.asks = ask.NewMachine(recorder{g})
	}
	n := cfg.Network
	g.network.Store(&n)
	return g, nil
}

type discard struct{}

func (discard) Append(context.Context, string, int64, ...store.Event) (int64, error) { return 0, nil }

// Asks is the gate's ask machine: what it knows of every ask.
func (g *Gate) Asks() *ask.Machine { return g.asks }

// Request is one call to take through the gate.
type Request struct {
	Tool tools.Tool
	Args json.RawMessage
	// Env names the session and the call (env.CallID: the model's id; a
	// call without one gets a fresh id) and carries the output sinks.
	Env tools.Env
	// Session is the policy view of the call's session; nil uses the
	// gate's Config.Session.
	Session SessionFunc
	// Approver answers this call's asks in place of the gate's human
	// seat (a front end that asks its own human); nil: the gate's.
	Approver Approver
}

// Outcome is the full story of one call.
type Outcome struct {
	CallID   string           `json:"call_id"`
	Decision *policy.Decision `json:"decision"` // nil when the arguments were unusable
	Effects  []policy.Effect  `json:"effects,omitempty"`
	Result   tools.Result     `json:"result"`
	Invoked  bool             `json:"invoked"`
}

// Prepared is a call whose arguments were decoded and whose effects were
// computed once: scheduling reads them, the decision, the checkpoint and
// the re-check after a wait reuse them.
type Prepared struct {
	req  Request
	call tools.Prepared
	// Effects are what the call would do, as decided on; nil with Err.
	Effects []policy.Effect
	// Err says the arguments are unusable; the gate reports it without
	// deciding.
	Err     error
	session policy.Session
	fresh   bool // session was read for this run (Call), not ahead of it
}

// ReadOnly reports whether the call only reads (what may run beside other
// reads): usable arguments whose every effect is Read.
func (p *Prepared) ReadOnly() bool {
	if p.Err != nil {
		return true // answered at once with an error
	}
	for _, e := range p.Effects {
		if e.Kind != policy.EffectRead {
			return false
		}
	}
	return len(p.Effects) > 0
}

// Prepare decodes a call's arguments and computes its effects under the
// session as it is now. The error is for the gate itself (the session
// could not be read); unusable arguments are in Prepared.Err.
func (g *Gate) Prepare(ctx context.Context, req Request) (*Prepared, error) {
	if req.Session == nil {
		req.Session = g.cfg.Session
	}
	if req.Session == nil {
		return nil, errors.New("gate: the request brings no session and the gate has none")
	}
	if req.Env.CallID == "" {
		req.Env.CallID = g.cfg.NewID()
	}
	p := &Prepared{req: req}
	s, err := g.session(ctx, req)
	if err != nil {
		return nil, err
	}
	p.session = s
	p.req.Env.Workspace, p.req.Env.Sandbox = s.Workspace, s.Sandbox
	if p.call, p.Err = tools.Prepare(req.Tool, req.Args); p.Err == nil {
		p.Effects, p.Err = p.call.Effects(p.req.Env)
	}
	return p, nil
}

func (g *Gate) session(ctx context.Context, req Request) (policy.Session, error) {
	s, err := req.Session(ctx, req.Env)
	if err != nil {
		return s, fmt.Errorf("gate: session: %w", err)
	}
	if s.Now.IsZero() {
		s.Now = g.cfg.Now()
	}
	return s, nil
}

// Call runs one call through the gate: Prepare, then Run. The error is for
// failures of the gate itself (session lookup, journal); refusals and tool
// failures are in the Outcome's Result for the model to read.
func (g *Gate) Call(ctx context.Context, req Request) (Outcome, error) {
	p, err := g.Prepare(ctx, req)
	if err != nil {
		return Outcome{CallID: req.Env.CallID}, err
	}
	p.fresh = true
	return g.Run(ctx, p)
}

// Run decides a prepared call, asks if need be, and invokes what was
// allowed. The session is read again unless Call just read it: a call
// prepared with others of its turn is decided on the axes of its own turn.
func (g *Gate) Run(ctx context.Context, p *Prepared) (Outcome, error) {
	env := p.req.Env
	out := Outcome{CallID: env.CallID}
	s := p.session
	if !p.fresh {
		var err error
		if s, err = g.session(ctx, p.req); err != nil {
			return out, err
		}
		if p.call != nil {
			// Prepared with its turn: the calls before it may have changed
			// what its paths resolve to (a folder made, a page opened),
			// and the axes may have moved. The effects are computed again
			// from the decoded arguments, never decoded again.
			env.Workspace, env.Sandbox = s.Workspace, s.Sandbox
			p.Effects, p.Err = p.call.Effects(env)
		}
	}
	p.fresh = false
	env.Workspace, env.Sandbox = s.Workspace, s.Sandbox
	t := p.req.Tool
	if p.Err != nil {
		out.Result = tools.ErrorResult(fmt.Sprintf("%s: invalid arguments: %v", t.Name(), p.Err))
		return out, nil
	}
	effects := p.Effects
	out.Effects = effects
	d := g.cfg.Decider.Decide(policy.Call{Tool: t.Name(), Effects: effects}, s)
	var err error
	id := ask.ID{SessionID: env.SessionID, RequestID: g.cfg.NewID(), CallID: out.CallID, Tool: t.Name()}
	c := CallInfo{SessionID: env.SessionID, CallID: out.CallID, RequestID: id.RequestID, Tool: t.Name(),
		Workspace: env.Workspace, Sandbox: env.Sandbox, Approval: s.Approval, Caged: s.Caged, Effects: effects,
		Args: p.req.Args}
	lu := g.lineup(ctx, c)
	if d.Verdict != policy.VerdictDeny {
		c.Decision = d
		if d, err = g.beforeCall(ctx, c, d, lu.Hooks, id); err != nil {
			return out, err
		}
	}
	asked := false
	// A call allowed unasked records its grant with its start, in one
	// transaction (invoke): one fsync less per call, and the log never
	// holds a grant whose call a crash kept from starting.
	var grant store.Event
	switch st := g.standing(id, d, false); {
	case st != nil:
		// A human answered this very call's ask before a restart: that
		// ask carries on (allowed → running); nothing is asked twice.
		d = cageOf(d, stood(*st, "decided "+string(d.Verdict)+" again after a restart"))
		id = st.ID
	case d.Verdict == policy.VerdictAllow:
		grant = granted(d)
	case d.Verdict == policy.VerdictAsk:
		asked = true
		engine := d
		d, err = g.ask(ctx, askCall{tool: t, args: p.req.Args, env: env, effects: effects, call: p.call, approver: p.req.Approver,
			session: p.req.Session, risk: policy.RiskOf(policy.Call{Tool: t.Name(), Effects: effects}, s), sess: s, lineup: lu}, d, id, false)
		if err != nil {
			return out, err
		}
		d = cageOf(engine, d) // the cage the answer earns
	default:
		if err := g.deny(ctx, id, ask.Deny, d); err != nil {
			return out, err
		}
	}
	out.Decision = &d
	if d.Verdict != policy.VerdictAllow {
		out.Result = denialResult(d)
		return out, nil
	}
	if asked {
		// A symlink can change while a human thinks: resolve the paths
		// again (from the decoded arguments) and run only what was
		// decided on.
		if again, err := p.call.Effects(env); err != nil || !sameEffects(again, effects) {
			msg := "the call's paths resolve differently than when it was decided (a symlink or folder changed); nothing ran"
			out.Result = tools.ErrorResult(msg + "; call again")
			_, err := g.asks.Step(context.WithoutCancel(ctx), id, ask.Stale, store.ToolInvocationFailed{Error: msg})
			return out, err
		}
	}
	c.RequestID, c.Decision = id.RequestID, d
	out.Invoked = true
	env.Egress = g.egress(env, p.req, out.CallID, t.Name(), effects)
	env.Cage = d.Cage // the claim's cage, or the whole sandbox once a human said yes
	env.Ask = func(ctx context.Context, q tools.Question) (policy.Decision, error) {
		return g.toolAsk(ctx, askCall{tool: t, env: env, approver: p.req.Approver, session: p.req.Session}, q)
	}
	out.Result, err = g.invoke(ctx, p.call, c, env, id, lu.Hooks, grant)
	if err != nil {
		out.Invoked = false // the start could not be recorded: nothing ran
	}
	return out, err
}

// Decide is the decision a prepared call would get now, recorded nowhere
// and asked of nobody: `warden policy check` explains exactly what Run
// decides. p must have usable arguments (p.Err nil).
func (g *Gate) Decide(p *Prepared) policy.Decision {
	return g.cfg.Decider.Decide(policy.Call{Tool: p.req.Tool.Name(), Effects: p.Effects}, p.session)
}

// sameEffects compares the effects a call was decided on with those it has
// now. An MCP effect's Trusted flag is not part of what the call does: the
// human's "Trust this server" answer flips it while the call waits, and
// that answer approved this very call.
func sameEffects(now, decided []policy.Effect) bool {
	strip := func(effs []policy.Effect) []policy.Effect {
		out := append([]policy.Effect(nil), effs...)
		for i := range out {
			if out[i].Kind == policy.EffectMcp {
				out[i].Trusted = false
			}
		}
		return out
	}
	return reflect.DeepEqual(strip(now), strip(decided))
}

// Shutdown says the process is ending: an ask whose wait ends from now on
// stays pending for the next start (a pending approval survives a
// restart), unless no human is attached, when it ends as the time-out it
// would have been.
func (g *Gate) Shutdown() { g.closing.Store(true) }

// SetNetwork replaces the network input (the [network] lists, the ask
// timeout) of every call that starts from now on: a Settings save applies
// without a restart. Commands already running keep what they started with.
func (g *Gate) SetNetwork(n NetworkConfig) {
	if n.Resolve == nil {
		n.Resolve = g.cfg.Network.Resolve
	}
	g.network.Store(&n)
}

func (g *Gate) networkConfig() NetworkConfig { return *g.network.Load() }
