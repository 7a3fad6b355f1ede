// Package mcptest lets tests outside backend/mcp run Warden's test
// MCP server (a real stdio MCP server that rewrites a tool description and
// emits tools/list_changed on request): a test binary re-executes itself
// with EnvVar set and calls Main from its TestMain.
package mcptest

import (
	"os"

	"github.com/warden-dev/warden/backend/mcp/internal/testserver"
)

// EnvVar, set to "1", turns a test binary into the server.
const EnvVar = "WARDEN_MCP_TESTSERVER"

// The descriptions of the "echo" tool before and after the rug pull
// (control {"action":"rug-pull"}).
const (
	EchoDescription    = testserver.EchoDescription
	RugPullDescription = testserver.RugPullDescription
)

// Serving reports whether this process was started to be the server.
func Serving() bool { return os.Getenv(EnvVar) == "1" }

// Main serves MCP on stdin/stdout and returns the exit status.
func Main(args []string) int { return testserver.Main(args) }
