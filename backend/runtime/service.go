package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/mcp/mcpport"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// Config wires a Service. Store, Gate and Tools are required.
type Config struct {
	Store *store.Store
	// Gate is the process's one gate (backend/assemble builds it): every
	// call of every session passes it, and it holds the asks.
	Gate *gate.Gate
	// Tools are the unwrapped tools a model may call (built-ins, MCP,
	// browser...). The runtime adds its meta tools (write_plan,
	// present_plan, task) and puts every call behind the gate.
	Tools *tools.Registry
	// Provider is the model; nil means none is configured: `!` commands,
	// /plan and every human control still work, a chat message is refused.
	Provider model.Provider
	Demo     bool   // the provider is the built-in demo script
	System   string // system prompt; empty uses DefaultSystemPrompt
	// Caged reports whether shell commands run in the OS cage under a
	// sandbox policy (sandbox.Cage.Caged); nil means never.
	Caged      func(policy.SandboxPolicy) bool
	CageReason string
	// NetworkProxied reports whether a caged command's network goes only
	// through Warden's proxy under a sandbox policy (sandbox.Cage.Proxied);
	// nil means never.
	NetworkProxied func(policy.SandboxPolicy) bool
	// Defaults for new sessions.
	Approval policy.ApprovalPolicy
	Sandbox  policy.SandboxPolicy
	// OnSessionClose runs when a session is deleted or the service closes,
	// to stop what lives with it (monitors, browser contexts).
	OnSessionClose []func(sessionID string)
	// KillMonitor stops a monitor for KillAgent; nil: only subagents.
	KillMonitor func(sessionID, id string) error
	// TrustMcp trusts an MCP server from an answer's trust_server; nil:
	// such an answer is refused.
	TrustMcp func(ctx context.Context, sessionID, server string, persistent bool) error
	// MCP is every workspace's MCP servers (runtime/mcp.go); nil: no MCP.
	// With it, TrustMcp defaults to trusting in the session's workspace.
	MCP mcpport.Pool
	// LeaveSessions skips the start-up resume of other sessions (planning
	// sessions landing in Always): for front ends that run or explain one
	// call (`warden tool`, `policy check`) beside a window that owns them.
	LeaveSessions bool
	// Checkpoints undoes calls' changes to the workspace (UndoCall,
	// RestoreTo); nil: those methods fail with ErrNoCheckpoints.
	Checkpoints Checkpoints
	// Images caps the pictures tool results show the model (screenshots).
	Images ImageConfig
	// MaxSteps bounds the model turns of one user message (default 50).
	MaxSteps int
	// Answerers shows each session's answerers and hooks and takes the
	// human's trust in a workspace's own (answerers.go); nil: none.
	Answerers AnswererBoard
	// Remote makes links that answer an ask from another device; nil:
	// RemoteLink fails with ErrNoRemote.
	Remote RemoteLinker
	// Headless: no human answers asks in this process (what the answerer
	// list says comes after the answerers).
	Headless bool
	Version  string
	// StartDir is the folder a new session's workspace starts with in a
	// window (Info.StartDir): where Warden was started.
	StartDir string
	Now      func() time.Time

	// Org is the organisation policy's ceilings (nil: none): axis changes
	// above them are refused, sessions above them are lowered at start,
	// grants last at most its longest lifetime (org.go).
	Org *policy.Org
	// Rules are the organisation's and the user's rules (the engine's),
	// for ListRules; WorkspaceRules reads a workspace's rules, with
	// warnings about what is ignored (backend/orgpolicy.Tiers.Workspace).
	Rules          *policy.RuleSet
	WorkspaceRules func(workspace string) (*policy.RuleSet, []string, error)
}

// DefaultSystemPrompt tells the model how it is governed.
const DefaultSystemPrompt = "You are Warden, a coding agent working in the user's workspace. " +
	"Every tool call passes a permission gate: it may run, ask the human, or be denied with a reason and a remedy. " +
	"When a call is denied, read the reason and re-plan; never try to get around a denial. " +
	"Only the human changes the sandbox, the approval policy, grants or the planning freeze."

// ErrNoModel is returned by SendMessage when no model is configured.
var ErrNoModel = errors.New("no model is configured: start with --model PROVIDER:MODEL, or run a command with !")

// Service is the one API the windows use.
type Service struct {
	cfg   Config
	st    *store.Store
	tools toolset // unwrapped, meta tools included
	hub   *hub
	gate  *gate.Gate
	// unlisten stops the gate's events reaching the hub (Close).
	unlisten func()

	ctx    context.Context // lives until Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// tailing is set, under mu, once the store's event tail runs (started
	// by the first subscriber); tailErr is why it could not start.
	tailing bool
	tailErr error

	liveMu sync.RWMutex
	live   live

	mu    sync.Mutex
	turns map[string]*turn  // session id → running turn
	kids  map[string]*child // child session id → running subagent
	plans map[string]string // session id → latest write_plan text
}

// New starts a service. Sessions that were planning when the last run
// ended land in Always approval (resume rule of the contract).
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Gate == nil || cfg.Tools == nil {
		return nil, errors.New("runtime: a Store, a Gate and Tools are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 50
	}
	cfg.Images = cfg.Images.withDefaults()
	if cfg.System == "" {
		cfg.System = DefaultSystemPrompt
	}
	if cfg.Caged == nil {
		cfg.Caged = func(policy.SandboxPolicy) bool { return false }
	}
	if cfg.NetworkProxied == nil {
		cfg.NetworkProxied = func(policy.SandboxPolicy) bool { return false }
	}
	s := &Service{cfg: cfg, st: cfg.Store, hub: newHub(), turns: map[string]*turn{}, kids: map[string]*child{}, plans: map[string]string{}}
	s.live = live{provider: cfg.Provider, demo: cfg.Demo, approval: cfg.Approval, sandbox: cfg.Sandbox}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.gate = cfg.Gate
	s.unlisten = s.gate.Listen(s.onGate)
	if s.cfg.MCP != nil && s.cfg.TrustMcp == nil {
		s.cfg.TrustMcp = s.trustFromAnswer
	}
	ts, err := newToolset(cfg.Tools, newWritePlan(s), newPresentPlan(s), newTaskTool(s), newTaskResultTool(s))
	if err != nil {
		return nil, err
	}
	s.tools = ts
	if !cfg.LeaveSessions {
		if err := s.clampSessions(ctx); err != nil {
			return nil, err
		}
		if err := s.resumePlanning(ctx); err != nil {
			return nil, err
		}
		if err := s.gate.InterruptUnfinished(ctx); err != nil {
			return nil, fmt.Errorf("runtime: unfinished calls: %w", err)
		}
	}
	return s, nil
}

// tailStore starts forwarding stored events to the hub. It runs at the
// first Subscribe, not in New: a process nobody watches (a one-shot
// `warden tool`, a test) would otherwise open a reader connection and poll
// the log for nothing. Pushes are live either way — what was stored before
// a front end subscribed, it reads with SessionEvents.
func (s *Service) tailStore() error {
	// Under mu and after the ctx check, like a turn: Close cancels, then
	// takes mu before it waits, so no tail is added to the WaitGroup while
	// Close waits on it (a race the detector reports), and none starts after.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return errors.New("runtime: the service is closed")
	}
	if s.tailing || s.tailErr != nil {
		return s.tailErr
	}
	sub, err := s.st.Subscribe(s.ctx, store.SubscribeFilter{AfterSeq: -1})
	if err != nil {
		s.tailErr = fmt.Errorf("runtime: subscribe: %w", err)
		return s.tailErr
	}
	s.tailing = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for e := range sub.Events() {
			ev := eventView(e)
			s.hub.publish(Push{Type: PushEvent, Event: &ev})
		}
	}()
	return nil
}

func (s *Service) resumePlanning(ctx context.Context) error {
	all, err := s.st.Sessions(ctx, "")
	if err != nil {
		return fmt.Errorf("runtime: list sessions: %w", err)
	}
	always := policy.Always
	for _, ss := range all {
		if ss.Planning && ss.Approval != policy.Always {
			if _, err := s.st.UpdateSessionPolicy(ctx, ss.ID, store.PolicyUpdate{Approval: &always, By: "resume"}); err != nil {
				return fmt.Errorf("runtime: resume %s: %w", ss.ID, err)
			}
		}
	}
	return nil
}

// Close cancels every turn and subagent, denies nothing (pending asks stay
// in the store for the next start), runs the session closers and waits.
func (s *Service) Close() error {
	// Asks whose waits end now stay pending for the next start.
	s.gate.Shutdown()
	s.cancel()
	s.mu.Lock()
	var ids []string
	for id := range s.turns {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.unlisten()
	for _, id := range ids {
		for _, f := range s.cfg.OnSessionClose {
			f(id)
		}
	}
	return nil
}

// Subscribe delivers every push from now until ctx ends.
// A closed service, or a store that cannot be tailed (closed, damaged),
// ends the channel at once.
func (s *Service) Subscribe(ctx context.Context) <-chan Push {
	if err := s.tailStore(); err != nil {
		dead := make(chan Push)
		close(dead)
		return dead
	}
	return s.hub.subscribe(ctx)
}

// Info describes the service.
func (s *Service) Info(ctx context.Context) (Info, error) {
	l := s.current()
	in := Info{Name: "Warden", Version: s.cfg.Version, Demo: l.demo, Caged: s.cfg.Caged(l.sandbox),
		CageReason: s.cfg.CageReason, DataPath: s.st.Path(), StartDir: s.cfg.StartDir, Org: orgInfo(s.cfg.Org)}
	switch {
	case l.demo:
		in.Model = "script:demo"
	case l.provider != nil:
		in.Model = modelName(l.provider)
	}
	return in, nil
}

func (s *Service) newID() string { return uuid.NewString() }

// FrontendReady is the desktop smoke marker; the service has nothing to do.
func (s *Service) FrontendReady(ctx context.Context) error { return nil }
