package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/termtext"
	"github.com/warden-dev/warden/backend/tools"
)

func toolCommand() command {
	return command{
		name:    "tool",
		summary: "run one tool call through the gate: 'tool NAME --args JSON'",
		run:     runTool,
	}
}

// toolFlags are the axes `policy check` takes, plus what running a call
// needs.
type toolFlags struct {
	axisFlags
	args, db, format string
	approvalTimeout  time.Duration
	allowHosts       hostFlag
}

// toolOutput is what `warden tool` prints.
type toolOutput struct {
	SessionID string           `json:"session_id"`
	CallID    string           `json:"call_id"`
	Decision  *policy.Decision `json:"decision"`
	// Effects are what the tool said the call would do, as decided on.
	Effects []policy.Effect `json:"effects,omitempty"`
	Result  tools.Result    `json:"result"`
}

func runTool(ctx context.Context, argv []string, io stdio) int {
	var f toolFlags
	fs := flag.NewFlagSet("warden tool", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "Usage: warden tool NAME [--args JSON] [flags]   (flags may also come before NAME)")
		fmt.Fprintln(io.err, "\nRuns one call through the whole gate (policy, approval, sandbox) and prints")
		fmt.Fprintln(io.err, `{"decision": ..., "result": ...}. The session and its events go to the store.`)
		fmt.Fprintln(io.err, "NAME is any tool the runtime has: the built-ins, browser.action, browser.batch,")
		fmt.Fprintln(io.err, "computer.use, the planning tools, and mcp-tool:<server>/<tool> of a started MCP server.")
		fmt.Fprintln(io.err, "\nFlags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.args, "args", "{}", "the call's arguments, a JSON object")
	fs.StringVar(&f.format, "format", "json", "output: json (the whole outcome) or text (the decision, then the result as a terminal shows it safely)")
	f.register(fs, "run the call as if the session were in the planning freeze")
	fs.DurationVar(&f.approvalTimeout, "approval-timeout", 0, "how long an Ask waits for a human before it becomes a no-approver deny")
	fs.StringVar(&f.db, "db", "", dbUsage)
	registerAllowHost(fs, &f.allowHosts)
	pos, err := parseInterspersed(fs, argv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case len(pos) == 0:
		fs.Usage()
		return 2
	case len(pos) > 1:
		fmt.Fprintf(io.err, "warden tool: one tool per call: unexpected argument %q after %q (arguments go in --args JSON)\n", pos[1], pos[0])
		return 2
	}
	name := pos[0]
	if f.format != "json" && f.format != "text" {
		fmt.Fprintf(io.err, "warden tool: unknown format %q (valid: json, text)\n", f.format)
		return 2
	}
	if !json.Valid([]byte(f.args)) {
		fmt.Fprintf(io.err, "warden tool: --args is not valid JSON: %s\n", f.args)
		return 2
	}
	s, err := f.axisFlags.session()
	if err == nil {
		err = f.checkCaged()
	}
	if err != nil {
		fmt.Fprintf(io.err, "warden tool: %v\n", err)
		return 2
	}
	g, err := assemble.Open(ctx, assemble.Options{DBPath: f.db, Workspace: s.Workspace, Headless: true, NoModel: true, LeaveSessions: true, OneShot: true,
		Tool: name, Version: version, ApprovalTimeout: &f.approvalTimeout, AllowHosts: f.allowHosts})
	if nl := (*assemble.NotLinkedError)(nil); errors.As(err, &nl) {
		// The slim build lacks a part this configuration needs; nothing
		// is open yet, so the full binary runs the whole command.
		return handOver(io.err, nl)
	}
	if err != nil {
		fmt.Fprintf(io.err, "warden tool: %v\n", err)
		return 1
	}
	defer func() {
		if g != nil {
			g.Close()
		}
	}()
	if err := f.settleOrg(&s, g.Engine.Org()); err != nil {
		fmt.Fprintf(io.err, "warden tool: %v\n", err)
		return 1
	}
	out, code, err := callTool(ctx, g, s, name, f, nil)
	if nl := (*assemble.NotLinkedError)(nil); errors.As(err, &nl) {
		// A name this build does not know and the full one may: it ran
		// nothing, so the full binary runs the whole command (and says
		// which tools it knows, if it does not know it either).
		g.Close()
		g = nil
		return handOver(io.err, nl)
	}
	if err != nil {
		fmt.Fprintf(io.err, "warden tool: %v\n", err)
		return code
	}
	if f.format == "text" {
		if err := writeToolText(io.out, name, out); err != nil {
			return 1
		}
	} else {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return 1
		}
	}
	if out.Result.IsError {
		return 1
	}
	return 0
}

// writeToolText prints the outcome for a human at a terminal: the decision
// in a line, then the result's text. Everything passes through termtext, so
// what the tool printed is shown, never obeyed by the terminal; the stored
// result keeps its bytes.
func writeToolText(w io.Writer, name string, out toolOutput) error {
	tw := termtext.NewWriter(w)
	if d := out.Decision; d != nil {
		line := fmt.Sprintf("%s %s", d.Verdict, name)
		switch {
		case d.Source != "":
			line += " (" + d.Source + ")"
		case d.Reason != "":
			line += " [" + string(d.Reason) + "]"
		}
		if d.Detail != "" && d.Verdict != policy.VerdictAllow {
			line += ": " + d.Detail
		}
		fmt.Fprintln(tw, line)
	}
	for _, c := range out.Result.Content {
		if c.Type != "text" {
			fmt.Fprintf(tw, "[%s content]\n", c.Type)
			continue
		}
		text := c.Text
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if _, err := io.WriteString(tw, text); err != nil {
			return err
		}
	}
	if out.Result.IsError {
		fmt.Fprintln(tw, "(the call failed)")
	}
	if out.SessionID != "" {
		fmt.Fprintf(tw, "session %s, call %s\n", out.SessionID, out.CallID)
	}
	return tw.Flush()
}

// callTool runs one call of the graph's tool through the graph's gate, in a
// new session of the graph's store, on the axes of the flags. approver
// answers Asks; nil means no human is attached (the CLI's graph is
// headless), so an Ask waits --approval-timeout and becomes a no-approver
// deny.
func callTool(ctx context.Context, g *assemble.Graph, s policy.Session, name string, f toolFlags, approver gate.Approver) (toolOutput, int, error) {
	var out toolOutput
	if err := f.settleCaged(&s, g); err != nil {
		return out, 2, err
	}
	tool, ok := g.Tool(name)
	if !ok {
		if nl := g.ToolNotLinked(name); nl != nil {
			return out, 1, nl
		}
		return out, 2, fmt.Errorf("unknown tool %q (known: %s; mcp-tool:<server>/<tool> needs a started MCP server: see warden mcp list)", name, strings.Join(g.ToolNames(), ", "))
	}
	// Reserved, not created: the session is written with the call's first
	// record, one commit for both (store.ReserveSession).
	sess, err := g.Store.ReserveSession(ctx, store.NewSession{Workspace: s.Workspace, Title: "warden tool " + tool.Name(),
		Approval: s.Approval, Sandbox: s.Sandbox, Planning: s.Planning})
	if err != nil {
		return out, 1, err
	}
	defer g.Monitors.StopSession(sess.ID)
	defer func() { _ = g.CloseBrowser(sess.ID) }()
	grants, err := g.Store.Grants(ctx, store.GrantFilter{WorkspaceID: sess.WorkspaceID, SessionID: sess.ID})
	if err != nil {
		return out, 1, err
	}
	s.Grants = store.PolicyGrantsCapped(grants, s.Now, g.MaxGrant())
	if s.Rules, err = g.WorkspaceRules(s.Workspace); err != nil {
		return out, 1, err
	}
	res, err := g.Gate.Call(ctx, gate.Request{Tool: tool, Args: json.RawMessage(f.args), Approver: approver,
		Env:     tools.Env{SessionID: sess.ID, Workspace: s.Workspace, Sandbox: s.Sandbox},
		Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil }})
	if err != nil {
		return out, 1, err
	}
	out = toolOutput{SessionID: sess.ID, CallID: res.CallID, Decision: res.Decision, Effects: res.Effects, Result: res.Result}
	if res.Decision == nil {
		// Refused before any decision: nothing was recorded, so the
		// reserved session was never written and names nothing.
		out.SessionID, out.CallID = "", ""
	}
	return out, 0, nil
}
