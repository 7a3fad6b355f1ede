package policy

import "time"

// ApprovalPolicy is the procedural axis: when a human is asked.
type ApprovalPolicy int

const (
	OnRequest ApprovalPolicy = iota // default
	Never
	Always
)

// SandboxKind is the structural axis: what may happen at all.
type SandboxKind int

const (
	WorkspaceWrite SandboxKind = iota // default
	ReadOnly
	DangerFullAccess
)

// SandboxPolicy is the structural axis with its WorkspaceWrite options.
type SandboxPolicy struct {
	Kind          SandboxKind `json:"kind"`
	NetworkAccess bool        `json:"network_access,omitempty"`
	WritableRoots []string    `json:"writable_roots,omitempty"` // absolute, resolved
}

// Reason is why a call was asked or denied. Stable kebab-case strings.
type Reason string

const (
	ReasonSandboxRejected    Reason = "sandbox-rejected"
	ReasonPolicyAlways       Reason = "policy-always"
	ReasonDestructiveEffect  Reason = "destructive-effect"
	ReasonUnknownCommand     Reason = "unknown-command"
	ReasonNetworkRequest     Reason = "network-request"
	ReasonUntrustedMcpServer Reason = "untrusted-mcp-server"
	ReasonProtectedPath      Reason = "protected-path"
	ReasonDesktopControl     Reason = "desktop-control"
	// ReasonOutsideWorkspace: under DangerFullAccess, a write outside the
	// workspace, its writable roots and /tmp.
	ReasonOutsideWorkspace Reason = "outside-workspace"
	// ReasonEscalation: the model asked to run a command beyond the cage
	// the engine's claim gives it ("escalate": true). Only a human
	// answers it, one call at a time.
	ReasonEscalation Reason = "escalation"
	// ReasonSecretRead: a file tool reads something the cage hides (keys,
	// credentials, browser profiles, Warden's own config and data, the
	// user's deny_read). Only a human answers it, one read at a time.
	ReasonSecretRead Reason = "secret-read"
	// Deny-only reasons.
	ReasonPlanningFreeze Reason = "planning-freeze"
	ReasonNoApprover     Reason = "no-approver"
	ReasonUserDenied     Reason = "user-denied"
	// ReasonAnswererDenied: an answerer (a command, a reviewer model)
	// answered the ask no.
	ReasonAnswererDenied Reason = "answerer-denied"
	// ReasonHookDenied: a pre-call hook refused a call the chain allowed
	// or would ask about (hooks may only tighten).
	ReasonHookDenied Reason = "hook-denied"
)

// Risk is a UI hint only; the engine never reads it.
type Risk string

const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// EffectKind names what a call would do.
type EffectKind string

const (
	EffectRead        EffectKind = "read"
	EffectMeta        EffectKind = "meta"
	EffectWrite       EffectKind = "write"
	EffectDestructive EffectKind = "destructive"
	EffectNetwork     EffectKind = "network"
	EffectExec        EffectKind = "exec"
	EffectBrowser     EffectKind = "browser"
	EffectDesktop     EffectKind = "desktop"
	EffectMcp         EffectKind = "mcp"
)

// Effect is one thing a call would do, computed by the tool from its
// arguments before it runs. Only the fields of its Kind are set.
type Effect struct {
	Kind EffectKind `json:"kind"`

	// Write, Destructive, Read: absolute, symlink-resolved paths.
	Paths []string `json:"paths,omitempty"`
	// Destructive: why, in words ("removes files recursively").
	Why string `json:"why,omitempty"`
	// Network: hosts where they can be read.
	Hosts []string `json:"hosts,omitempty"`
	// Exec: the shell command and the directory it runs in.
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// Escalate (Exec): the model asks to run the command beyond the cage
	// the engine's claim would give it; it always asks a human.
	Escalate bool `json:"escalate,omitempty"`
	// Exec: the symbolic links on disk that the command's paths pass
	// through (link path -> target as readlink gives it), found by the tool
	// with ShellLinks, so the classifier resolves paths as the kernel will.
	Links map[string]string `json:"links,omitempty"`
	// Browser: action verb and the origin (scheme://host:port) it acts on.
	// Desktop: "screenshot" or "control".
	Action string `json:"action,omitempty"`
	Origin string `json:"origin,omitempty"`
	// Mcp: server, tool, the server-declared hint, and whether the caller
	// found the server trusted with its current launch config and the tool's
	// current description/schema hash.
	Server       string `json:"server,omitempty"`
	Tool         string `json:"tool,omitempty"`
	ReadOnlyHint bool   `json:"read_only_hint,omitempty"`
	Trusted      bool   `json:"trusted,omitempty"`
	// Meta: whether the meta tool mutates state (settings, grants...).
	Mutates bool `json:"mutates,omitempty"`
}

// Call is one tool call as the engine sees it.
type Call struct {
	Tool    string   `json:"tool"`
	Effects []Effect `json:"effects"`
}

// GrantScope is where a grant lives.
type GrantScope string

const (
	ScopeSession   GrantScope = "session"
	ScopeWorkspace GrantScope = "workspace"
)

// Grant turns an Ask into an Allow for one signature and the reasons it was
// given for. It never relaxes a Deny.
type Grant struct {
	ID        string     `json:"id"`
	Signature string     `json:"signature"`
	Scope     GrantScope `json:"scope"`
	Reasons   []Reason   `json:"reasons"`
	ExpiresAt time.Time  `json:"expires_at,omitzero"` // zero: never
}

// Session is everything about the session the engine needs.
type Session struct {
	Workspace string         `json:"workspace"` // absolute, resolved
	Approval  ApprovalPolicy `json:"approval"`
	Sandbox   SandboxPolicy  `json:"sandbox"`
	Planning  bool           `json:"planning"`
	// Caged says whether shell commands will run inside the OS cage.
	Caged bool `json:"caged"`
	// NetworkProxied says that a caged command's only way out is Warden's
	// proxy, which decides each destination host:port itself
	// (sandbox.Cage.Proxied: bwrap's own network namespace, network
	// admitted). The command is then not asked for as a whole for reaching
	// the network: that ask would be a second one for the same host. It
	// counts only together with Caged and network access.
	NetworkProxied bool      `json:"network_proxied,omitempty"`
	Grants         []Grant   `json:"grants,omitempty"`
	Now            time.Time `json:"now"` // for grant expiry; Decide reads no clock
}

// Verdict is the kind of a decision.
type Verdict string

const (
	VerdictAllow Verdict = "allow"
	VerdictAsk   Verdict = "ask"
	VerdictDeny  Verdict = "deny"
)

// Step is one line of a decision's trace: what a chain step saw and concluded.
type Step struct {
	Step      string `json:"step"`
	Saw       string `json:"saw"`
	Concluded string `json:"concluded"`
}

// Layer names the part of the chain (or the answer) that decided a call.
// Every decision carries one; the audit row and the exported telemetry
// record show it. Stable kebab-case strings.
type Layer string

const (
	LayerPlanning Layer = "planning"  // the planning freeze denied it
	LayerSandbox  Layer = "sandbox"   // the structural axis denied it
	LayerOrg      Layer = "org"       // an organisation ceiling or org rule decided it
	LayerRule     Layer = "rule"      // a user or workspace rule decided it
	LayerPolicy   Layer = "policy"    // the approval policy allowed, asked or denied it
	LayerGrant    Layer = "grant"     // a standing grant turned an ask into an allow
	LayerMcpTrust Layer = "mcp-trust" // a trusted MCP server's read-only tool
	LayerAnswerer Layer = "answerer"  // a hook, command or reviewer model answered the ask
	LayerHuman    Layer = "human"     // a human answered the ask
)

// Decision is the engine's answer for one call.
type Decision struct {
	Verdict   Verdict  `json:"decision"`
	Source    string   `json:"source,omitempty"`  // allow
	Reasons   []Reason `json:"reasons,omitempty"` // ask
	Signature string   `json:"signature"`
	Reason    Reason   `json:"reason,omitempty"` // deny
	Detail    string   `json:"detail,omitempty"` // deny
	Remedy    string   `json:"remedy,omitempty"` // deny
	Trace     []Step   `json:"trace"`
	// AlwaysRefused is set on an Ask whose "always" answer would store a
	// grant that can never apply (a protected path is approved one write at
	// a time): the prompt offers only "once" and shows why.
	AlwaysRefused string `json:"always_refused,omitempty"`
	// Layer is what decided; LayerDetail names it exactly (a rule's
	// file:line and tier, a grant id, an answerer's kind and name, the
	// front end a human answered from, the org policy's digest).
	Layer       Layer  `json:"layer,omitempty"`
	LayerDetail string `json:"layer_detail,omitempty"`
	// Cage is the OS cage a shell call (shell.exec, monitor.start) runs
	// in when no human answers it: on an Allow, the cage it runs in; on an
	// Ask, the cage it runs in should something other than a human allow
	// it. Nil for calls that run no command.
	Cage *Cage `json:"cage,omitempty"`
	// HumanCage, on an Ask, is the cage the call runs in once a human
	// approves it (the gate moves it to Cage then).
	HumanCage *Cage `json:"human_cage,omitempty"`
}
