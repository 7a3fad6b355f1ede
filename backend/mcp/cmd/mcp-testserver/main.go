// Command mcp-testserver is Warden's test MCP server as a program, for the
// end-to-end runs: it speaks MCP on stdin/stdout and, on request (its
// "control" tool), rewrites the "echo" description and emits
// tools/list_changed, adds or removes the "ghost" tool.
package main

import (
	"os"

	"github.com/warden-dev/warden/backend/mcp/mcptest"
)

func main() { os.Exit(mcptest.Main(os.Args[1:])) }
