//go:build !wardenslim

package assemble

import (
	"context"
	"time"

	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/telemetry"
)

// The OpenTelemetry export (not in the slim build, which hands a command
// with the export on to the full binary: linked.go): when [telemetry] is on, the store queues every
// exported event in its append transaction and a Sender drains the queue in
// the background; Close gives it a moment to send what is left (a dead
// collector gets none: the outbox keeps it for the next start).

// telemetryOptions are the store options the export needs.
func (g *Graph) telemetryOptions() []store.Option {
	if !g.Config.Telemetry.Enabled {
		return nil
	}
	return []store.Option{store.WithOutbox(telemetry.Exported)}
}

// startTelemetry starts the sender when the export is on.
func (g *Graph) startTelemetry(ctx context.Context, version string) error {
	if !g.Config.Telemetry.Enabled {
		return nil
	}
	s, err := telemetry.NewSender(ctx, telemetry.SenderConfig{Telemetry: g.Config.Telemetry, Outbox: g.Store, Version: version})
	if err != nil {
		return err
	}
	g.Telemetry = s
	s.Start()
	return nil
}

// TelemetryStatus is the export's state for Settings.
func (g *Graph) TelemetryStatus(ctx context.Context) (telemetry.ExportStatus, error) {
	return telemetry.StatusOf(ctx, g.Config.Telemetry, g.Store)
}

// telemetryCloseWait bounds how long Close sends what is still queued.
const telemetryCloseWait = 2 * time.Second

func (g *Graph) closeTelemetry() error {
	if g.Telemetry == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetryCloseWait)
	defer cancel()
	return g.Telemetry.Close(ctx)
}
