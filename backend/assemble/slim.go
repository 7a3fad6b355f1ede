//go:build wardenslim

package assemble

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// The slim build's side of linked.go: no model provider, no OpenTelemetry
// sender, no Settings service, no browser tools, no computer.use, no MCP
// client. notLinked names the first of them a graph would need, and Open
// refuses that graph before opening anything.

// partialBuild: this build lacks tools the full one has (Graph.ToolNotLinked).
const partialBuild = true

// SettingsService is absent from the slim build: Graph.Settings stays nil.
type SettingsService struct{}

// TelemetrySender is absent from the slim build: Graph.Telemetry stays nil.
type TelemetrySender struct{}

// BrowserManager, MCPManager and MCPPool are absent from the slim build:
// Graph.Browser, Graph.MCP and Graph.MCPPool stay nil.
type (
	BrowserManager struct{}
	MCPManager     struct{}
	MCPPool        struct{}
)

// errNotLinked is what the providers say in the slim build; Open never
// gets there (notLinked refuses a graph that needs one first).
var errNotLinked = errors.New("assemble: model providers are not in this build of warden")

// notLinked says which part o and c need that this build lacks, "" when
// none: a model (a front end that runs the agent), the OpenTelemetry export
// (the user's or the organisation's [telemetry]), a tool of the browser,
// computer.use or MCP (Options.Tool), an MCP server configured for the
// user or the workspace (the full build starts the user's to list their
// tools, and a session's calls may reach the workspace's), or a reviewer
// model among the answerers (the user's, or the workspace's own
// .warden/config.toml, which the lineup reads per call).
func notLinked(c config.Config, o Options, userPath string) string {
	if !o.NoModel {
		return "the model providers"
	}
	if c.Telemetry.Enabled {
		return "the OpenTelemetry export ([telemetry] is on)"
	}
	if why := toolNotLinked(o.Tool); why != "" {
		return why
	}
	// Every configured server counts, also one the organisation's
	// allowlist will drop: the full binary then runs the call as this one
	// would, only slower.
	if mc := mcpconfig.LoadConfig(userPath, o.Workspace); len(mc.Servers) > 0 {
		return "the MCP client (" + strconv.Itoa(len(mc.Servers)) + " MCP server(s) configured)"
	}
	answerers := c.Answerers
	if o.Workspace != "" {
		// A file that cannot be read: the full binary reports it the
		// way the lineup always has.
		ws, _, _, err := config.ReadWorkspaceAnswerers(o.Workspace)
		if err != nil {
			return "the workspace's answerers (" + err.Error() + ")"
		}
		answerers = append(append([]config.AnswererSpec(nil), answerers...), ws...)
	}
	for _, a := range answerers {
		if a.Kind == config.AnswererModel {
			return "reviewer models (answerer " + a.Name + ")"
		}
	}
	return ""
}

// toolNotLinked names the part a tool of these names needs: the browser
// tools (browser.action, browser.batch), computer.use, and MCP tools by
// their gate ("mcp-tool:<server>/<tool>") or model ("mcp__…") names. Any
// other name this build does not know is handed over after Open
// (Graph.ToolNotLinked).
func toolNotLinked(name string) string {
	switch {
	case strings.HasPrefix(name, "browser."):
		return "the browser tools (" + name + ")"
	case strings.HasPrefix(name, "computer."):
		return "computer use (" + name + ")"
	case strings.HasPrefix(name, "mcp-tool:"), strings.HasPrefix(name, "mcp__"):
		return "the MCP client (" + name + ")"
	}
	return ""
}

func (g *Graph) openOptional(context.Context, Options, string, []byte) error { return nil }

func (g *Graph) wireOptional(*runtime.Config) {}

func (g *Graph) optionalTool(string) (tools.Tool, bool) { return nil, false }

// CloseBrowser: no session has a browser in the slim build.
func (g *Graph) CloseBrowser(string) error { return nil }

func (g *Graph) closeOptional() []error { return nil }

// Provider is absent from the slim build.
func Provider(string, string, string) (model.Provider, bool, error) {
	return nil, false, errNotLinked
}

func (g *Graph) openSettings(Options, string, *policy.Org) error { return nil }

func (g *Graph) telemetryOptions() []store.Option { return nil }

func (g *Graph) startTelemetry(context.Context, string) error { return nil }

func (g *Graph) closeTelemetry() error { return nil }
