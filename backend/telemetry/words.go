package telemetry

import (
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// The body of a record is one line in the audit trail's words: what
// happened, the tool, what decided, the summary. These mirror the window's
// frontend/src/model/words.ts (sourceText, deniedByText, reasonLabel); once
// the Go words table that file is generated from exists, they read it.

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

var reasonLabels = map[policy.Reason]string{
	policy.ReasonSandboxRejected:    "Sandbox",
	policy.ReasonPolicyAlways:       `Approval policy "Always ask"`,
	policy.ReasonDestructiveEffect:  "Destructive",
	policy.ReasonUnknownCommand:     "Unknown command",
	policy.ReasonNetworkRequest:     "Network",
	policy.ReasonUntrustedMcpServer: "Untrusted MCP server",
	policy.ReasonProtectedPath:      "Protected path",
	policy.ReasonDesktopControl:     "Desktop control",
	policy.ReasonOutsideWorkspace:   "Outside the workspace",
	policy.ReasonPlanningFreeze:     "Planning freeze",
	policy.ReasonNoApprover:         "No approver",
	policy.ReasonUserDenied:         "Denied by a human",
	policy.ReasonHostDenied:         "Host denied",
	policy.ReasonPrivateAddress:     "Private address",
}

// reasonLabel is a reason's short name, as an audit summary shows it.
func reasonLabel(r policy.Reason) string {
	if l, ok := reasonLabels[r]; ok {
		return l
	}
	return string(r)
}

var approvalLabels = map[policy.ApprovalPolicy]string{
	policy.Never: "Never ask", policy.OnRequest: "On request", policy.Always: "Always ask",
}

func approvalText(a policy.ApprovalPolicy) string {
	if l, ok := approvalLabels[a]; ok {
		return l
	}
	return a.String()
}

func sandboxText(s policy.SandboxPolicy) string {
	switch s.Kind {
	case policy.ReadOnly:
		return "Read only"
	case policy.WorkspaceWrite:
		if s.NetworkAccess {
			return "Workspace write + network"
		}
		return "Workspace write"
	case policy.DangerFullAccess:
		return "Full access"
	}
	return s.Kind.String()
}
