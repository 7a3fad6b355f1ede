package settings

import (
	"context"

	"github.com/warden-dev/warden/backend/telemetry"
)

// TelemetryStatus is the OpenTelemetry export's state for the Settings
// screen: where it sends, whether the last send worked, what waits in the
// outbox and the last error in words. Off when [telemetry] has no endpoint.
func (s *Service) TelemetryStatus(ctx context.Context) (telemetry.ExportStatus, error) {
	if s.opts.Telemetry == nil {
		return telemetry.ExportStatus{State: "off", Pinned: []string{}}, nil
	}
	return s.opts.Telemetry(ctx)
}
