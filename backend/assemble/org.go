package assemble

import (
	"fmt"
	"sort"
	"time"

	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/orgpolicy"
)

// orgMCPFilter drops the MCP servers the organisation's allowlist does not
// name with their policy hash, from the user's config and every
// workspace's alike, and reports each as a config error (shown in
// Settings and by `warden mcp`). Without a restricting policy it is nil.
func orgMCPFilter(b *orgpolicy.Bundle) func(mcp.Config) mcp.Config {
	if b == nil || !b.Org.MCPRestricted {
		return nil
	}
	return func(c mcp.Config) mcp.Config {
		names := make([]string, 0, len(c.Servers))
		for name := range c.Servers {
			names = append(names, name)
		}
		sort.Strings(names)
		out := mcp.Config{Servers: map[string]mcp.ServerConfig{}, Errors: c.Errors}
		for _, name := range names {
			s := c.Servers[name]
			h := s.PolicyHash()
			if b.AllowsServer(name, h) {
				out.Servers[name] = s
				continue
			}
			out.Errors = append(out.Errors, fmt.Errorf("%s: MCP server %q (%s) is ignored: it is not on the allowlist of %s",
				s.Source, name, h, b.Org.Name()))
		}
		return out
	}
}

// MCPConfig is the MCP servers of the user's config and a workspace as
// Open's pool sees them, for a front end without a graph (`warden mcp`):
// an organisation policy that cannot apply is an error, and servers off
// its allowlist are dropped and reported.
func MCPConfig(userPath, workspace string) (mcp.Config, error) {
	tiers, err := orgpolicy.LoadTiers(orgpolicy.System(), userPath, time.Now())
	if err != nil {
		return mcp.Config{}, err
	}
	c := mcp.LoadConfig(userPath, workspace)
	if f := orgMCPFilter(tiers.Bundle()); f != nil {
		c = f(c)
	}
	return c, nil
}
