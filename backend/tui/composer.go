package tui

import (
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// CommandKind is what a line typed into the composer asks for.
type CommandKind int

const (
	CmdNone      CommandKind = iota // empty line
	CmdPrompt                       // a message to the model
	CmdShell                        // !cmd: runs shell.exec through the gate
	CmdPlan                         // /plan: toggles the planning freeze
	CmdMode                         // /mode [approval|sandbox value]
	CmdGrants                       // /grants: the grants modal
	CmdSessions                     // /sessions: the session list
	CmdAudit                        // /audit: the trace panel
	CmdUndo                         // /undo: undo the newest change set
	CmdAnswerers                    // /answerers: who answers an ask before you
	CmdHelp                         // /help
	CmdQuit                         // /quit
	CmdUnknown                      // /something else
)

// Command is one parsed composer line.
type Command struct {
	Kind CommandKind
	Text string // the prompt, or the line as typed for !cmd and /plan (the runtime reads those itself)
	// For /mode: the axis values asked for (nil: unchanged).
	Approval *policy.ApprovalPolicy
	Sandbox  *policy.SandboxKind
	Network  *bool
	Err      string // why a /mode argument was refused
}

// ParseComposer reads one composer line. "!cmd" and "/plan" pass through
// to the runtime as typed (it owns their meaning, as for the window); the
// other slash commands are the terminal's own.
func ParseComposer(line string) Command {
	t := strings.TrimSpace(line)
	switch {
	case t == "":
		return Command{Kind: CmdNone}
	case strings.HasPrefix(t, "!"):
		if strings.TrimSpace(t[1:]) == "" {
			return Command{Kind: CmdUnknown, Text: t, Err: "! needs a command: !ls -la"}
		}
		return Command{Kind: CmdShell, Text: t}
	case !strings.HasPrefix(t, "/"):
		return Command{Kind: CmdPrompt, Text: t}
	}
	word, rest, _ := strings.Cut(t[1:], " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(word) {
	case "plan":
		return Command{Kind: CmdPlan, Text: t}
	case "grants":
		return Command{Kind: CmdGrants}
	case "sessions", "session":
		return Command{Kind: CmdSessions}
	case "audit", "trace":
		return Command{Kind: CmdAudit, Text: rest}
	case "undo":
		return Command{Kind: CmdUndo}
	case "answerers", "answerer", "hooks":
		return Command{Kind: CmdAnswerers}
	case "help", "?":
		return Command{Kind: CmdHelp}
	case "quit", "exit", "q":
		return Command{Kind: CmdQuit}
	case "mode":
		return parseMode(rest)
	}
	return Command{Kind: CmdUnknown, Text: t, Err: "unknown command /" + word + " (try /help)"}
}

// parseMode reads "/mode" arguments: approval and sandbox names as the
// flags spell them (never, on-request, always; read-only, workspace-write,
// danger-full-access) or as the window labels them, plus network on|off.
func parseMode(args string) Command {
	c := Command{Kind: CmdMode}
	f := strings.Fields(strings.ToLower(args))
	for i := 0; i < len(f); i++ {
		w := f[i]
		if w == "network" && i+1 < len(f) {
			i++
			on := f[i] == "on" || f[i] == "true"
			if !on && f[i] != "off" && f[i] != "false" {
				c.Err = "network takes on or off"
				return c
			}
			c.Network = &on
			continue
		}
		if a, err := policy.ParseApprovalPolicy(w); err == nil {
			c.Approval = &a
			continue
		}
		if k, err := policy.ParseSandboxKind(w); err == nil {
			c.Sandbox = &k
			continue
		}
		switch w {
		case "full", "full-access":
			k := policy.DangerFullAccess
			c.Sandbox = &k
		case "readonly":
			k := policy.ReadOnly
			c.Sandbox = &k
		case "workspace":
			k := policy.WorkspaceWrite
			c.Sandbox = &k
		default:
			c.Err = "/mode: unknown value " + quote(w) + " (never, on-request, always; read-only, workspace-write, full-access; network on|off)"
			return c
		}
	}
	return c
}

func quote(s string) string { return "\"" + s + "\"" }
