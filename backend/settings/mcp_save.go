package settings

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
)

// MCP servers from the Settings screen: the same [mcp.servers.NAME] tables
// of the user's config.toml a person writes by hand, read by the same code
// (backend/mcp) that `warden mcp list` and every session use, with the same
// launch hash — so trust given in the window, the CLI or a prompt binds to
// the same thing, and a changed command voids it. A save reloads every
// workspace's servers at once: nothing waits for a restart.

// McpServersArgs pick whose view of the servers: an open session's (its
// workspace's servers, its trust), or none (the user's servers).
type McpServersArgs struct {
	SessionID string `json:"session_id,omitempty"`
}

// McpServerArgs add or edit one server of the user config. Previous names
// the server being edited (a rename moves it). Env and Headers hold values
// to set; KeepEnv and KeepHeaders name stored values to keep as they are
// (the screen never sees them); a stored name in neither list is removed.
type McpServerArgs struct {
	SessionID   string            `json:"session_id,omitempty"`
	Name        string            `json:"name"`
	Previous    string            `json:"previous,omitempty"`
	Command     string            `json:"command,omitempty"`
	Args        []string          `json:"args,omitempty"`
	URL         string            `json:"url,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	KeepEnv     []string          `json:"keep_env,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	KeepHeaders []string          `json:"keep_headers,omitempty"`
	Sandbox     string            `json:"sandbox,omitempty" ts:"'' | 'cage' | 'none'"`
}

// McpRemoveArgs remove one server of the user config.
type McpRemoveArgs struct {
	SessionID string `json:"session_id,omitempty"`
	Name      string `json:"name"`
}

// ErrNotUserServer is the refusal to edit a server that comes from a
// workspace (.mcp.json, .warden/config.toml): it is the repository's.
var ErrNotUserServer = errors.New("not a server of your config.toml")

// SaveMcpServer writes one server and reloads the servers everywhere.
func (s *Service) SaveMcpServer(ctx context.Context, a McpServerArgs) ([]mcp.ServerStatus, error) {
	a.Name, a.Previous, a.Command, a.URL = strings.TrimSpace(a.Name), strings.TrimSpace(a.Previous), strings.TrimSpace(a.Command), strings.TrimSpace(a.URL)
	if a.Name == "" {
		return nil, invalid("the server needs a name")
	}
	if (a.Command == "") == (a.URL == "") {
		return nil, invalid("give the server either a command (a program Warden starts) or a URL (an HTTP server), not both")
	}
	switch a.Sandbox {
	case "", mcp.SandboxCage, mcp.SandboxNone:
	default:
		return nil, invalid("sandbox %q is not cage or none", a.Sandbox)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, err := s.userServers()
	if err != nil {
		return nil, err
	}
	if a.Previous != "" {
		if _, ok := stored[a.Previous]; !ok {
			return nil, fmt.Errorf("%w: %q (edit it where it is defined)", ErrNotUserServer, a.Previous)
		}
	}
	if a.Name != a.Previous {
		if _, taken := stored[a.Name]; taken {
			return nil, invalid("a server named %q is already in %s", a.Name, s.opts.ConfigPath)
		}
	}
	old := stored[a.Previous]
	entry := &config.McpServerEntry{Command: a.Command, Args: a.Args, URL: a.URL, Sandbox: a.Sandbox,
		Env: merged(a.Env, a.KeepEnv, old.Env), Headers: merged(a.Headers, a.KeepHeaders, old.Headers)}
	if err := config.SaveUserMcpServer(s.opts.ConfigPath, a.Name, a.Previous, entry, s.checkMcp); err != nil {
		return nil, err
	}
	s.reloadMcp(ctx)
	return s.McpServers(ctx, McpServersArgs{SessionID: a.SessionID})
}

// RemoveMcpServer deletes one server of the user config and stops it.
func (s *Service) RemoveMcpServer(ctx context.Context, a McpRemoveArgs) ([]mcp.ServerStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, err := s.userServers()
	if err != nil {
		return nil, err
	}
	if _, ok := stored[a.Name]; !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotUserServer, a.Name)
	}
	if err := config.SaveUserMcpServer(s.opts.ConfigPath, a.Name, "", nil, s.checkMcp); err != nil {
		return nil, err
	}
	s.reloadMcp(ctx)
	return s.McpServers(ctx, McpServersArgs{SessionID: a.SessionID})
}

// userServers are the servers config.toml holds now, with their secrets.
func (s *Service) userServers() (map[string]mcp.ServerConfig, error) {
	data, err := os.ReadFile(s.opts.ConfigPath)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]mcp.ServerConfig{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("MCP servers: %w", err)
	}
	servers, err := mcpconfig.ParseUserConfig(data, s.opts.ConfigPath)
	if servers == nil {
		return nil, fmt.Errorf("%w (fix the file by hand first)", err)
	}
	return servers, nil
}

// checkMcp refuses a file in which backend/mcp would not read every server.
func (s *Service) checkMcp(data []byte) error {
	if _, err := mcpconfig.ParseUserConfig(data, s.opts.ConfigPath); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

func (s *Service) reloadMcp(ctx context.Context) {
	if s.opts.ReloadMCP != nil {
		s.opts.ReloadMCP(ctx)
	}
}

// merged is the new values plus the kept stored ones.
func merged(set map[string]string, keep []string, stored map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range keep {
		if v, ok := stored[k]; ok {
			out[k] = v
		}
	}
	for k, v := range set {
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
