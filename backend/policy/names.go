package policy

import (
	"fmt"
	"strings"

	classifier "github.com/warden-dev/warden/backend/policy/shell"
)

// Stable string forms of the enums, used by config files, the CLI and JSON.
// Parsing is lenient about case, '_' versus '-' and the common aliases, and
// strict about everything else: an unknown value is an error that lists the
// valid ones.

var approvalNames = [...]string{OnRequest: "on-request", Never: "never", Always: "always"}

var approvalAliases = map[string]ApprovalPolicy{
	"on-request": OnRequest, "onrequest": OnRequest, "default": OnRequest,
	"never":  Never,
	"always": Always,
}

func (a ApprovalPolicy) String() string {
	if a >= 0 && int(a) < len(approvalNames) {
		return approvalNames[a]
	}
	return fmt.Sprintf("approval(%d)", int(a))
}

// MarshalText gives the stable kebab-case form.
func (a ApprovalPolicy) MarshalText() ([]byte, error) {
	if a < 0 || int(a) >= len(approvalNames) {
		return nil, fmt.Errorf("policy: invalid approval policy %d", int(a))
	}
	return []byte(approvalNames[a]), nil
}

// UnmarshalText accepts what ParseApprovalPolicy accepts.
func (a *ApprovalPolicy) UnmarshalText(b []byte) error {
	v, err := ParseApprovalPolicy(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// ParseApprovalPolicy reads "never", "on-request" or "always" (and the
// spellings OnRequest, on_request, default, strict...).
func ParseApprovalPolicy(s string) (ApprovalPolicy, error) {
	if v, ok := approvalAliases[normName(s)]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("policy: unknown approval policy %q (valid: never, on-request, always)", s)
}

var sandboxNames = [...]string{WorkspaceWrite: "workspace-write", ReadOnly: "read-only", DangerFullAccess: "danger-full-access"}

var sandboxAliases = map[string]SandboxKind{
	"workspace-write": WorkspaceWrite, "workspace": WorkspaceWrite, "default": WorkspaceWrite,
	"read-only": ReadOnly, "readonly": ReadOnly, "ro": ReadOnly,
	"danger-full-access": DangerFullAccess, "full-access": DangerFullAccess,
}

func (k SandboxKind) String() string {
	if k >= 0 && int(k) < len(sandboxNames) {
		return sandboxNames[k]
	}
	return fmt.Sprintf("sandbox(%d)", int(k))
}

// MarshalText gives the stable kebab-case form.
func (k SandboxKind) MarshalText() ([]byte, error) {
	if k < 0 || int(k) >= len(sandboxNames) {
		return nil, fmt.Errorf("policy: invalid sandbox kind %d", int(k))
	}
	return []byte(sandboxNames[k]), nil
}

// UnmarshalText accepts what ParseSandboxKind accepts.
func (k *SandboxKind) UnmarshalText(b []byte) error {
	v, err := ParseSandboxKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// ParseSandboxKind reads "read-only", "workspace-write" or
// "danger-full-access" (and ReadOnly, read_only, full-access...).
func ParseSandboxKind(s string) (SandboxKind, error) {
	if v, ok := sandboxAliases[normName(s)]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("policy: unknown sandbox %q (valid: read-only, workspace-write, danger-full-access)", s)
}

// allReasons lists every Reason in its display order; Decision.Reasons
// follows it.
var allReasons = [...]Reason{
	ReasonSandboxRejected, ReasonPolicyAlways, ReasonDestructiveEffect, ReasonUnknownCommand,
	ReasonNetworkRequest, ReasonUntrustedMcpServer, ReasonProtectedPath, ReasonDesktopControl,
	ReasonOutsideWorkspace, ReasonEscalation, ReasonSecretRead, ReasonPlanningFreeze, ReasonNoApprover, ReasonUserDenied,
	ReasonAnswererDenied, ReasonHookDenied,
}

// ParseReason reads a reason in its kebab-case form or a common spelling
// (DestructiveEffect, destructive_effect).
func ParseReason(s string) (Reason, error) {
	n := normName(s)
	for _, r := range allReasons {
		if string(r) == n {
			return r, nil
		}
	}
	valid := make([]string, len(allReasons))
	for i, r := range allReasons {
		valid[i] = string(r)
	}
	return "", fmt.Errorf("policy: unknown reason %q (valid: %s)", s, strings.Join(valid, ", "))
}

// UnmarshalText rejects reasons that do not exist, so a stored grant cannot
// carry a typo that silently matches nothing.
func (r *Reason) UnmarshalText(b []byte) error {
	v, err := ParseReason(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// normName is the one spelling rule of policy names (shell.NormName).
func normName(s string) string { return classifier.NormName(s) }
