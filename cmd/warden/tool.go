package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
	"github.com/warden-dev/warden/backend/tools/mcp"
	"github.com/warden-dev/warden/backend/tools/mcp/mcpstore"
	"github.com/warden-dev/warden/backend/tools/sandbox"
	"github.com/warden-dev/warden/backend/tools/storejournal"
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
	args, db        string
	approvalTimeout time.Duration
	allowHosts      hostFlag
}

// toolOutput is what `warden tool` prints.
type toolOutput struct {
	SessionID string           `json:"session_id"`
	CallID    string           `json:"call_id"`
	Decision  *policy.Decision `json:"decision"`
	Result    tools.Result     `json:"result"`
}

func runTool(ctx context.Context, argv []string, io stdio) int {
	var f toolFlags
	fs := flag.NewFlagSet("warden tool", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "Usage: warden tool NAME [--args JSON] [flags]")
		fmt.Fprintln(io.err, "\nRuns one call through the whole gate (policy, approval, sandbox) and prints")
		fmt.Fprintln(io.err, `{"decision": ..., "result": ...}. The session and its events go to the store.`)
		fmt.Fprintln(io.err, "\nFlags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.args, "args", "{}", "the call's arguments, a JSON object")
	f.register(fs, "run the call as if the session were in the planning freeze")
	fs.DurationVar(&f.approvalTimeout, "approval-timeout", 0, "how long an Ask waits for a human before it becomes a no-approver deny")
	fs.StringVar(&f.db, "db", "", "the store `file` (default $WARDEN_DB, else $XDG_DATA_HOME/warden/warden.db)")
	registerAllowHost(fs, &f.allowHosts)
	name, rest := "", argv
	if len(argv) > 0 && !strings.HasPrefix(argv[0], "-") {
		name, rest = argv[0], argv[1:]
	}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "warden tool: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if name == "" {
		fs.Usage()
		return 2
	}
	if !json.Valid([]byte(f.args)) {
		fmt.Fprintf(io.err, "warden tool: --args is not valid JSON: %s\n", f.args)
		return 2
	}
	out, code, err := callTool(ctx, name, f)
	if err != nil {
		fmt.Fprintf(io.err, "warden tool: %v\n", err)
		return code
	}
	enc := json.NewEncoder(io.out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return 1
	}
	if out.Result.IsError {
		return 1
	}
	return 0
}

func callTool(ctx context.Context, name string, f toolFlags) (toolOutput, int, error) {
	var out toolOutput
	s, err := f.axisFlags.session()
	if err != nil {
		return out, 2, err
	}
	path, err := resolveDBPath(f.db, os.Getenv)
	if err != nil {
		return out, 1, err
	}
	// The database is hidden from the cage wherever --db or WARDEN_DB put it.
	protected := append(wardenFolders(), path, path+"-wal", path+"-shm", path+"-journal")
	cage := sandbox.New(toolCageConfig(protected))
	defer cage.Close()
	status := cage.Detect(ctx)
	// The engine is told what the cage will really do; --caged can only
	// make it more careful, never claim a cage that does not work.
	switch f.caged {
	case "auto":
		s.Caged = cage.Caged(s.Sandbox)
	case "true", "yes", "1":
		if !status.Available {
			return out, 2, fmt.Errorf("--caged=true, but the cage does not work here: %s", status.Reason)
		}
		s.Caged = cage.Caged(s.Sandbox)
	case "false", "no", "0":
		s.Caged = false
	default:
		return out, 2, fmt.Errorf("--caged: unknown value %q (valid: auto, true, false)", f.caged)
	}
	mons := tools.NewMonitors(cage)
	defer mons.Close()
	reg, err := tools.Builtins(cage, mons, "")
	if err != nil {
		return out, 1, err
	}
	st, err := openStore(ctx, path)
	if err != nil {
		return out, 1, err
	}
	defer st.Close()
	tool, ok := reg.Get(name)
	if !ok && strings.HasPrefix(name, "mcp-tool:") {
		m, err := openToolMCP(ctx, st, s.Workspace)
		if err != nil {
			return out, 1, err
		}
		defer m.Close()
		// Listing starts the servers that may start (user-config servers,
		// and workspace servers whose launch config is trusted).
		m.Tools(ctx)
		var adapter *mcp.ToolAdapter
		if adapter, ok = m.Lookup(name); ok {
			tool = adapter
		}
	}
	if !ok {
		var names []string
		for _, t := range reg.List() {
			names = append(names, t.Name())
		}
		return out, 2, fmt.Errorf("unknown tool %q (known: %s, and mcp-tool:<server>/<tool> of a started MCP server: see warden mcp list)", name, strings.Join(names, ", "))
	}
	sess, err := st.CreateSession(ctx, store.NewSession{Workspace: s.Workspace, Title: "warden tool " + name,
		Approval: s.Approval, Sandbox: s.Sandbox, Planning: s.Planning})
	if err != nil {
		return out, 1, err
	}
	defer mons.StopSession(sess.ID)
	grants, err := st.Grants(ctx, store.GrantFilter{WorkspaceID: sess.WorkspaceID, SessionID: sess.ID})
	if err != nil {
		return out, 1, err
	}
	s.Grants = store.PolicyGrants(grants, s.Now)
	network, err := toolNetwork(s.Workspace, f.allowHosts)
	if err != nil {
		return out, 2, err
	}
	gate, err := tools.NewGate(tools.GateConfig{
		Decider:         policy.New(policy.Config{ProtectedPaths: protected}),
		Session:         func(context.Context, tools.Env) (policy.Session, error) { return s, nil },
		ApprovalTimeout: f.approvalTimeout,
		Journal:         storejournal.New(st),
		Network:         network,
	})
	if err != nil {
		return out, 1, err
	}
	env := tools.Env{SessionID: sess.ID, Workspace: s.Workspace, Sandbox: s.Sandbox}
	res, err := gate.Call(ctx, tool, json.RawMessage(f.args), env)
	if err != nil {
		return out, 1, err
	}
	return toolOutput{SessionID: sess.ID, CallID: res.CallID, Decision: res.Decision, Result: res.Result}, 0, nil
}

// openToolMCP opens the MCP servers of the user config and the workspace,
// with the workspace's persistent trust.
func openToolMCP(ctx context.Context, st *store.Store, workspace string) (*mcp.Manager, error) {
	userPath, err := mcp.UserConfigPath()
	if err != nil {
		return nil, err
	}
	ws, err := st.EnsureWorkspace(ctx, workspace)
	if err != nil {
		return nil, err
	}
	return mcp.NewManager(mcp.Options{Config: mcp.LoadConfig(userPath, workspace),
		Persistent: mcpstore.New(st, ws.ID, ""), ClientVersion: version})
}

// sandboxMode reads sandbox.mode from the user's config file; "container"
// trusts an outer container. An unreadable file means the default, bwrap:
// the command never runs less confined because of a broken config.
// toolCageConfig is the cage of `warden tool`, from the user's settings
// (the defaults when the file cannot be read).
func toolCageConfig(protected []string) sandbox.Config {
	cfg := config.Default()
	if path, err := config.UserPath(); err == nil {
		if c, err := config.Load(path, ""); err == nil {
			cfg = c
		}
	}
	return assemble.CageConfig(cfg, protected)
}
