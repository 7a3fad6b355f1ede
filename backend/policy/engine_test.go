package policy

import (
	"strings"
	"testing"
	"time"
)

const ws = "/work/ws"

var now = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

func session(sb SandboxKind, ap ApprovalPolicy) Session {
	return Session{Workspace: ws, Approval: ap, Sandbox: SandboxPolicy{Kind: sb}, Caged: true, Now: now}
}

func shell(cmd string) Call {
	return Call{Tool: "shell.exec", Effects: []Effect{{Kind: EffectExec, Command: cmd, Cwd: ws}}}
}

func fsRead(p string) Call {
	return Call{Tool: "fs.read", Effects: []Effect{{Kind: EffectRead, Paths: []string{p}}}}
}

func fsWrite(p string) Call {
	return Call{Tool: "fs.write", Effects: []Effect{{Kind: EffectWrite, Paths: []string{p}}}}
}

func mcpCall(server, tool string, trusted, ro bool) Call {
	return Call{Tool: "mcp-tool:" + server + "/" + tool, Effects: []Effect{{Kind: EffectMcp, Server: server, Tool: tool, Trusted: trusted, ReadOnlyHint: ro}}}
}

// matrixCases give, per effect class, the verdicts of the whole 3×3 matrix:
// rows read-only | workspace-write | danger-full-access, columns never
// on-request always. The session is caged with network off.
var matrixCases = []struct {
	name string
	call Call
	want string
}{
	{"read", fsRead(ws + "/a.go"), "allow allow ask | allow allow ask | allow allow ask"},
	{"meta", Call{Tool: "write_plan", Effects: []Effect{{Kind: EffectMeta}}}, "allow allow allow | allow allow allow | allow allow allow"},
	{"meta-mutating", Call{Tool: "propose_settings", Effects: []Effect{{Kind: EffectMeta, Mutates: true}}}, "allow allow allow | allow allow allow | allow allow allow"},
	{"write-in-workspace", fsWrite(ws + "/a.go"), "deny deny deny | allow allow ask | allow allow ask"},
	{"write-outside", fsWrite("/srv/data/hosts"), "deny deny deny | deny deny deny | allow ask ask"},
	{"write-etc", fsWrite("/etc/hosts"), "deny deny deny | deny deny deny | deny ask ask"},
	{"write-host-tmp", fsWrite("/tmp/x"), "deny deny deny | deny deny deny | allow allow ask"},
	{"write-protected", fsWrite(ws + "/.env"), "deny deny deny | deny ask ask | deny ask ask"},
	{"write-cage-protected", fsWrite(ws + "/.git/hooks/pre-commit"), "deny deny deny | deny ask ask | deny ask ask"},
	{"destructive-file", Call{Tool: "fs.delete", Effects: []Effect{{Kind: EffectDestructive, Paths: []string{ws + "/build"}}}}, "deny deny deny | allow ask ask | allow ask ask"},
	{"network", Call{Tool: "web.fetch", Effects: []Effect{{Kind: EffectNetwork, Hosts: []string{"example.com"}}}}, "deny deny deny | deny deny deny | allow ask ask"},
	{"network-loopback", Call{Tool: "web.fetch", Effects: []Effect{{Kind: EffectNetwork, Hosts: []string{"127.0.0.1"}}}}, "deny deny deny | allow allow ask | allow allow ask"},
	{"exec-read-only", shell("ls -la"), "allow allow ask | allow allow ask | allow allow ask"},
	{"exec-write", shell("echo x > out.txt"), "deny deny deny | allow allow ask | allow allow ask"},
	{"exec-write-outside", shell("echo x > /srv/data/passwd"), "deny deny deny | deny deny deny | allow ask ask"},
	{"exec-write-etc", shell("echo x > /etc/passwd"), "deny deny deny | deny deny deny | deny ask ask"},
	{"exec-write-ssh", shell("echo key >> ~/.ssh/authorized_keys"), "deny deny deny | deny deny deny | deny ask ask"},
	{"exec-write-cage-tmp", shell("echo x > /tmp/scratch"), "allow allow ask | allow allow ask | allow allow ask"},
	{"exec-write-protected", shell("echo x >> .envrc"), "deny deny deny | deny ask ask | deny ask ask"},
	{"exec-unknown", shell("python3 script.py"), "allow allow ask | allow allow ask | allow ask ask"},
	{"exec-destructive", shell("rm -rf build"), "deny deny deny | allow ask ask | allow ask ask"},
	{"exec-network", shell("curl https://example.com"), "deny deny deny | deny deny deny | allow ask ask"},
	{"exec-compound", shell("ls && rm -rf ~"), "deny deny deny | deny deny deny | allow ask ask"},
	{"browser-navigate", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "navigate", Origin: "https://example.com:443"}}}, "deny deny deny | deny deny deny | allow ask ask"},
	{"browser-loopback", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "navigate", Origin: "http://localhost:5173"}}}, "deny deny deny | allow allow ask | allow allow ask"},
	{"browser-click-remote", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "click", Origin: "https://example.com:443"}}}, "deny deny deny | deny deny deny | allow ask ask"},
	{"browser-screenshot-remote", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "screenshot", Origin: "https://example.com:443"}}}, "deny deny deny | allow allow ask | allow allow ask"},
	{"browser-get-text-remote", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "get_text", Origin: "https://example.com:443"}}}, "deny deny deny | allow allow ask | allow allow ask"},
	{"browser-wait-for-remote", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "wait_for", Origin: "https://example.com:443"}}}, "deny deny deny | allow allow ask | allow allow ask"},
	{"desktop-screenshot", Call{Tool: "computer.use", Effects: []Effect{{Kind: EffectDesktop, Action: "screenshot"}}}, "allow allow ask | allow allow ask | allow allow ask"},
	{"desktop-control", Call{Tool: "computer.use", Effects: []Effect{{Kind: EffectDesktop, Action: "control"}}}, "deny deny deny | allow ask ask | allow ask ask"},
	{"mcp-untrusted", mcpCall("gh", "create_issue", false, false), "deny deny deny | deny ask ask | deny ask ask"},
	{"mcp-untrusted-read-only-hint", mcpCall("gh", "list_issues", false, true), "deny deny deny | deny ask ask | deny ask ask"},
	{"mcp-trusted", mcpCall("gh", "create_issue", true, false), "deny deny deny | allow allow ask | allow allow ask"},
	{"mcp-trusted-read-only", mcpCall("gh", "list_issues", true, true), "allow allow ask | allow allow ask | allow allow ask"},
	{"no-effects", Call{Tool: "mystery"}, "deny deny deny | allow ask ask | allow ask ask"},
}

func TestMatrix(t *testing.T) {
	e := New(Config{})
	sandboxes := []SandboxKind{ReadOnly, WorkspaceWrite, DangerFullAccess}
	approvals := []ApprovalPolicy{Never, OnRequest, Always}
	for _, c := range matrixCases {
		rows := strings.Split(c.want, "|")
		for i, sb := range sandboxes {
			cells := strings.Fields(rows[i])
			for j, ap := range approvals {
				name := c.name + "/" + sb.String() + "/" + ap.String()
				t.Run(name, func(t *testing.T) {
					d := e.Decide(c.call, session(sb, ap))
					if string(d.Verdict) != cells[j] {
						t.Errorf("verdict %s, want %s\n%s", d.Verdict, cells[j], traceText(d))
					}
					checkShape(t, d)
				})
			}
		}
	}
}

// checkShape asserts the fields each verdict carries.
func checkShape(t *testing.T, d Decision) {
	t.Helper()
	if len(d.Trace) == 0 {
		t.Error("empty trace")
	}
	switch d.Verdict {
	case VerdictAllow:
		if d.Source == "" || len(d.Reasons) > 0 || d.Reason != "" {
			t.Errorf("allow with source %q reasons %v reason %q", d.Source, d.Reasons, d.Reason)
		}
	case VerdictAsk:
		if len(d.Reasons) == 0 || d.Signature == "" || d.Source != "" {
			t.Errorf("ask with reasons %v signature %q source %q", d.Reasons, d.Signature, d.Source)
		}
	case VerdictDeny:
		if d.Reason == "" || d.Detail == "" || d.Remedy == "" {
			t.Errorf("deny with reason %q detail %q remedy %q", d.Reason, d.Detail, d.Remedy)
		}
	default:
		t.Errorf("verdict %q", d.Verdict)
	}
}

func traceText(d Decision) string {
	var b strings.Builder
	for _, s := range d.Trace {
		b.WriteString("  " + s.Step + ": " + s.Saw + " => " + s.Concluded + "\n")
	}
	b.WriteString("  reasons=" + strings.Trim(strings.Join(reasonStrings(d.Reasons), ","), " ") + " reason=" + string(d.Reason) + " detail=" + d.Detail)
	return b.String()
}

func reasonStrings(rs []Reason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}
