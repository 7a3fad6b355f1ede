package assemble

import (
	"fmt"

	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
)

// loadMCPKey reads (or makes, on first use) the key MCP launch hashes are
// made with, beside the user config. Both builds make it at the same point
// of Open, whether or not they run MCP servers: the slim one hands any
// configuration with a server to the full one (slim.go), and either way a
// user finds the same files afterwards.
func loadMCPKey(userPath string) ([]byte, error) {
	key, err := mcpconfig.LoadHashKey(mcpconfig.HashKeyPath(userPath))
	if err != nil {
		return nil, fmt.Errorf("assemble: MCP: %w", err)
	}
	return key, nil
}
