package policy

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Tier is where a setting or a rule comes from: the organisation's policy
// (/etc/warden), the user's folder (~/.config/warden) or the workspace's
// (<ws>/.warden). Stable kebab-case strings.
type Tier string

const (
	TierOrg       Tier = "org"
	TierUser      Tier = "user"
	TierWorkspace Tier = "workspace"
)

// Reasons the organisation policy and the rules add.
const (
	// ReasonOrgCeiling: the call is above a ceiling of the organisation
	// policy (network off, a host outside the host ceiling, an MCP server
	// outside the allowlist). Deny only.
	ReasonOrgCeiling Reason = "org-ceiling"
	// ReasonRuleDenied: a deny rule matched (Decision.Layer says whose).
	ReasonRuleDenied Reason = "rule-denied"
	// ReasonRuleAsk: a user or workspace ask rule matched. A grant may
	// cover it.
	ReasonRuleAsk Reason = "rule-ask"
	// ReasonOrgRuleAsk: an organisation ask rule matched. No grant covers
	// it: the organisation wants each such call seen by a human.
	ReasonOrgRuleAsk Reason = "org-rule-ask"
)

// Org is the organisation policy as the engine reads it: the ceilings no
// lower tier can widen. backend/orgpolicy compiles it from the verified
// bundle. The zero value (and nil) is "no organisation policy".
type Org struct {
	// File is the bundle (/etc/warden/policy.toml); Digest its
	// "sha256:<hex>". Signed says it was verified against allowed_signers.
	File   string
	Digest string
	Signed bool
	// Approvals are the approval policies allowed; empty allows every one.
	Approvals []ApprovalPolicy
	// Sandbox is the widest sandbox; nil allows every one.
	Sandbox *SandboxKind
	// NoNetwork: network may never be turned on, and no network effect is
	// admitted in any sandbox.
	NoNetwork bool
	// Hosts is the host ceiling: when not empty, only these hosts may ever
	// be reached. DenyHosts are never reached. Neither can be widened by a
	// lower tier, a grant or an answer.
	Hosts     []HostPattern
	DenyHosts []HostPattern
	// MCPServers, when MCPRestricted, are the only MCP servers that may be
	// started (by name; the launch-config hash is checked where servers
	// start, backend/orgpolicy.AllowsServer).
	MCPRestricted bool
	MCPServers    []string
	// Answerers may answer asks (command, model, human, remote); empty
	// allows every kind.
	Answerers []string
	// MaxGrant caps the lifetime of a grant ("always" lasts at most this);
	// zero: no cap.
	MaxGrant time.Duration
	// UserAllow and WorkspaceAllow say whether allow rules of those tiers
	// apply (deny and ask rules always do).
	UserAllow      bool
	WorkspaceAllow bool
}

// Active reports whether an organisation policy applies.
func (o *Org) Active() bool { return o != nil && o.File != "" }

// Detail is what a decision the policy shaped names: "policy:
// sha256:… (/etc/warden/policy.toml)".
func (o *Org) Detail() string {
	if !o.Active() {
		return ""
	}
	return "policy: " + o.Digest + " (" + o.File + ")"
}

// Name is how messages name the policy.
func (o *Org) Name() string {
	return "your organisation's policy " + o.File + " (" + shortDigest(o.Digest) + ")"
}

func shortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12] + "…"
	}
	return d
}

// ApprovalAllowed reports whether a is within the approval ceiling.
func (o *Org) ApprovalAllowed(a ApprovalPolicy) bool {
	if !o.Active() || len(o.Approvals) == 0 {
		return true
	}
	for _, x := range o.Approvals {
		if x == a {
			return true
		}
	}
	return false
}

// SandboxWidth orders sandboxes from narrowest to widest.
func SandboxWidth(k SandboxKind) int {
	switch k {
	case ReadOnly:
		return 0
	case WorkspaceWrite:
		return 1
	}
	return 2
}

// ApprovalStrictness orders approval policies from least to most strict.
func ApprovalStrictness(a ApprovalPolicy) int {
	switch a {
	case Never:
		return 0
	case OnRequest:
		return 1
	}
	return 2
}

// CeilingError says a request is above a ceiling of the organisation
// policy. Front ends show it as it is: it names the policy and the ceiling.
type CeilingError struct {
	Policy  string // the bundle's file
	Digest  string
	Axis    string // "approval", "sandbox", "network", "writable roots", "mcp server", "grant"
	Asked   string
	Ceiling string
}

func (e *CeilingError) Error() string {
	// The refusal and the ceiling first: a status line may cut the end.
	return fmt.Sprintf("%s %s is refused: your organisation's policy allows %s (set in %s, %s)",
		e.Axis, e.Asked, e.Ceiling, e.Policy, shortDigest(e.Digest))
}

func (o *Org) ceiling(axis, asked, ceiling string) *CeilingError {
	return &CeilingError{Policy: o.File, Digest: o.Digest, Axis: axis, Asked: asked, Ceiling: ceiling}
}

// ApprovalCeiling describes the allowed approval policies.
func (o *Org) ApprovalCeiling() string {
	if !o.Active() || len(o.Approvals) == 0 {
		return "any"
	}
	parts := make([]string, len(o.Approvals))
	for i, a := range o.Approvals {
		parts[i] = a.String()
	}
	return "only " + strings.Join(parts, ", ")
}

// SandboxCeiling describes the widest sandbox and the network ceiling.
func (o *Org) SandboxCeiling() string {
	if !o.Active() {
		return "any"
	}
	s := "any sandbox"
	if o.Sandbox != nil {
		s = "at most " + o.Sandbox.String()
	}
	if o.NoNetwork {
		s += ", network off"
	}
	return s
}

// CheckApproval refuses an approval policy outside the ceiling.
func (o *Org) CheckApproval(a ApprovalPolicy) error {
	if o.ApprovalAllowed(a) {
		return nil
	}
	return o.ceiling("approval", a.String(), o.ApprovalCeiling())
}

// CheckSandbox refuses a sandbox wider than the ceiling, or network when
// the policy turns it off.
func (o *Org) CheckSandbox(sb SandboxPolicy) error {
	if !o.Active() {
		return nil
	}
	if o.Sandbox != nil && SandboxWidth(sb.Kind) > SandboxWidth(*o.Sandbox) {
		return o.ceiling("sandbox", sb.Kind.String(), o.SandboxCeiling())
	}
	if o.NoNetwork && sb.NetworkAccess {
		return o.ceiling("network", "on", "no network")
	}
	return nil
}

// ClampApproval is the nearest allowed approval policy: a itself when
// allowed, else the least strict allowed one that is stricter than a, else
// the strictest allowed. changed says it moved.
func (o *Org) ClampApproval(a ApprovalPolicy) (ApprovalPolicy, bool) {
	if o.ApprovalAllowed(a) {
		return a, false
	}
	best, found := a, false
	for _, x := range o.Approvals {
		if ApprovalStrictness(x) > ApprovalStrictness(a) && (!found || ApprovalStrictness(x) < ApprovalStrictness(best)) {
			best, found = x, true
		}
	}
	if !found {
		for _, x := range o.Approvals {
			if !found || ApprovalStrictness(x) > ApprovalStrictness(best) {
				best, found = x, true
			}
		}
	}
	return best, true
}

// ClampSandbox is the widest permitted sandbox at or below sb.
func (o *Org) ClampSandbox(sb SandboxPolicy) (SandboxPolicy, bool) {
	if !o.Active() {
		return sb, false
	}
	out, changed := sb, false
	if o.Sandbox != nil && SandboxWidth(sb.Kind) > SandboxWidth(*o.Sandbox) {
		out.Kind, changed = *o.Sandbox, true
	}
	if o.NoNetwork && out.NetworkAccess {
		out.NetworkAccess, changed = false, true
	}
	return out, changed
}

// AllowApplies reports whether allow rules of a tier apply: the
// organisation's always, the user's unless the policy says otherwise, a
// workspace's only when the policy permits them (a repository's rules may
// otherwise only deny or ask).
func (o *Org) AllowApplies(t Tier) bool {
	switch t {
	case TierOrg:
		return true
	case TierUser:
		return !o.Active() || o.UserAllow
	case TierWorkspace:
		return o.Active() && o.WorkspaceAllow
	}
	return false
}

// ServerAllowed reports whether an MCP server name is on the allowlist.
func (o *Org) ServerAllowed(name string) bool {
	if !o.Active() || !o.MCPRestricted {
		return true
	}
	for _, n := range o.MCPServers {
		if n == name {
			return true
		}
	}
	return false
}

// AnswererAllowed reports whether an answerer kind may answer asks.
func (o *Org) AnswererAllowed(kind string) bool {
	if !o.Active() || len(o.Answerers) == 0 {
		return true
	}
	for _, k := range o.Answerers {
		if k == kind {
			return true
		}
	}
	return false
}

// hostRefusal says why the host ceiling refuses host ("host" or
// "host:port"), or "" when it admits it. Loopback is not network.
func (o *Org) hostRefusal(hostport string) string {
	if !o.Active() || !o.NoNetwork && len(o.DenyHosts) == 0 && len(o.Hosts) == 0 {
		return ""
	}
	host, port := splitHostPort(hostport)
	if host == "" || isLoopback(host) {
		return ""
	}
	if o.NoNetwork {
		return "network is off"
	}
	for _, p := range o.DenyHosts {
		// An unknown port may be the denied one.
		if p.Matches(host, port) || port == 0 && (HostPattern{Host: p.Host}).Matches(host, 0) {
			return "deny pattern " + p.String()
		}
	}
	if len(o.Hosts) == 0 {
		return ""
	}
	for _, p := range o.Hosts {
		if p.Matches(host, port) {
			return ""
		}
	}
	return "outside the host ceiling"
}

// splitHostPort reads "host", "host:port", "[v6]:port" or a bare v6
// address; port 0 is unknown.
func splitHostPort(s string) (string, int) {
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, _ := strconv.Atoi(p)
		return canonicalName(h), n
	}
	return canonicalName(strings.Trim(s, "[]")), 0
}

// canonicalName is CanonicalHost without its address parse for the common
// case of a name already in canonical form (lower case, a letter first, no
// trailing dot): no IP address looks like that.
func canonicalName(h string) string {
	if h == "" || h[0] < 'a' || h[0] > 'z' || h[len(h)-1] == '.' {
		return CanonicalHost(h)
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return CanonicalHost(h)
		}
	}
	return h
}
