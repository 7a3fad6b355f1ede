// Package assemble is the one composition root: it builds the object graph
// every front end runs on — the store, the policy engine, the OS cage, the
// tool registry (built-ins, browser, computer.use, MCP), the one gate every
// call passes and the runtime service — so the desktop app, `warden
// serve`, `warden run`, `warden tool`, `warden policy check`, the TUI and
// the bench govern and explain tool calls identically.
//
// It owns the rules that must not differ between front ends: where the
// database is (ResolveDBPath), which of Warden's own paths no tool may write
// (protectedData), how the cage is configured and probed (newCage,
// ProbeCage), which tools exist, and the gate's stages (the checkpoint
// around the invoke; answerers, hooks and post-call checks plug in here).
// No other product code constructs an engine, a cage, a gate, a registry or
// a store (tests, which exercise parts alone, do); front ends pass Options.
package assemble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warden-dev/warden/backend/auditkey"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/checkpoint"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/gate/lineup"
	"github.com/warden-dev/warden/backend/gate/remote"
	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/postcall"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/imagecap"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// Options choose what to open. Zero values mean "from the config file, or
// the default".
type Options struct {
	// DBPath is the database as the user named it (--db); "" means
	// $WARDEN_DB, else store.DefaultPath() (see ResolveDBPath).
	DBPath string
	// ConfigPath is the user config; "" means config.UserPath().
	ConfigPath string
	// Workspace, when set, contributes its .warden/config.toml (narrowing
	// only) and its .mcp.json servers.
	Workspace string
	// Model overrides the configured model spec; "demo" or "" with nothing
	// configured runs the built-in demo script.
	Model   string
	BaseURL string
	// Approval and Sandbox override the configured session defaults.
	Approval *policy.ApprovalPolicy
	Sandbox  *policy.SandboxPolicy
	// Headless: no human is attached (see runtime.Config).
	Headless bool
	// OneShot: the process makes one call and exits (`warden tool`): it
	// starts no watcher (MCP config files, the checkpoint's workspace),
	// whose set-up costs more than the one call it would serve.
	OneShot bool
	// Tool is the one tool a one-shot front end calls (`warden tool`): a
	// build that lacks it refuses the graph before opening anything
	// (NotLinkedError), as for any other part it lacks.
	Tool            string
	ApprovalTimeout *time.Duration
	// MCPListTimeout bounds starting MCP servers to learn their tools.
	MCPListTimeout time.Duration
	// NoModel builds the service without a model provider: front ends that
	// run or explain single calls (`warden tool`, `policy check`) need no
	// model, and a broken [model] section must not stop them.
	NoModel bool
	// LeaveSessions: the service does not resume other sessions at start
	// (runtime.Config.LeaveSessions); for single calls beside a window.
	LeaveSessions bool
	Version       string
	// AllowHosts are --allow-host entries, added to [network] allow.
	AllowHosts []policy.HostPattern
	// StartDir is the folder a new session's workspace field starts with
	// (runtime.Info.StartDir); "" is the working directory Warden was
	// started in.
	StartDir string
	// Forwarder is the binary the cage re-executes as its network
	// forwarder (sandbox.Config.Forwarder); "" is the running binary. The
	// desktop app names the CLI beside it (desktop.CageForwarder).
	Forwarder string
}

// ModelError says the model could not be set up (a bad spec, a missing
// script file, no API key); front ends treat it as a usage error.
type ModelError struct {
	Spec string
	Err  error
}

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// Graph is a running service with everything it runs on.
type Graph struct {
	Config config.Config
	Store  *store.Store
	Engine *policy.Engine
	Cage   *sandbox.Cage
	// CageStatus is the probe's answer at start: what the engine is told.
	CageStatus sandbox.Status
	// Tools is the one registry: built-ins, browser, computer.use and the
	// started MCP servers' tools. The runtime layers its meta tools on top
	// (Graph.Tool finds those too).
	Tools    *tools.Registry
	Monitors *tools.Monitors
	// Browser runs the browser tools' Chromium; MCP is the manager of the
	// user config's servers (Settings). Both are nil in the slim build,
	// which links neither (linked.go).
	Browser *BrowserManager
	MCP     *MCPManager
	// Gate is the one gate every call of every front end passes.
	Gate    *gate.Gate
	Service *runtime.Service
	// Settings reads and writes ConfigPath for the Settings screen and
	// switches Service when a save changes the model or the defaults
	// (nil in the slim build, which serves no Settings screen: linked.go).
	Settings   *SettingsService
	DBPath     string
	ConfigPath string // the user's config.toml
	KeyPath    string // the audit key the store chains with, in ConfigPath's folder

	// MCPPool runs each session's workspace servers (assemble/mcp.go).
	MCPPool    *MCPPool
	mcpService atomic.Pointer[runtime.Service]

	mcpWarnings []string
	// reloadMCP re-reads every workspace's servers (Settings' MCP saves).
	reloadMCP func(ctx context.Context)

	// Checkpoints records every state-changing call's change set and
	// undoes it.
	Checkpoints *checkpoint.Tracker

	// Tiers are the organisation's policy and rules, the user's rules and
	// the workspaces' rules the engine decides under.
	Tiers *orgpolicy.Tiers

	// Lineup is each session's answerers and hooks beside the human
	// (answerers.go); Remote makes and serves the links that answer an ask
	// from another device.
	Lineup    *lineup.Lineup
	Remote    *remote.Service
	workspace string // Options.Workspace, resolved (loaders.go)
	rootsMu   sync.Mutex
	roots     []string
	rootsAt   time.Time

	// Telemetry sends the audit to an OpenTelemetry collector; nil when
	// [telemetry] is off (assemble/telemetry.go).
	Telemetry *TelemetrySender
}

// Open builds the graph. On error nothing is left open.
func Open(ctx context.Context, o Options) (_ *Graph, err error) {
	g := &Graph{}
	defer func() {
		if err != nil {
			g.Close()
		}
	}()
	userPath := o.ConfigPath
	if userPath == "" {
		if userPath, err = config.UserPath(); err != nil {
			return nil, err
		}
	}
	g.ConfigPath = userPath
	// The organisation tier first: a policy that cannot apply stops
	// everything before a store, a cage or a tool exists, and one that
	// applies shapes the first decision.
	if g.Tiers, err = orgpolicy.LoadTiers(orgpolicy.System(), userPath, time.Now()); err != nil {
		return nil, err
	}
	org := g.Tiers.PolicyOrg()
	if g.Config, err = config.Load(userPath, o.Workspace); err != nil {
		return nil, err
	}
	config.ApplyOrg(&g.Config, org)
	if err := applyOrgTelemetry(&g.Config, g.Tiers.Bundle(), userPath); err != nil {
		return nil, err
	}
	g.Config.Warnings = append(g.Config.Warnings, g.Tiers.Warnings()...)
	if _, warn, err := g.Tiers.Workspace(o.Workspace); err != nil {
		return nil, err
	} else {
		g.Config.Warnings = append(g.Config.Warnings, warn...)
	}
	if err := checkFlags(org, o); err != nil {
		return nil, err
	}
	// A build that does not link a part this graph needs says so before
	// anything is opened, so its front end can hand the whole command to
	// the full binary (linked.go).
	if why := notLinked(g.Config, o, userPath); why != "" {
		return nil, &NotLinkedError{Why: why}
	}
	var explicit bool
	if g.DBPath, explicit, err = ResolveDBPath(o.DBPath); err != nil {
		return nil, err
	}
	// The audit key sits in the config folder, which the engine protects
	// and the cage hides (protectedData), never next to the database.
	g.KeyPath = auditkey.PathFor(userPath)
	// The store opens while the cage is set up (its hidden paths resolved,
	// its probe read): neither reads the other, and together they are
	// most of a one-shot `warden tool`'s start. Nothing between returns,
	// so the store is always waited for.
	type opened struct {
		st  *store.Store
		err error
	}
	storeOpened := make(chan opened, 1)
	go func() {
		st, _, err := openStore(ctx, g.DBPath, g.KeyPath, g.telemetryOptions()...)
		storeOpened <- opened{st, err}
	}()
	// The cage first: the engine asks before a file tool reads what the
	// cage hides, from the cage's own list (one list, resolved once).
	protected := protectedData(g.DBPath, explicit, userPath)
	g.Cage = newCage(g.Config, protected, o.Forwarder, o.Version)
	g.Engine = policy.New(policy.Config{ProtectedPaths: protected, Secrets: g.Cage.Hidden(),
		Org: org, Rules: g.Tiers.EngineRules()})
	g.CageStatus = g.Cage.Detect(ctx)
	status := g.CageStatus
	so := <-storeOpened
	if so.err != nil {
		return nil, so.err
	}
	g.Store = so.st
	if err = g.startTelemetry(ctx, o.Version); err != nil {
		return nil, err
	}
	g.Monitors = tools.NewMonitors(g.Cage)
	if g.Tools, err = tools.Builtins(g.Cage, g.Monitors, ""); err != nil {
		return nil, err
	}
	reg := g.Tools
	if o.Workspace != "" {
		g.workspace = realDir(o.Workspace)
	}
	// The browser, computer.use and MCP: the parts a build may leave out
	// (full.go, slim.go); the key MCP's trust is hashed with is made
	// either way, so both builds leave the same files behind.
	mcpKey, err := loadMCPKey(userPath)
	if err != nil {
		return nil, err
	}
	if err := g.openOptional(ctx, o, userPath, mcpKey); err != nil {
		return nil, err
	}
	// Checkpoints: the gate's stage around every invoke, so each
	// state-changing call's change set is recorded and can be undone.
	dbp := g.DBPath
	if g.Checkpoints, err = checkpoint.New(checkpoint.Config{Store: g.Store, Caged: g.Cage.Caged, OneShot: o.OneShot,
		Root: func(ws string) string { return checkpoint.RootFor(dbp, ws) }}); err != nil {
		return nil, err
	}
	// The organisation decides which answerer kinds may answer at all.
	if g.Lineup, err = newLineup(g.Config, userPath, g.Store, g.Cage, org.AnswererAllowed); err != nil {
		return nil, err
	}
	if g.Gate, err = g.newGate(o); err != nil {
		return nil, err
	}
	g.Remote = g.newRemote(org)

	spec := o.Model
	if spec == "" {
		spec = g.Config.Model
	}
	baseURL := o.BaseURL
	if baseURL == "" {
		baseURL = g.Config.BaseURL
	}
	var prov model.Provider
	var demo bool
	if !o.NoModel {
		if prov, demo, err = Provider(spec, baseURL, g.Config.APIKey); err != nil {
			return nil, &ModelError{Spec: spec, Err: err}
		}
	}
	cfg := runtime.Config{
		Store: g.Store, Gate: g.Gate, Tools: reg, Provider: prov, Demo: demo,
		Caged: g.Cage.Caged, CageReason: status.Reason, NetworkProxied: g.Cage.Proxied,
		Approval: g.Config.Approval, Sandbox: g.Config.Sandbox, Version: o.Version,
		LeaveSessions: o.LeaveSessions, StartDir: startDir(o),
	}
	cfg.Checkpoints = g.Checkpoints
	cfg.Org, cfg.Rules, cfg.WorkspaceRules = org, g.Tiers.EngineRules(), g.Tiers.Workspace
	cfg.Images = runtime.ImageConfig{Limits: imagecap.Limits{MaxEdge: g.Config.Images.MaxEdge, MaxBytes: g.Config.Images.MaxBytes},
		Keep: g.Config.Images.Keep}
	cfg.Approval, cfg.Sandbox = sessionDefaults(g.Config, o)
	mons := g.Monitors
	cfg.OnSessionClose = []func(string){
		func(id string) { mons.StopSession(id) },
	}
	cfg.KillMonitor = func(sessionID, id string) error {
		_, err := mons.Stop(sessionID, id)
		return err
	}
	g.wireOptional(&cfg)
	cfg.Answerers, cfg.Remote, cfg.Headless = g.Lineup, g.Remote, o.Headless
	if g.Service, err = runtime.New(ctx, cfg); err != nil {
		return nil, err
	}
	g.mcpService.Store(g.Service)
	if err := g.openSettings(o, userPath, org); err != nil {
		return nil, err
	}
	return g, nil
}

// checkFlags refuses --approval/--sandbox above the organisation's
// ceilings: a front end's flag is a request like any other, refused with
// a message naming the policy.
func checkFlags(org *policy.Org, o Options) error {
	if o.Approval != nil {
		if err := org.CheckApproval(*o.Approval); err != nil {
			return err
		}
	}
	if o.Sandbox != nil {
		if err := org.CheckSandbox(*o.Sandbox); err != nil {
			return err
		}
	}
	return nil
}

// sessionDefaults are the axes of a new session: the flags over the
// config.
func sessionDefaults(c config.Config, o Options) (policy.ApprovalPolicy, policy.SandboxPolicy) {
	ap, sb := c.Approval, c.Sandbox
	if o.Approval != nil {
		ap = *o.Approval
	}
	if o.Sandbox != nil {
		sb = *o.Sandbox
	}
	return ap, sb
}

// Preview is what Open will open, known before it opens anything: a front
// end draws it while the store and the engine start (`warden tui` shows its
// first frame from it).
type Preview struct {
	DBPath   string
	Approval policy.ApprovalPolicy
	Sandbox  policy.SandboxPolicy
}

// PreviewOf reads the config and resolves the database path as Open will,
// without opening the store, the cage or any tool.
func PreviewOf(o Options) (Preview, error) {
	userPath := o.ConfigPath
	if userPath == "" {
		var err error
		if userPath, err = config.UserPath(); err != nil {
			return Preview{}, err
		}
	}
	tiers, err := orgpolicy.LoadTiers(orgpolicy.System(), userPath, time.Now())
	if err != nil {
		return Preview{}, err
	}
	if err := checkFlags(tiers.PolicyOrg(), o); err != nil {
		return Preview{}, err
	}
	c, err := config.Load(userPath, o.Workspace)
	if err != nil {
		return Preview{}, err
	}
	config.ApplyOrg(&c, tiers.PolicyOrg())
	db, _, err := ResolveDBPath(o.DBPath)
	if err != nil {
		return Preview{}, err
	}
	p := Preview{DBPath: db}
	p.Approval, p.Sandbox = sessionDefaults(c, o)
	return p, nil
}

// Close stops everything, the service first.
func (g *Graph) Close() error {
	var errs []error
	if g.Remote != nil {
		errs = append(errs, g.Remote.Close())
	}
	if g.Service != nil {
		errs = append(errs, g.Service.Close())
	}
	errs = append(errs, g.closeOptional()...)
	if g.Monitors != nil {
		g.Monitors.Close()
	}
	if g.Cage != nil {
		errs = append(errs, g.Cage.Close())
	}
	errs = append(errs, g.closeTelemetry())
	if g.Store != nil {
		errs = append(errs, g.Store.Close())
	}
	return errors.Join(errs...)
}

// Tool finds a tool the way the runtime does — the registry plus the
// runtime's meta tools — and MCP tools also by the name the model sees
// (mcp__server__tool).
func (g *Graph) Tool(name string) (tools.Tool, bool) {
	if t, ok := g.Service.Tool(name); ok {
		return t, true
	}
	return g.optionalTool(name)
}

// ToolNotLinked says, for a name Tool does not find, whether the full build
// might have it: nil in the full build, which links every tool.
func (g *Graph) ToolNotLinked(name string) *NotLinkedError {
	if _, ok := g.Tool(name); ok || !partialBuild {
		return nil
	}
	return &NotLinkedError{Why: "a tool named " + name}
}

// ToolNames lists every tool Tool finds, sorted.
func (g *Graph) ToolNames() []string {
	var names []string
	for _, t := range g.Service.Tools() {
		names = append(names, t.Name())
	}
	return names
}

// newGate builds the graph's one gate: the engine decides, the store
// records and holds the human's seat, the checkpoint is the stage around
// the invoke.
func (g *Graph) newGate(o Options) (*gate.Gate, error) {
	network, err := networkConfig(g.Config, o.AllowHosts)
	if err != nil {
		return nil, err
	}
	timeout := g.Config.ApprovalTimeout
	if o.ApprovalTimeout != nil {
		timeout = *o.ApprovalTimeout
	}
	return NewGate(GateParts{Engine: g.Engine, Store: g.Store, Headless: o.Headless, ApprovalTimeout: timeout,
		Checkpoints: g.Checkpoints, Network: network, Lineup: g.Lineup.For})
}

// GateParts are what a gate is built from. Open passes the graph's; a
// harness that measures the gate and the cage alone (bench/cmd/wardenbench)
// passes an engine and a stand-in human, and gets the same gate.
type GateParts struct {
	Engine *policy.Engine
	// Store records and seats the human; nil records nothing.
	Store           *store.Store
	Checkpoints     *checkpoint.Tracker // nil takes none
	Headless        bool
	ApprovalTimeout time.Duration
	Network         gate.NetworkConfig
	// Approver stands in for the human (a harness); nil: the seat.
	Approver gate.Approver
	// Lineup adds each session's answerers and hooks; nil: none.
	Lineup gate.LineupFunc
}

// NewGate is the one place a gate is constructed. Answerers, hooks and
// post-call checks are wired here.
func NewGate(p GateParts) (*gate.Gate, error) {
	cfg := gate.Config{Decider: p.Engine, Store: p.Store, Headless: p.Headless, ApprovalTimeout: p.ApprovalTimeout,
		Network: p.Network, Approver: p.Approver, Lineup: p.Lineup}
	if p.Checkpoints != nil {
		cfg.Checkpoint = p.Checkpoints
		// What a call wrote that a program outside the cage would run is
		// reverted from its checkpoint before the call returns.
		cfg.PostCall = append(cfg.PostCall, postcall.New(nil))
	}
	return gate.New(cfg)
}

// networkConfig is the gate's network input: the [network] table (presets
// included) plus the command line's --allow-host entries.
func networkConfig(c config.Config, allow []policy.HostPattern) (gate.NetworkConfig, error) {
	rules, err := c.Network.HostRules()
	if err != nil {
		return gate.NetworkConfig{}, fmt.Errorf("assemble: %w", err)
	}
	return gate.NetworkConfig{Rules: rules.With(allow...), AskTimeout: c.Network.AskTimeout}, nil
}

// startDir is the folder a new session starts in: the --workspace of a
// front end that names one, else the working directory (a project folder
// Warden was started from; the home folder for a menu launch).
func startDir(o Options) string {
	switch {
	case o.StartDir != "":
		return o.StartDir
	case o.Workspace != "":
		return o.Workspace
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	return dir
}
