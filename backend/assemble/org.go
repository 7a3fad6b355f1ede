package assemble

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/policy"
)

// orgMCPFilter drops the MCP servers the organisation's allowlist does not
// name with their policy hash, from the user's config and every
// workspace's alike, and reports each as a config error (shown in
// Settings and by `warden mcp`). Without a restricting policy it is nil.
func orgMCPFilter(b *orgpolicy.Bundle) func(mcpconfig.Config) mcpconfig.Config {
	if b == nil || !b.Org.MCPRestricted {
		return nil
	}
	return func(c mcpconfig.Config) mcpconfig.Config {
		names := make([]string, 0, len(c.Servers))
		for name := range c.Servers {
			names = append(names, name)
		}
		sort.Strings(names)
		out := mcpconfig.Config{Servers: map[string]mcpconfig.ServerConfig{}, Errors: c.Errors}
		for _, name := range names {
			s := c.Servers[name]
			h := s.PolicyHash()
			if b.AllowsServer(name, h) {
				out.Servers[name] = s
				continue
			}
			out.Errors = append(out.Errors, fmt.Errorf("%s: MCP server %q (%s) is ignored: it is not on the allowlist of %s",
				s.Source, name, h, b.Org.Name()))
		}
		return out
	}
}

// MCPConfig is the MCP servers of the user's config and a workspace as
// Open's pool sees them, for a front end without a graph (`warden mcp`):
// an organisation policy that cannot apply is an error, and servers off
// its allowlist are dropped and reported.
func MCPConfig(userPath, workspace string) (mcpconfig.Config, error) {
	tiers, err := orgpolicy.LoadTiers(orgpolicy.System(), userPath, time.Now())
	if err != nil {
		return mcpconfig.Config{}, err
	}
	c := mcpconfig.LoadConfig(userPath, workspace)
	if f := orgMCPFilter(tiers.Bundle()); f != nil {
		c = f(c)
	}
	return c, nil
}

// WorkspaceRules are a workspace's compiled rules, for a front end that
// builds its own policy.Session (`warden tool`, `policy check`).
func (g *Graph) WorkspaceRules(workspace string) (*policy.RuleSet, error) {
	rs, _, err := g.Tiers.Workspace(workspace)
	return rs, err
}

// MaxGrant is the organisation's longest grant lifetime (0: no cap).
func (g *Graph) MaxGrant() time.Duration {
	if org := g.Engine.Org(); org.Active() {
		return org.MaxGrant
	}
	return 0
}

// PolicyView is the effective policy of all tiers, with where each value
// came from (`warden policy show`).
type PolicyView struct {
	// Org is the organisation tier; nil when none applies.
	Org *OrgView `json:"org"`
	// Defaults are the axes new sessions start with.
	Defaults []Setting `json:"defaults"`
	// Rules are every tier's rules, in the order they apply.
	Rules []policy.Rule `json:"rules"`
	// RuleFiles are the rules files read (or looked for), by tier.
	RuleFiles []Setting `json:"rule_files"`
	// MCP are the configured servers with their policy hash and whether
	// the organisation allows them.
	MCP []MCPView `json:"mcp"`
	// Telemetry is the audit export as it applies, key by key with the
	// tier it came from (an organisation's keys are pinned).
	Telemetry []config.TelemetrySetting `json:"telemetry"`
	Warnings  []string                  `json:"warnings"`

	org *policy.Org
}

// Applies says whether allow rules of a tier apply.
func (v PolicyView) Applies(t policy.Tier) bool { return v.org.AllowApplies(t) }

// OrgView is the organisation bundle as loaded.
type OrgView struct {
	File       string                `json:"file"`
	Digest     string                `json:"digest"`
	Signed     bool                  `json:"signed"`
	Signer     string                `json:"signer,omitempty"` // fingerprint and allowed_signers line
	Expires    string                `json:"expires,omitempty"`
	Ceilings   []Setting             `json:"ceilings"`
	MCPAllowed []orgpolicy.MCPServer `json:"mcp_allowed,omitempty"`
	Restricted bool                  `json:"mcp_restricted"`
}

// Setting is one value and where it came from.
type Setting struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// MCPView is one configured MCP server under the organisation's allowlist.
type MCPView struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	Hash    string `json:"policy_hash"`
	Allowed bool   `json:"allowed"`
}

// Policy reads every tier as Open does, without opening anything else,
// and describes the result. An organisation policy that cannot apply is
// the error.
func Policy(o Options) (PolicyView, error) {
	var v PolicyView
	userPath := o.ConfigPath
	if userPath == "" {
		var err error
		if userPath, err = config.UserPath(); err != nil {
			return v, err
		}
	}
	tiers, err := orgpolicy.LoadTiers(orgpolicy.System(), userPath, time.Now())
	if err != nil {
		return v, err
	}
	org := tiers.PolicyOrg()
	v.org = org
	if p := tiers.Org; p != nil {
		ov := &OrgView{File: p.File, Digest: p.Digest, Signed: p.Signed, MCPAllowed: p.MCP, Restricted: p.Org.MCPRestricted}
		if p.Signer != nil {
			ov.Signer = fmt.Sprintf("%s (%s line %d)", p.Signer.Fingerprint(), p.SignersFile, p.Signer.Line)
		}
		if !p.Expires.IsZero() {
			ov.Expires = p.Expires.UTC().Format(time.RFC3339)
		}
		ov.Ceilings = orgCeilings(org)
		v.Org = ov
	}
	// Defaults, tier by tier: what each file changed.
	def := config.Default()
	user, err := config.Load(userPath, "")
	if err != nil {
		return v, err
	}
	ws := user
	if o.Workspace != "" {
		if ws, err = config.Load(userPath, o.Workspace); err != nil {
			return v, err
		}
	}
	final := ws
	config.ApplyOrg(&final, org)
	if err := applyOrgTelemetry(&final, tiers.Bundle(), userPath); err != nil {
		return v, err
	}
	orgFile := ""
	if b := tiers.Bundle(); b != nil {
		orgFile = b.File
	}
	v.Telemetry = config.TelemetrySources(final.Telemetry, final.TelemetryUser, orgFile, userPath)
	wsFile := ""
	if o.Workspace != "" {
		wsFile = config.WorkspacePath(o.Workspace)
	}
	src := func(d, u, w, f string) string {
		switch {
		case f != w:
			return "lowered to the ceiling of " + org.Name()
		case w != u:
			return wsFile
		case u != d:
			return userPath
		}
		return "default"
	}
	ap := func(c config.Config) string { return c.Approval.String() }
	sb := func(c config.Config) string { return c.Sandbox.Kind.String() }
	nw := func(c config.Config) string {
		if c.Sandbox.NetworkAccess {
			return "on"
		}
		return "off"
	}
	for _, s := range []struct {
		name string
		f    func(config.Config) string
	}{{"approval", ap}, {"sandbox", sb}, {"network", nw}} {
		v.Defaults = append(v.Defaults, Setting{Name: s.name, Value: s.f(final), Source: src(s.f(def), s.f(user), s.f(ws), s.f(final))})
	}
	v.Warnings = append(v.Warnings, final.Warnings...)
	v.Warnings = append(v.Warnings, tiers.Warnings()...)
	// Rules of every tier.
	v.Rules = tiers.EngineRules().Rules()
	v.RuleFiles = append(v.RuleFiles, Setting{Name: "user", Value: tiers.UserRulesFile, Source: fmt.Sprintf("%d rules", len(tiers.UserRules))})
	if o.Workspace != "" {
		rs, warn, err := tiers.Workspace(o.Workspace)
		if err != nil {
			return v, err
		}
		v.Rules = append(v.Rules, rs.Rules()...)
		v.Warnings = append(v.Warnings, warn...)
		v.RuleFiles = append(v.RuleFiles, Setting{Name: "workspace", Value: orgpolicy.WorkspaceRulesPath(o.Workspace), Source: fmt.Sprintf("%d rules", rs.Len())})
	}
	// MCP servers and the allowlist.
	mc := mcpconfig.LoadConfig(userPath, o.Workspace)
	names := make([]string, 0, len(mc.Servers))
	for n := range mc.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	b := tiers.Bundle()
	for _, n := range names {
		s := mc.Servers[n]
		h := s.PolicyHash()
		v.MCP = append(v.MCP, MCPView{Name: n, Source: s.Source, Hash: h, Allowed: b.AllowsServer(n, h)})
	}
	return v, nil
}

func orgCeilings(o *policy.Org) []Setting {
	var out []Setting
	add := func(name, value string, set bool) {
		src := "not limited by the policy"
		if set {
			src = o.File
		}
		out = append(out, Setting{Name: name, Value: value, Source: src})
	}
	add("approval", o.ApprovalCeiling(), len(o.Approvals) > 0)
	widest := "any"
	if o.Sandbox != nil {
		widest = o.Sandbox.String()
	}
	add("widest sandbox", widest, o.Sandbox != nil)
	if o.NoNetwork {
		add("network", "off", true)
	} else {
		add("network", "may be turned on", false)
	}
	hosts := "any"
	if len(o.Hosts) > 0 {
		hosts = patternList(o.Hosts)
	}
	add("host ceiling", hosts, len(o.Hosts) > 0)
	if len(o.DenyHosts) > 0 {
		add("hosts denied", patternList(o.DenyHosts), true)
	}
	mcpv := "any (with the user's trust)"
	if o.MCPRestricted {
		mcpv = "only: " + strings.Join(o.MCPServers, ", ")
		if len(o.MCPServers) == 0 {
			mcpv = "none"
		}
	}
	add("MCP servers", mcpv, o.MCPRestricted)
	ans := "any"
	if len(o.Answerers) > 0 {
		ans = strings.Join(o.Answerers, ", ")
	}
	add("answerers", ans, len(o.Answerers) > 0)
	life := "no limit"
	if o.MaxGrant > 0 {
		life = fmt.Sprintf("%d days", max(1, int(o.MaxGrant.Hours()/24)))
		if o.MaxGrant < 24*time.Hour {
			life = "none (\"always\" is refused in effect)"
		}
	}
	add("longest grant", life, o.MaxGrant > 0)
	add("user allow rules", map[bool]string{true: "apply", false: "ignored"}[o.UserAllow], !o.UserAllow)
	add("workspace allow rules", map[bool]string{true: "apply", false: "ignored"}[o.WorkspaceAllow], o.WorkspaceAllow)
	if !o.WorkspaceAllow {
		out[len(out)-1].Source = "Warden's default: a repository's rules may only deny or ask"
	}
	return out
}

func patternList(ps []policy.HostPattern) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}
