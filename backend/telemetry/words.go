package telemetry

import (
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// The body of a record is one line in the audit trail's words: what
// happened, the tool, what decided, the summary. Reasons, axes and layers
// come from the one words table (backend/policy/words.go); the phrases of
// who allowed or denied are the audit trail's own.

type words struct {
	kind, tool, source, summary string
}

func (w words) String() string {
	parts := []string{w.kind}
	for _, p := range []string{w.tool, w.source, w.summary} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " — ")
}

// sourceText says what allowed a call, from PermissionGranted.Source.
func sourceText(source string) string {
	switch {
	case source == "sandbox+policy":
		return "allowed by sandbox and policy"
	case source == "human:once":
		return "allowed once by a human"
	case source == "human:always":
		return "always allowed by a human"
	case source == "policy-never":
		return `allowed by approval policy "Never ask"`
	case strings.HasPrefix(source, "session-grant:"):
		return "allowed by session grant " + strings.TrimPrefix(source, "session-grant:")
	case strings.HasPrefix(source, "workspace-rule:"):
		return "allowed by workspace rule " + strings.TrimPrefix(source, "workspace-rule:")
	case strings.HasPrefix(source, "trusted-mcp:"):
		return "allowed: trusted server " + strings.TrimPrefix(source, "trusted-mcp:")
	}
	return "allowed (" + source + ")"
}

func deniedByText(by store.DeniedBy) string {
	switch by {
	case store.DeniedBySandbox:
		return "denied by the sandbox"
	case store.DeniedByUser:
		return "denied by a human"
	case store.DeniedByFreeze:
		return "denied by the planning freeze"
	case store.DeniedByNoApprover:
		return "denied: no approver"
	}
	return "denied (" + string(by) + ")"
}

// reasonLabel is a reason's short name, as an audit summary shows it: the
// label half of the words table (backend/policy/words.go). The table speaks
// to the person at the window ("Denied by you"); a record is read by
// someone else, so that one reason names who denied.
func reasonLabel(r policy.Reason) string {
	if r == policy.ReasonUserDenied {
		return "Denied by a human"
	}
	label, _, _ := strings.Cut(policy.ReasonText(r), ": ")
	return label
}

func approvalText(a policy.ApprovalPolicy) string {
	if w, ok := policy.ApprovalWords()[a]; ok {
		return w.Label
	}
	return a.String()
}

func sandboxText(s policy.SandboxPolicy) string {
	w, ok := policy.SandboxWords()[s.Kind]
	if !ok {
		return s.Kind.String()
	}
	if s.Kind == policy.WorkspaceWrite && s.NetworkAccess {
		return w.Label + " + network"
	}
	return w.Label
}
