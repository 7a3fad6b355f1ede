//go:build !wardenslim

package assemble

import (
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/runtime/model/factory"
	"github.com/warden-dev/warden/backend/runtime/model/openai"
	"github.com/warden-dev/warden/backend/settings"
	"github.com/warden-dev/warden/backend/telemetry"
)

// The full build's side of linked.go: the model providers, the
// OpenTelemetry sender (telemetry.go) and the Settings service.

// SettingsService is the Settings screen's service (Graph.Settings).
type SettingsService = settings.Service

// TelemetrySender drains the OpenTelemetry outbox (Graph.Telemetry).
type TelemetrySender = telemetry.Sender

// notLinked: the full build links every part.
func notLinked(config.Config, Options) string { return "" }

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
