package mcp

import "github.com/warden-dev/warden/backend/mcp/mcpconfig"

// The configuration's types live in mcpconfig (no MCP client there); these
// names keep this package's vocabulary.
type (
	Config       = mcpconfig.Config
	ServerConfig = mcpconfig.ServerConfig
	Transport    = mcpconfig.Transport
	ConfigError  = mcpconfig.ConfigError
)

const (
	TransportStdio = mcpconfig.TransportStdio
	TransportHTTP  = mcpconfig.TransportHTTP
	SandboxCage    = mcpconfig.SandboxCage
	SandboxNone    = mcpconfig.SandboxNone
)
