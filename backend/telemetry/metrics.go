package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// meters are the few metrics the export adds to its records, counted when
// the collector acknowledged a batch (so a record resent after a crash may
// count twice; the logs are the exact account):
//
//	warden.decisions           {warden.decision, warden.decision.layer, warden.tool}
//	warden.ask.answer_duration seconds a human (or answerer) took to answer an ask
type meters struct {
	decisions metric.Int64Counter
	answer    metric.Float64Histogram
}

func newMeters(m metric.Meter) (meters, error) {
	if m == nil {
		m = noop.NewMeterProvider().Meter(scopeName)
	}
	d, err := m.Int64Counter("warden.decisions", metric.WithUnit("{decision}"),
		metric.WithDescription("Permission decisions by verdict, deciding layer and tool"))
	if err != nil {
		return meters{}, err
	}
	a, err := m.Float64Histogram("warden.ask.answer_duration", metric.WithUnit("s"),
		metric.WithDescription("Time from an ask to its answer"),
		metric.WithExplicitBucketBoundaries(0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600))
	if err != nil {
		return meters{}, err
	}
	return meters{decisions: d, answer: a}, nil
}

// count adds one batch's decisions.
func (m meters) count(ctx context.Context, recs []Record) {
	for _, r := range recs {
		if r.EventName != "warden."+ClassDecision {
			continue
		}
		var verdict, layer, tool string
		wait := int64(-1)
		for _, kv := range r.Attrs {
			switch kv.Key {
			case "warden.decision":
				verdict = kv.Value.AsString()
			case AttrLayer:
				layer = kv.Value.AsString()
			case "warden.tool":
				tool = kv.Value.AsString()
			case "warden.ask.wait_ms":
				wait = kv.Value.AsInt64()
			}
		}
		set := metric.WithAttributes(attribute.String("warden.decision", verdict), attribute.String(AttrLayer, layer),
			attribute.String("warden.tool", tool))
		m.decisions.Add(ctx, 1, set)
		if wait >= 0 {
			m.answer.Record(ctx, float64(wait)/1000, metric.WithAttributes(attribute.String("warden.decision", verdict),
				attribute.String(AttrLayer, layer)))
		}
	}
}
