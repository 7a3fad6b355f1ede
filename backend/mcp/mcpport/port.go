// Package mcpport is what the runtime asks of the MCP servers, as
// interfaces over plain data: the runtime depends on this package, never on
// package mcp, so a build that links no MCP client (the slim `warden`, see
// backend/assemble) runs the same runtime with no MCP (a nil Pool). Package
// mcp implements it (mcp.Pool.Port); the text helpers say how server text is
// shown to a human.
package mcpport

import (
	"context"
	"encoding/json"
	"time"

	"github.com/warden-dev/warden/backend/tools"
)

// Pool is every workspace's MCP servers.
type Pool interface {
	// For is the servers of one workspace, made on first use.
	For(ctx context.Context, workspace string) (Servers, error)
}

// Servers are the MCP servers of one workspace. owner is the session whose
// trust applies (a subagent's root session).
type Servers interface {
	// Offered is what the owner's model is offered at this turn (servers
	// that may start are started).
	Offered(ctx context.Context, owner string) []tools.Tool
	// Find finds a tool of a running server by its gate or model name,
	// offered or not; it starts nothing.
	Find(owner, name string) (tools.Tool, bool)
	// Trust trusts a server as it is now, for the owner's session or
	// persistently for the workspace, and starts it.
	Trust(ctx context.Context, owner, server string, persistent bool) (Trusted, error)
	// Pending are the servers the owner has not trusted with their current
	// launch config (raw config text: escape it for display).
	Pending(ctx context.Context, owner string) []PendingServer
	// SessionTrusts are the owner's session-scoped trusts.
	SessionTrusts(owner string) []SessionTrust
	// UntrustSession drops the owner's session trust in a server;
	// Untrust clears the persistent trust too.
	UntrustSession(owner, server string) error
	Untrust(ctx context.Context, owner, server string) error
	// Review describes one tool for the owner's approval prompt.
	Review(ctx context.Context, owner, server, tool string) (Review, error)
}

// Trusted is what a trust was given to: the launch config's hash and each
// tool's hash (nil when the server was not found afterwards).
type Trusted struct {
	ConfigHash string
	ToolHashes map[string]string
}

// PendingServer is a server not trusted with its current launch config.
type PendingServer struct {
	Name, Source, Transport string
	Command                 string
	Args                    []string
	URL                     string
	EnvNames                []string
	Workspace               string
	// Changed: it was trusted, but its launch config changed since.
	Changed bool
}

// SessionTrust is one session-scoped trust.
type SessionTrust struct {
	Server    string
	TrustedAt time.Time
}

// Review is what a human needs to judge an MCP call's tool (raw server
// data: show it escaped). Change is why it is not trusted: "server",
// "config", "new", "changed", or "" when it is trusted.
type Review struct {
	Change         string
	Description    string
	OldDescription string
	Schema         json.RawMessage
}
