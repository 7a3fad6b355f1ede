//go:build !wardenslim

package assemble

import (
	"context"
	"fmt"
	"time"

	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
	"github.com/warden-dev/warden/backend/mcp/mcpstore"
)

// openMCP makes the MCP pool every session reaches its workspace's servers
// through (started lazily, per workspace, watched for config changes), with
// persistent trust in the store and the launch-hash key beside the user
// config. g.MCP is the manager of the user config (and o.Workspace) for the
// Settings screen; its tools are not offered to any session.
func (g *Graph) openMCP(ctx context.Context, o Options, userPath string, key []byte) error {
	var err error
	st := g.Store
	persistent := func(ctx context.Context, workspace string) (mcp.TrustStore, error) {
		ws, err := st.EnsureWorkspace(ctx, workspace)
		if err != nil {
			return nil, err
		}
		return mcpstore.New(st, ws.ID, ""), nil
	}
	// Stdio servers run in the same cage as shell commands (sandbox =
	// "none" in a server's config opts out).
	tmpl := mcp.Options{ClientVersion: o.Version, HashKey: key, Cage: g.Cage}
	// The service is made after the pool (Open stores it in mcpService); a
	// reload comes from an fsnotify event for a workspace a session opened.
	voided := func(workspace string, servers []string) {
		if s := g.mcpService.Load(); s != nil {
			s.McpTrustVoided(workspace, servers)
		}
	}
	filter := orgMCPFilter(g.Tiers.Bundle())
	if g.MCPPool, err = mcp.NewPool(mcp.PoolOptions{UserConfigPath: userPath, Persistent: persistent,
		Manager: tmpl, Watch: !o.OneShot, OnReload: voided, Filter: filter}); err != nil {
		return fmt.Errorf("assemble: MCP: %w", err)
	}
	mc := mcpconfig.LoadConfig(userPath, o.Workspace)
	if filter != nil {
		mc = filter(mc)
	}
	for _, e := range mc.Errors {
		g.mcpWarnings = append(g.mcpWarnings, e.Error())
	}
	// The manager exists even with no server yet: a server added from
	// Settings joins it on the reload (reloadMCP), without a restart.
	opts := tmpl
	opts.Config = mc
	if o.Workspace != "" {
		if opts.Persistent, err = persistent(ctx, o.Workspace); err != nil {
			return err
		}
		opts.WorkDir = o.Workspace
	}
	if g.MCP, err = mcp.NewManager(opts); err != nil {
		return fmt.Errorf("assemble: MCP: %w", err)
	}
	g.reloadMCP = func(ctx context.Context) {
		g.MCPPool.Reload(ctx, "")
		g.MCP.Reload(ctx, mcpconfig.LoadConfig(userPath, o.Workspace))
	}
	if len(mc.Servers) == 0 {
		return nil
	}
	// Settings shows each server's state and tools: learn them now, as
	// before. Sessions run their own servers through the pool.
	timeout := o.MCPListTimeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	g.MCP.Tools(lctx)
	return nil
}
