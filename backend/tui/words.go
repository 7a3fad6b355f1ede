package tui

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/reveal"
	"github.com/warden-dev/warden/backend/runtime"
)

// The words of reasons, tools, axis values and layers come from the one
// table beside the enums (backend/policy/words.go), which the window's
// TypeScript is generated from. What is here are the terminal's sentences
// built on them, in the window's words (frontend/src/model/words.ts and
// signature.ts); words_test.go checks those against the window's source.

// ReasonText is a reason in words ("Destructive: can remove …").
func ReasonText(r policy.Reason) string { return policy.ReasonText(r) }

// RiskText is a risk as the window's prompt badge says it.
func RiskText(r policy.Risk) string {
	switch r {
	case policy.RiskLow:
		return "Low risk"
	case policy.RiskMedium:
		return "Medium risk"
	case policy.RiskHigh:
		return "High risk"
	}
	return "Risk unknown"
}

// The axis values' and layers' words, read once from the table.
var (
	approvalWords = policy.ApprovalWords()
	sandboxWords  = policy.SandboxWords()
	layerWords    = policy.LayerWords()
	toolWords     = policy.ToolWords()
)

// ApprovalLabel is the approval policy as the window's selector names it.
func ApprovalLabel(a policy.ApprovalPolicy) string {
	if w, ok := approvalWords[a]; ok {
		return w.Label
	}
	return a.String()
}

// SandboxLabel is the sandbox kind as the window's selector names it.
func SandboxLabel(k policy.SandboxKind) string {
	if w, ok := sandboxWords[k]; ok {
		return w.Label
	}
	return k.String()
}

// LayerText names what decided a call ("You (tui)", "Grant g1…"): the
// layer's label and, when there is one, its detail.
func LayerText(l policy.Layer, detail string) string {
	if l == "" {
		return ""
	}
	label := string(l)
	if w, ok := layerWords[l]; ok {
		label = w.Label
	}
	if detail != "" {
		return label + " (" + reveal.RevealText(detail) + ")"
	}
	return label
}

// AxesText is both axes in the status bar's words ("Approval: On request ·
// Sandbox: Workspace write (network off)").
func AxesText(a policy.ApprovalPolicy, sb runtime.Sandbox) (approval, sandbox string) {
	net := ""
	if sb.Kind == policy.WorkspaceWrite {
		net = " (network off)"
		if sb.NetworkAccess {
			net = " (network on)"
		}
	}
	return "Approval: " + ApprovalLabel(a), "Sandbox: " + SandboxLabel(sb.Kind) + net
}

// FullAccessWarning is the window's confirmation before Full access.
const FullAccessWarning = "Full access runs every command outside the cage: it can write anywhere and reach the network. Switch this session to Full access?"

// GrantSourceText says what allowed a call, from PermissionGranted.source.
func GrantSourceText(source string) string {
	switch {
	case source == "sandbox+policy":
		return "allowed by sandbox and policy"
	case source == "human:once":
		return "allowed once by you"
	case source == "human:always":
		return "always allowed by you"
	case strings.HasPrefix(source, "session-grant:"):
		return "allowed by session grant " + source[14:]
	case strings.HasPrefix(source, "workspace-rule:"):
		return "allowed by workspace rule " + source[15:]
	case strings.HasPrefix(source, "trusted-mcp:"):
		return "allowed: trusted server " + source[12:]
	case source == "policy-never":
		return `allowed by approval policy "Never ask"`
	case strings.HasPrefix(source, "rule:"):
		tier, where, _ := strings.Cut(source[5:], ":")
		return "allowed by " + tier + " rule " + where
	}
	return "allowed (" + source + ")"
}

var deniedByText = map[string]string{
	"sandbox":     "denied by the sandbox",
	"user":        "denied by you",
	"freeze":      "denied by the planning freeze",
	"no-approver": "denied: no approver",
}

// DeniedByText says who refused a call.
func DeniedByText(by string) string {
	if w, ok := deniedByText[by]; ok {
		return w
	}
	return "denied (" + by + ")"
}

var pushFlags = map[string]string{
	"force":  "force (overwrites the remote history)",
	"delete": "delete (removes the remote branch)",
	"mirror": "mirror (makes the remote a copy of everything here)",
	"prune":  "prune (removes remote branches)",
	"all":    "all branches",
	"tags":   "tags",
	"rebase": "rebase",
}

var (
	gitSig = regexp.MustCompile(`^git-(push|pull|fetch):([^/]*)/?(.*?)((?:\+\w+)*)$`)
	netSig = regexp.MustCompile(`^net:(.+):(\d+)$`)
	mcpSig = regexp.MustCompile(`^mcp-tool:([^/]+)/(.+)$`)
)

// SignatureWords says what an "Always allow" of sig will let through, in
// the window's words (signature.ts).
func SignatureWords(sig string, scope policy.GrantScope) string {
	where := "in this session"
	if scope == policy.ScopeWorkspace {
		where = "in this workspace, from now on"
	}
	switch {
	case strings.HasPrefix(sig, "shell="):
		return "exactly this command, character for character, " + where
	case strings.HasPrefix(sig, "shell:"):
		return fmt.Sprintf(`every "%s" command whose other arguments are known to be harmless, %s`, sig[6:], where)
	case strings.HasPrefix(sig, "ssh:"):
		dest, cmd, _ := strings.Cut(sig[4:], " ")
		if cmd != "" {
			return fmt.Sprintf(`the command "%s" over ssh on %s (exactly), %s`, cmd, dest, where)
		}
		return fmt.Sprintf("ssh sessions to %s, %s", dest, where)
	}
	if m := gitSig.FindStringSubmatch(sig); m != nil {
		verb, remote, branch, flags := m[1], m[2], m[3], m[4]
		var extra []string
		for _, f := range strings.Split(flags, "+") {
			if f == "" {
				continue
			}
			if w, ok := pushFlags[f]; ok {
				f = w
			}
			extra = append(extra, f)
		}
		target := remote
		if branch != "" {
			target = remote + "/" + branch
		} else if remote == "" {
			target = "the default remote"
		}
		base := "git " + verb + " with " + target
		if len(extra) > 0 {
			return base + ", including " + strings.Join(extra, ", ") + ", " + where
		}
		return base + " (not force, delete, mirror, prune, all or tags: those ask again), " + where
	}
	if m := netSig.FindStringSubmatch(sig); m != nil {
		return fmt.Sprintf("network connections to %s on port %s, %s", m[1], m[2], where)
	}
	if strings.HasPrefix(sig, "browser:navigate:") {
		return "opening any page on " + sig[17:] + ", " + where
	}
	if strings.HasPrefix(sig, "browser:") {
		return fmt.Sprintf(`every browser "%s" action, on any page, %s`, sig[8:], where)
	}
	if m := mcpSig.FindStringSubmatch(sig); m != nil {
		return fmt.Sprintf(`every call of the tool "%s" of the MCP server "%s", with any arguments, %s`, m[2], m[1], where)
	}
	if w, ok := toolWords[sig]; ok {
		return w + " " + where
	}
	return fmt.Sprintf(`every call of the tool "%s", with any arguments, %s`, sig, where)
}

// kindWords names the audit kinds the trace panel lists.
var kindWords = map[string]string{
	"permission_requested": "Asked",
	"permission_granted":   "Allowed",
	"permission_denied":    "Denied",
}

func scopeOf(s string) policy.GrantScope {
	if s == string(policy.ScopeWorkspace) {
		return policy.ScopeWorkspace
	}
	return policy.ScopeSession
}
