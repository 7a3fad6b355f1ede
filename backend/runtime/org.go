package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// The organisation tier in the runtime: every axis change is checked
// against the policy's ceilings here, in the one place sessions change, so
// the window's selectors, the TUI, the CLI's flags and the serve API all
// refuse alike (*policy.CeilingError, naming the policy and the ceiling).
// A session stored above a ceiling (made before the policy, or under
// another) is lowered to the widest value permitted when the service
// starts, recorded as changed by "org".

// OrgInfo is the organisation policy as front ends show it: what is
// managed, and by which file. Nil when no organisation policy applies.
type OrgInfo struct {
	File   string `json:"file"`
	Digest string `json:"digest"`
	Signed bool   `json:"signed"`
	// Approvals are the approval policies allowed; empty allows all.
	Approvals []policy.ApprovalPolicy `json:"approvals"`
	// Sandbox is the widest sandbox; absent when any is allowed.
	Sandbox *policy.SandboxKind `json:"sandbox,omitempty"`
	// NetworkOff: network can never be turned on.
	NetworkOff bool `json:"network_off"`
	// Hosts is the host ceiling (empty: none); DenyHosts never reached.
	Hosts     []string `json:"hosts"`
	DenyHosts []string `json:"deny_hosts"`
	// McpServers are the servers allowed when McpRestricted.
	McpRestricted bool     `json:"mcp_restricted"`
	McpServers    []string `json:"mcp_servers"`
	// Answerers may answer asks; empty: every kind.
	Answerers []string `json:"answerers"`
	// MaxGrantDays caps "always" (0: no cap).
	MaxGrantDays int `json:"max_grant_days"`
	// UserAllow and WorkspaceAllow say whether those tiers' allow rules
	// apply.
	UserAllow      bool `json:"user_allow"`
	WorkspaceAllow bool `json:"workspace_allow"`
}

func orgInfo(o *policy.Org) *OrgInfo {
	if !o.Active() {
		return nil
	}
	in := &OrgInfo{File: o.File, Digest: o.Digest, Signed: o.Signed, Approvals: append([]policy.ApprovalPolicy{}, o.Approvals...),
		Sandbox: o.Sandbox, NetworkOff: o.NoNetwork, McpRestricted: o.MCPRestricted, McpServers: append([]string{}, o.MCPServers...),
		Answerers: append([]string{}, o.Answerers...), UserAllow: o.UserAllow, WorkspaceAllow: o.WorkspaceAllow,
		Hosts: []string{}, DenyHosts: []string{}}
	for _, h := range o.Hosts {
		in.Hosts = append(in.Hosts, h.String())
	}
	for _, h := range o.DenyHosts {
		in.DenyHosts = append(in.DenyHosts, h.String())
	}
	if o.MaxGrant > 0 {
		in.MaxGrantDays = max(1, int(o.MaxGrant.Hours()/24))
	}
	return in
}

// checkAxes refuses axes above the organisation's ceilings.
func (s *Service) checkAxes(a *policy.ApprovalPolicy, sb *policy.SandboxPolicy) error {
	org := s.cfg.Org
	if a != nil {
		if err := org.CheckApproval(*a); err != nil {
			return err
		}
	}
	if sb != nil {
		if err := org.CheckSandbox(*sb); err != nil {
			return err
		}
	}
	return nil
}

// clampSessions lowers the top-level sessions above a ceiling to the
// widest values permitted (subagents follow their root).
func (s *Service) clampSessions(ctx context.Context) error {
	org := s.cfg.Org
	if !org.Active() {
		return nil
	}
	all, err := s.st.Sessions(ctx, "")
	if err != nil {
		return err
	}
	for _, ss := range all {
		if ss.ParentID != "" {
			continue
		}
		u := store.PolicyUpdate{By: "org"}
		if a, changed := org.ClampApproval(ss.Approval); changed {
			u.Approval = &a
		}
		if sb, changed := org.ClampSandbox(ss.Sandbox); changed {
			u.Sandbox = &sb
		}
		if u.Approval == nil && u.Sandbox == nil {
			continue
		}
		if _, err := s.st.UpdateSessionPolicy(ctx, ss.ID, u); err != nil {
			return fmt.Errorf("runtime: lowering session %s to %s: %w", ss.ID, org.Name(), err)
		}
	}
	return nil
}

// RuleView is one rule as the Grants panel lists it.
type RuleView struct {
	Tier     policy.Tier    `json:"tier" ts:"'org' | 'user' | 'workspace'"`
	File     string         `json:"file"`
	Line     int            `json:"line"`
	Tool     string         `json:"tool,omitempty"`
	Match    string         `json:"match"`
	Decision policy.Verdict `json:"decision" ts:"'allow' | 'ask' | 'deny'"`
	Why      string         `json:"why"`
	// ReadOnly: set by the organisation, not editable here.
	ReadOnly bool `json:"read_only"`
	// Ignored says why the rule does not apply (an allow rule the
	// organisation does not permit at its tier); "" when it does.
	Ignored string `json:"ignored,omitempty"`
}

// ListRules lists the rules a session decides under: the organisation's,
// the user's and its workspace's, in the order they apply.
func (s *Service) ListRules(ctx context.Context, sessionID string) ([]RuleView, error) {
	ss, err := s.st.Session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	rules := s.cfg.Rules.Rules()
	if s.cfg.WorkspaceRules != nil {
		ws, _, err := s.cfg.WorkspaceRules(ss.Workspace)
		if err != nil {
			return nil, err
		}
		rules = append(rules, ws.Rules()...)
	}
	org := s.cfg.Org
	out := []RuleView{}
	for _, r := range rules {
		v := RuleView{Tier: r.Tier, File: r.File, Line: r.Line, Tool: r.Tool, Match: r.Match(), Decision: r.Decision,
			Why: r.Why, ReadOnly: r.Tier == policy.TierOrg}
		if r.Decision == policy.VerdictAllow && !org.AllowApplies(r.Tier) {
			v.Ignored = IgnoredAllow(r.Tier)
		}
		out = append(out, v)
	}
	return out, nil
}

// IgnoredAllow says why allow rules of a tier do not apply.
func IgnoredAllow(t policy.Tier) string {
	if t == policy.TierWorkspace {
		return "a workspace's allow rules apply only when the organisation's policy permits them"
	}
	return "the organisation's policy does not permit " + string(t) + " allow rules"
}

// workspaceRules reads a workspace's rules for the engine.
func (s *Service) workspaceRules(workspace string) (*policy.RuleSet, error) {
	if s.cfg.WorkspaceRules == nil {
		return nil, nil
	}
	rs, _, err := s.cfg.WorkspaceRules(workspace)
	if err != nil {
		return nil, fmt.Errorf("workspace rules: %w", err)
	}
	return rs, nil
}

// maxGrant is the longest lifetime of a grant (0: no cap).
func (s *Service) maxGrant() time.Duration {
	if !s.cfg.Org.Active() {
		return 0
	}
	return s.cfg.Org.MaxGrant
}

// IsCeiling reports whether err is a refusal by the organisation's policy.
func IsCeiling(err error) bool {
	var ce *policy.CeilingError
	return errors.As(err, &ce)
}
