package app

import (
	"fmt"

	"github.com/warden-dev/warden/backend/settings"
	"github.com/warden-dev/warden/backend/tools/mcp"
)

// The methods below bind settings.Service for the Settings screen, with
// the argument objects of the HTTP transport.

func (a *App) settingsService() (*settings.Service, error) {
	if a.settings == nil {
		if a.connErr != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotConnected, a.connErr)
		}
		return nil, ErrNotConnected
	}
	return a.settings, nil
}

// GetSettings reads the user's settings; the API key itself is never sent.
func (a *App) GetSettings() (settings.Settings, error) {
	s, err := a.settingsService()
	if err != nil {
		return settings.Settings{}, err
	}
	return s.GetSettings(a.ctx())
}

// SaveModelSettings writes the model to config.toml and switches to it.
func (a *App) SaveModelSettings(args settings.ModelArgs) (settings.Settings, error) {
	s, err := a.settingsService()
	if err != nil {
		return settings.Settings{}, err
	}
	return s.SaveModelSettings(a.ctx(), args)
}

// SaveDefaults writes the defaults new sessions start with.
func (a *App) SaveDefaults(args settings.Defaults) (settings.Settings, error) {
	s, err := a.settingsService()
	if err != nil {
		return settings.Settings{}, err
	}
	return s.SaveDefaults(a.ctx(), args)
}

// SaveNetworkSettings writes the [network] table (presets, allow, deny).
func (a *App) SaveNetworkSettings(args settings.NetworkArgs) (settings.Settings, error) {
	s, err := a.settingsService()
	if err != nil {
		return settings.Settings{}, err
	}
	return s.SaveNetwork(a.ctx(), args)
}

// ListModels asks a provider which models it offers.
func (a *App) ListModels(args settings.ProbeArgs) ([]settings.ModelInfo, error) {
	s, err := a.settingsService()
	if err != nil {
		return nil, err
	}
	return s.ListModels(a.ctx(), args)
}

// TestConnection checks a provider's address, key and model.
func (a *App) TestConnection(args settings.ProbeArgs) (settings.ConnectionResult, error) {
	s, err := a.settingsService()
	if err != nil {
		return settings.ConnectionResult{}, err
	}
	return s.TestConnection(a.ctx(), args)
}

// McpServers lists the configured MCP servers with their state and tools.
func (a *App) McpServers() ([]mcp.ServerStatus, error) {
	s, err := a.settingsService()
	if err != nil {
		return nil, err
	}
	return s.McpServers(a.ctx())
}

// McpLog returns the tail of an MCP server's stderr log.
func (a *App) McpLog(args settings.McpLogArgs) (settings.McpLog, error) {
	s, err := a.settingsService()
	if err != nil {
		return settings.McpLog{}, err
	}
	return s.McpLog(a.ctx(), args)
}
