//go:build !wardenslim

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
	"github.com/warden-dev/warden/backend/mcp/mcpport"
	"github.com/warden-dev/warden/backend/mcp/mcpstore"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/termtext"
)

func mcpCommand() command {
	return command{
		name:    "mcp",
		summary: "list MCP servers and their tools, trust or untrust a server",
		run:     runMCP,
	}
}

const mcpUsage = `Usage:
  warden mcp list    [--workspace DIR] [--db PATH] [--json] [--no-start] [--start-untrusted]
  warden mcp trust   NAME [--tool TOOL] [--workspace DIR] [--db PATH]
  warden mcp untrust NAME [--workspace DIR] [--db PATH]

Servers come from <workspace>/.mcp.json, [mcp.servers] in
<workspace>/.warden/config.toml and [mcp.servers] in
$XDG_CONFIG_HOME/warden/config.toml; they run in the workspace. Trust given
here is the workspace trust (stored in the Warden database, shared with the
desktop window and 'warden serve') and binds to the server's launch config —
command, args, env names and values, URL — and to each tool's description and
schema as they are now. A session's own trust is given in its window (the
trust card, the prompt) or with the TrustMcpServer API call.

Servers from the workspace are not started (their command is not run) until
they are trusted; 'list --start-untrusted' starts them anyway to show their
tools. 'trust' prints the command it is about to run.
`

func runMCP(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := io.err
		if len(args) > 0 {
			w = io.out
		}
		fmt.Fprint(w, mcpUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("warden mcp "+sub, flag.ContinueOnError)
	fs.SetOutput(io.err)
	workspace := fs.String("workspace", ".", "workspace directory")
	dbPath := fs.String("db", "", dbUsage)
	asJSON := fs.Bool("json", false, "list: print JSON")
	noStart := fs.Bool("no-start", false, "list: do not start servers (tools of stopped servers are not shown)")
	tool := fs.String("tool", "", "trust: accept only this tool's current description and schema")
	startUntrusted := fs.Bool("start-untrusted", false, "list: also start untrusted servers from the workspace .mcp.json")
	// Flags may come before or after NAME; every one counts.
	pos, err := parseInterspersed(fs, rest)
	if err != nil {
		return 2
	}
	var name string
	switch {
	case len(pos) > 1:
		fmt.Fprintf(io.err, "warden mcp %s: one server per call: unexpected argument %q after %q\n", sub, pos[1], pos[0])
		return 2
	case len(pos) == 1:
		name = pos[0]
	}
	if sub == "list" && name != "" {
		fmt.Fprintf(io.err, "warden mcp list: unexpected argument %q (list takes no NAME)\n", name)
		return 2
	}
	switch sub {
	case "list":
	case "trust", "untrust":
		if name == "" {
			fmt.Fprintf(io.err, "warden mcp %s: missing the server NAME\n\n%s", sub, mcpUsage)
			return 2
		}
	default:
		fmt.Fprintf(io.err, "warden mcp: unknown subcommand %q\n\n%s", sub, mcpUsage)
		return 2
	}

	env, err := openMCPEnv(ctx, *workspace, *dbPath, *startUntrusted)
	if err != nil {
		fmt.Fprintf(io.err, "warden mcp %s: %v\n", sub, err)
		return 1
	}
	defer env.close()
	for _, e := range env.manager.ConfigErrors() {
		fmt.Fprintf(io.err, "warden mcp: config: %s\n", mcpport.EscapeForDisplay(e.Error()))
	}

	switch sub {
	case "list":
		return mcpList(ctx, env, *asJSON, *noStart, io)
	case "trust":
		return mcpTrust(ctx, env, name, *tool, io)
	default:
		if err := env.manager.Untrust(ctx, name); err != nil {
			fmt.Fprintf(io.err, "warden mcp untrust: %v\n", err)
			return 1
		}
		fmt.Fprintf(io.out, "%s: trust removed for workspace %s; its tools will ask again\n", name, env.workspace)
		return 0
	}
}

type mcpEnv struct {
	workspace string
	manager   *mcp.Manager
	db        *store.Store
	cage      *sandbox.Cage
}

func (e *mcpEnv) close() {
	_ = e.manager.Close()
	_ = e.cage.Close()
	_ = e.db.Close()
}

func openMCPEnv(ctx context.Context, workspace, dbPath string, startUntrusted bool) (*mcpEnv, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", workspace, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	userPath, err := mcpconfig.UserConfigPath()
	if err != nil {
		return nil, err
	}
	// The organisation's policy first: under one that cannot apply
	// nothing opens, and servers off its allowlist are dropped.
	mc, err := assemble.MCPConfig(userPath, abs)
	if err != nil {
		return nil, err
	}
	db, _, err := assemble.OpenStore(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	ws, err := db.EnsureWorkspace(ctx, abs)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	key, err := mcpconfig.LoadHashKey(mcpconfig.HashKeyPath(userPath))
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	// The servers start in the same cage as in the app.
	cage, err := assemble.OpenCage(ctx, assemble.Options{Workspace: abs, DBPath: dbPath})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	m, err := mcp.NewManager(mcp.Options{
		Cage:                           cage,
		Config:                         mc,
		Persistent:                     mcpstore.New(db, ws.ID, ""),
		StartUntrustedWorkspaceServers: startUntrusted,
		ClientVersion:                  version,
		HashKey:                        key,
		WorkDir:                        abs,
	})
	if err != nil {
		_ = cage.Close()
		_ = db.Close()
		return nil, err
	}
	return &mcpEnv{workspace: abs, manager: m, db: db, cage: cage}, nil
}

func mcpList(ctx context.Context, env *mcpEnv, asJSON, noStart bool, io stdio) int {
	if !noStart {
		env.manager.Tools(ctx)
	}
	statuses := env.manager.Status(ctx)
	if asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(statuses); err != nil {
			fmt.Fprintf(io.err, "warden mcp list: %v\n", err)
			return 1
		}
	} else {
		// Server names, tool descriptions and logs come from the servers.
		tw := termtext.NewWriter(io.out)
		printStatuses(tw, statuses)
		_ = tw.Flush()
	}
	if len(env.manager.ConfigErrors()) > 0 {
		return 1
	}
	return 0
}

// printStatuses writes the human listing. Everything a server controls
// (descriptions, errors carrying its stderr) is escaped: a description may
// hold terminal escape sequences.
func printStatuses(w io.Writer, statuses []mcp.ServerStatus) {
	if len(statuses) == 0 {
		fmt.Fprintln(w, "no MCP servers configured (.mcp.json in the workspace, [mcp.servers] in config.toml)")
		return
	}
	esc := mcpport.EscapeForDisplay
	for _, s := range statuses {
		trust := "untrusted"
		if s.Trust != nil {
			trust = fmt.Sprintf("trusted (%s, %s)", s.Trust.Scope, s.Trust.TrustedAt.Format("2006-01-02 15:04"))
			if !s.Trust.ConfigMatches {
				trust = "trust void: launch config changed since " + s.Trust.TrustedAt.Format("2006-01-02 15:04")
			}
		}
		fmt.Fprintf(w, "%s  %s  %s  %s\n", s.Name, s.Transport, s.State, trust)
		fmt.Fprintf(w, "  source:  %s\n", s.Source)
		if s.Sandbox != "" {
			fmt.Fprintf(w, "  sandbox: %s (%s)\n", s.Sandbox, s.SandboxWhy)
		}
		if s.Transport == mcp.TransportHTTP {
			fmt.Fprintf(w, "  url:     %s\n", s.URL)
		} else {
			fmt.Fprintf(w, "  command: %q %q\n", s.Command, s.Args)
		}
		if len(s.EnvNames) > 0 {
			fmt.Fprintf(w, "  env:     %s\n", strings.Join(s.EnvNames, " "))
		}
		fmt.Fprintf(w, "  config:  %s\n", short(s.ConfigHash))
		fmt.Fprintf(w, "  log:     %s\n", s.LogPath)
		if s.LastError != "" {
			fmt.Fprintf(w, "  error:   %s\n", esc(s.LastError))
		}
		for _, t := range s.Tools {
			state := "trusted"
			if !t.Trusted {
				state = "asks: " + t.Untrusted
			}
			ro := ""
			if t.ReadOnlyHint {
				ro = "  read-only"
			}
			fmt.Fprintf(w, "  - %s  %s  %s%s  %s\n", t.Name, t.ModelName, short(t.Hash), ro, state)
			if d := firstLine(t.Description); d != "" {
				fmt.Fprintf(w, "      %s\n", esc(d))
			}
			if t.SchemaError != "" {
				fmt.Fprintf(w, "      schema: %s\n", esc(t.SchemaError))
			}
		}
	}
}

func mcpTrust(ctx context.Context, env *mcpEnv, name, tool string, io stdio) int {
	m := env.manager
	var err error
	if tool != "" {
		if err := m.Start(ctx, name); err != nil {
			fmt.Fprintf(io.err, "warden mcp trust: %s\n", mcpport.EscapeForDisplay(err.Error()))
			return 1
		}
		old, cur, derr := m.TrustDiff(ctx, name, tool)
		if derr == nil && old != cur {
			fmt.Fprintf(io.out, "%s/%s description, as trusted (-) and now (+):\n%s", name, tool, mcpport.DescriptionDiff(old, cur))
		}
		err = m.TrustTool(ctx, name, tool, mcp.TrustPersistent)
	} else {
		for _, s := range m.Status(ctx) {
			if s.Name != name {
				continue
			}
			launch := s.URL
			if s.Transport != mcp.TransportHTTP {
				launch = fmt.Sprintf("%q %q", s.Command, s.Args)
			}
			fmt.Fprintf(io.out, "%s: from %s, starting %s\n", name, mcpport.EscapeForDisplay(s.Source), mcpport.EscapeForDisplay(launch))
		}
		err = m.Trust(ctx, name, mcp.TrustPersistent)
	}
	if err != nil {
		fmt.Fprintf(io.err, "warden mcp trust: %s\n", mcpport.EscapeForDisplay(err.Error()))
		return 1
	}
	for _, s := range m.Status(ctx) {
		if s.Name != name {
			continue
		}
		fmt.Fprintf(io.out, "%s: trusted for workspace %s (config %s)\n", name, env.workspace, short(s.ConfigHash))
		for _, t := range s.Tools {
			if tool != "" && t.Name != tool {
				continue
			}
			fmt.Fprintf(io.out, "  - %s  %s  %s\n", t.Name, short(t.Hash), mcpport.EscapeForDisplay(firstLine(t.Description)))
		}
	}
	return 0
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

func firstLine(s string) string {
	line, _, more := strings.Cut(s, "\n")
	if len(line) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line, more = line[:cut], true
	}
	if more {
		line += " …"
	}
	return line
}
