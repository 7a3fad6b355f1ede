//go:build !wardenslim

package assemble

import (
	"context"
	"fmt"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/runtime/model/factory"
	"github.com/warden-dev/warden/backend/runtime/model/openai"
	"github.com/warden-dev/warden/backend/settings"
	"github.com/warden-dev/warden/backend/telemetry"
	"github.com/warden-dev/warden/backend/tools"
	"github.com/warden-dev/warden/backend/tools/browser"
	"github.com/warden-dev/warden/backend/tools/computer"
)

// The full build's side of linked.go: the model providers, the
// OpenTelemetry sender (telemetry.go), the Settings service, the browser
// tools, computer.use and MCP (mcp.go).

// SettingsService is the Settings screen's service (Graph.Settings).
type SettingsService = settings.Service

// TelemetrySender drains the OpenTelemetry outbox (Graph.Telemetry).
type TelemetrySender = telemetry.Sender

// BrowserManager runs the browser tools' Chromium (Graph.Browser).
type BrowserManager = browser.Manager

// MCPManager is the user config's MCP servers (Graph.MCP).
type MCPManager = mcp.Manager

// MCPPool is every workspace's MCP servers (Graph.MCPPool).
type MCPPool = mcp.Pool

// partialBuild: this build links every part.
const partialBuild = false

// notLinked: the full build links every part.
func notLinked(config.Config, Options, string) string { return "" }

// openOptional registers the browser tools and computer.use and opens MCP.
func (g *Graph) openOptional(ctx context.Context, o Options, userPath string, mcpKey []byte) error {
	g.Browser = browser.NewManager(browser.Options{Roots: func() []string { return g.WritableRoots(context.Background()) }})
	for _, t := range []tools.Tool{browser.NewActionTool(g.Browser), browser.NewBatchTool(g.Browser), computer.New(computer.Options{})} {
		if err := g.Tools.Register(t); err != nil {
			return fmt.Errorf("assemble: %w", err)
		}
	}
	return g.openMCP(ctx, o, userPath, mcpKey)
}

// wireOptional gives the runtime the browser's and MCP's session ends and
// the MCP servers.
func (g *Graph) wireOptional(cfg *runtime.Config) {
	br := g.Browser
	cfg.OnSessionClose = append(cfg.OnSessionClose, func(id string) { _ = br.Close(id) })
	cfg.MCP = g.MCPPool.Port()
	cfg.OnSessionClose = append(cfg.OnSessionClose, g.MCPPool.EndSession)
}

// optionalTool finds an MCP tool of the user config's servers by its gate
// or model name.
func (g *Graph) optionalTool(name string) (tools.Tool, bool) {
	if g.MCP != nil {
		if a, ok := g.MCP.Lookup(name); ok {
			return a, true
		}
	}
	return nil, false
}

// CloseBrowser closes a session's browser context, if it has one.
func (g *Graph) CloseBrowser(sessionID string) error {
	if g.Browser == nil {
		return nil
	}
	return g.Browser.Close(sessionID)
}

// closeOptional stops the MCP servers and the browser.
func (g *Graph) closeOptional() []error {
	var errs []error
	if g.MCP != nil {
		errs = append(errs, g.MCP.Close())
	}
	if g.MCPPool != nil {
		errs = append(errs, g.MCPPool.Close())
	}
	if g.Browser != nil {
		errs = append(errs, g.Browser.Shutdown())
	}
	return errs
}

// Provider turns a model spec into a provider; demo reports whether it is
// the built-in demo script. An empty spec is the demo.
func Provider(spec, baseURL, apiKey string) (model.Provider, bool, error) {
	if spec == "" {
		spec = model.KindDemo
	}
	sp, err := model.ParseModelSpec(spec)
	if err != nil {
		return nil, false, err
	}
	p, err := factory.FromSpec(sp, factory.Config{
		Anthropic: anthropic.Config{BaseURL: baseURL, APIKey: apiKey},
		OpenAI:    openai.Config{BaseURL: baseURL, APIKey: apiKey},
	})
	return p, sp.Provider == model.KindDemo, err
}

// openSettings makes the Settings screen's service over the running graph.
func (g *Graph) openSettings(o Options, userPath string, org *policy.Org) error {
	var err error
	g.Settings, err = settings.New(settings.Options{ConfigPath: userPath, Runtime: g.Service, BuildProvider: Provider,
		MCP: g.MCP, ReloadMCP: g.reloadMCP, Warnings: append(append([]string{}, g.Config.Warnings...), g.mcpWarnings...), Cage: g.Cage,
		AllowHosts: o.AllowHosts, Org: org, Telemetry: g.TelemetryStatus})
	return err
}
