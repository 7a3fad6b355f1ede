package policy

import (
	"path/filepath"
	"strings"
)

// Config is what the engine is compiled with once, at start.
type Config struct {
	// ProtectedPaths are absolute files or folders that are cage-protected
	// wherever a session's workspace is: Warden's own config and data
	// folders. Everything under them is protected too.
	ProtectedPaths []string
	// Org is the organisation policy's ceilings; nil: none.
	Org *Org
	// Rules are the organisation's and the user's rules, compiled; a
	// session carries its workspace's (Session.Rules).
	Rules *RuleSet
	// Secrets are the absolute paths the OS cage hides (SecretPaths,
	// resolved through symlinks by the cage): a file tool's read of one
	// asks a human (SecretRead).
	Secrets []string
}

// Engine is the compiled policy. It is immutable after New, so Decide is safe
// for concurrent use.
type Engine struct {
	extra   []string
	secrets []string
	org     *Org
	rules   *RuleSet
	// fast holds the traces of calls that only read, per
	// [planning][sandbox][approval]; they are shared and must not be modified.
	fast [2][3][3][]Step
}

// New compiles cfg. Relative protected paths are ignored: the engine matches
// absolute, resolved paths only.
func New(cfg Config) *Engine {
	e := &Engine{org: cfg.Org, rules: cfg.Rules}
	for _, p := range cfg.ProtectedPaths {
		if filepath.IsAbs(p) {
			e.extra = append(e.extra, filepath.Clean(p))
		}
	}
	for _, p := range cfg.Secrets {
		if filepath.IsAbs(p) && filepath.Clean(p) != "/" {
			e.secrets = append(e.secrets, filepath.Clean(p))
		}
	}
	for pl := 0; pl < 2; pl++ {
		for sb := SandboxKind(0); int(sb) < len(sandboxNames); sb++ {
			for ap := ApprovalPolicy(0); int(ap) < len(approvalNames); ap++ {
				e.fast[pl][sb][ap] = fastTrace(pl == 1, sb, ap)
			}
		}
	}
	return e
}

// ExtraProtected returns the configured protected folders, for the OS cage.
func (e *Engine) ExtraProtected() []string { return append([]string(nil), e.extra...) }

// ProtectedTier is the package-level ProtectedTier plus the configured
// folders, which are cage-protected.
func (e *Engine) ProtectedTier(path, workspace string) (cage, edit bool) {
	if !filepath.IsAbs(path) && !strings.HasPrefix(path, "~") && workspace != "" {
		path = filepath.Join(workspace, path)
	}
	for _, p := range e.extra {
		if within(path, p) {
			return true, true
		}
	}
	return ProtectedTier(path, workspace)
}

func fastTrace(planning bool, sb SandboxKind, ap ApprovalPolicy) []Step {
	pl := Step{Step: "planning", Saw: "planning off", Concluded: "no veto"}
	if planning {
		pl = Step{Step: "planning", Saw: "planning on; every effect is read or meta", Concluded: "no veto"}
	}
	t := []Step{
		pl,
		{Step: "sandbox", Saw: sb.String() + "; every effect is read or meta", Concluded: "admissible"},
		{Step: "approval", Saw: ap.String() + "; no structural reason", Concluded: "allow"},
		{Step: "grants", Saw: "nothing asked", Concluded: "not needed"},
		{Step: "mcp-trust", Saw: "no MCP effect", Concluded: "not needed"},
	}
	return t[:len(t):len(t)]
}

const sourcePolicy = "sandbox+policy"

// Decide runs the chain of permission-model.md for one call. It does no I/O
// and reads no clock: paths in effects must be absolute and resolved, and
// s.Now dates the grants.
func (e *Engine) Decide(call Call, s Session) Decision {
	// A session above an organisation ceiling (a front end that did not
	// check, an old session) is decided at the ceiling.
	clamped := ""
	if o := e.org; o.Active() && (len(o.Approvals) > 0 || o.Sandbox != nil || o.NoNetwork) {
		if a, changed := e.org.ClampApproval(s.Approval); changed {
			clamped = "approval " + s.Approval.String() + " → " + a.String()
			s.Approval = a
		}
		if sb, changed := e.org.ClampSandbox(s.Sandbox); changed {
			if clamped != "" {
				clamped += ", "
			}
			clamped += "sandbox " + describeSandbox(s.Sandbox) + " → " + describeSandbox(sb)
			s.Sandbox = sb
		}
	}
	if clamped == "" && e.onlyReads(&call, &s) && !e.rules.mayMatchRead(&call, s.Workspace) && !s.Rules.mayMatchRead(&call, s.Workspace) {
		pl := 0
		if s.Planning {
			pl = 1
		}
		return Decision{Verdict: VerdictAllow, Source: sourcePolicy, Signature: call.Tool,
			Trace: e.fast[pl][s.Sandbox.Kind][s.Approval], Layer: LayerPolicy}
	}
	d := e.decideChain(call, s)
	if d.Layer == "" {
		d.Layer, d.LayerDetail = layerOf(&d)
	}
	if clamped != "" {
		step := Step{Step: "org", Saw: "the session is above the ceiling of " + e.org.Name() + "; " + e.org.Detail(),
			Concluded: "decided at the ceiling: " + clamped}
		d.Trace = append([]Step{step}, d.Trace...)
		if d.Layer == LayerPolicy || d.Layer == LayerSandbox {
			d.Layer, d.LayerDetail = LayerOrg, e.org.Detail()+"; "+clamped
		}
	}
	return d
}

// Org is the organisation policy the engine was compiled with (nil: none).
func (e *Engine) Org() *Org { return e.org }

// Rules are the organisation's and the user's compiled rules.
func (e *Engine) Rules() *RuleSet { return e.rules }

func describeSandbox(sb SandboxPolicy) string {
	if sb.Kind == WorkspaceWrite && sb.NetworkAccess {
		return sb.Kind.String() + "+network"
	}
	return sb.Kind.String()
}

// layerOf names the part of the chain that reached d, from what the chain
// recorded: one place, so the trace, the source and the layer never
// disagree.
func layerOf(d *Decision) (Layer, string) {
	switch d.Verdict {
	case VerdictDeny:
		switch d.Reason {
		case ReasonPlanningFreeze:
			return LayerPlanning, ""
		case ReasonSandboxRejected:
			return LayerSandbox, ""
		}
	case VerdictAllow:
		switch {
		case strings.HasPrefix(d.Source, "rule:"):
			return LayerRule, strings.TrimPrefix(d.Source, "rule:")
		case strings.HasPrefix(d.Source, "session-grant:"), strings.HasPrefix(d.Source, "workspace-rule:"):
			return LayerGrant, d.Source
		case strings.HasPrefix(d.Source, "trusted-mcp:"):
			return LayerMcpTrust, strings.TrimPrefix(d.Source, "trusted-mcp:")
		}
	}
	return LayerPolicy, ""
}

// decideChain runs the full chain; it takes its own copies so that Decide's
// arguments stay on the stack for the fast path.
func (e *Engine) decideChain(call Call, s Session) Decision {
	ev := evaluation{e: e, call: &call, s: &s}
	return ev.run()
}

// onlyReads finds the calls that every sandbox admits and no approval policy
// but Always asks about, so the common read path allocates nothing.
func (e *Engine) onlyReads(call *Call, s *Session) bool {
	if len(call.Effects) == 0 || s.Approval == Always || s.Approval < 0 || int(s.Approval) >= len(approvalNames) ||
		s.Sandbox.Kind < 0 || int(s.Sandbox.Kind) >= len(sandboxNames) {
		return false
	}
	return onlyReadOrMeta(call.Effects, s.Planning) && !e.readsSecret(call.Effects, s.Workspace)
}
