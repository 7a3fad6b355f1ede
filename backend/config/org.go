package config

import (
	"fmt"

	"github.com/warden-dev/warden/backend/policy"
)

// ApplyOrg puts the organisation policy's ceilings over the resolved
// configuration: a default above a ceiling (from the user's file or a
// workspace's) is lowered to the widest value the policy permits, and a
// warning names the policy and the ceiling. The organisation tier holds
// ceilings, not defaults: nothing below a ceiling changes.
func ApplyOrg(c *Config, org *policy.Org) {
	if !org.Active() {
		return
	}
	if a, changed := org.ClampApproval(c.Approval); changed {
		c.Warnings = append(c.Warnings, fmt.Sprintf("defaults.approval %q is above the ceiling of %s (%s): new sessions start with %q",
			c.Approval, org.Name(), org.ApprovalCeiling(), a))
		c.Approval = a
	}
	if sb, changed := org.ClampSandbox(c.Sandbox); changed {
		c.Warnings = append(c.Warnings, fmt.Sprintf("defaults.sandbox %s is above the ceiling of %s (%s): new sessions start with %s",
			describeSandbox(c.Sandbox), org.Name(), org.SandboxCeiling(), describeSandbox(sb)))
		c.Sandbox = sb
	}
}

func describeSandbox(sb policy.SandboxPolicy) string {
	if sb.NetworkAccess {
		return sb.Kind.String() + " with network"
	}
	return sb.Kind.String()
}
