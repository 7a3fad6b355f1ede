//go:build wardenslim

package assemble

import (
	"context"
	"errors"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
)

// The slim build's side of linked.go: no model provider, no OpenTelemetry
// sender, no Settings service. notLinked names the first of them a graph
// would need, and Open refuses that graph before opening anything.

// SettingsService is absent from the slim build: Graph.Settings stays nil.
type SettingsService struct{}

// TelemetrySender is absent from the slim build: Graph.Telemetry stays nil.
type TelemetrySender struct{}

// errNotLinked is what the providers say in the slim build; Open never
// gets there (notLinked refuses a graph that needs one first).
var errNotLinked = errors.New("assemble: model providers are not in this build of warden")

// notLinked says which part o and c need that this build lacks, "" when
// none: a model (a front end that runs the agent), the OpenTelemetry export
// (the user's or the organisation's [telemetry]), or a reviewer model among
// the answerers (the user's, or the workspace's own .warden/config.toml,
// which the lineup reads per call).
func notLinked(c config.Config, o Options) string {
	if !o.NoModel {
		return "the model providers"
	}
	if c.Telemetry.Enabled {
		return "the OpenTelemetry export ([telemetry] is on)"
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

// Provider is absent from the slim build.
func Provider(string, string, string) (model.Provider, bool, error) {
	return nil, false, errNotLinked
}

func (g *Graph) openSettings(Options, string, *policy.Org) error { return nil }

func (g *Graph) telemetryOptions() []store.Option { return nil }

func (g *Graph) startTelemetry(context.Context, string) error { return nil }

func (g *Graph) closeTelemetry() error { return nil }
