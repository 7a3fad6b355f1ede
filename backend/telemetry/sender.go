package telemetry

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/store"
)

// Outbox is the store's side of the export; *store.Store is one.
type Outbox interface {
	Lookup
	ClaimOutbox(ctx context.Context, n int, lease time.Duration) ([]store.OutboxItem, error)
	AckOutbox(ctx context.Context, seqs []int64) error
	ReleaseOutbox(ctx context.Context, seqs []int64, retryAt time.Time, why string) error
	TrimOutbox(ctx context.Context, b store.OutboxBound) (int64, error)
	OutboxStats(ctx context.Context) (store.OutboxStats, error)
}

// SenderConfig wires a Sender. Telemetry and Outbox are required.
type SenderConfig struct {
	Telemetry config.Telemetry
	Outbox    Outbox
	Version   string
	// Batch is the most records one request carries (default 256); Poll
	// how often an idle sender looks for new records (default 200ms);
	// Lease how long a claimed batch is this sender's (default 30s);
	// Timeout bounds one request (default 10s); MinBackoff and MaxBackoff
	// bound the wait after a failure (default 500ms, 30s); TrimEvery how
	// often the bound is enforced (default 30s).
	Batch                  int
	Poll, Lease, Timeout   time.Duration
	MinBackoff, MaxBackoff time.Duration
	TrimEvery              time.Duration
	Now                    func() time.Time
}

// Sender drains the outbox to the collector, off every tool call's path.
type Sender struct {
	cfg    SenderConfig
	logs   *logPipe
	mp     *sdkmetric.MeterProvider
	meters meters

	mu       sync.Mutex
	failing  bool // the last send failed
	backoff  time.Duration
	stop     context.CancelFunc
	done     chan struct{}
	lastTrim time.Time
}

// NewSender builds the OTLP pipeline. It does not connect: a collector
// that is down is the loop's business, never the caller's.
func NewSender(ctx context.Context, cfg SenderConfig) (*Sender, error) {
	if cfg.Outbox == nil {
		return nil, errors.New("telemetry: sender needs the store's outbox")
	}
	if !cfg.Telemetry.Enabled || cfg.Telemetry.Endpoint == "" {
		return nil, errors.New("telemetry: the export is off (no [telemetry] endpoint)")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 256
	}
	def(&cfg.Poll, 200*time.Millisecond)
	def(&cfg.Lease, 30*time.Second)
	def(&cfg.Timeout, 10*time.Second)
	def(&cfg.MinBackoff, 500*time.Millisecond)
	def(&cfg.MaxBackoff, 30*time.Second)
	def(&cfg.TrimEvery, 30*time.Second)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	res := newResource(cfg.Telemetry, cfg.Version)
	s := &Sender{cfg: cfg}
	var err error
	if s.logs, err = newLogPipe(ctx, cfg.Telemetry, res, cfg.Version, cfg.Timeout); err != nil {
		return nil, err
	}
	if cfg.Telemetry.Metrics {
		if s.mp, err = newMeterProvider(ctx, cfg.Telemetry, res, cfg.Timeout); err != nil {
			return nil, err
		}
		s.meters, err = newMeters(s.mp.Meter(scopeName))
	} else {
		s.meters, err = newMeters(nil)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: metrics: %w", err)
	}
	return s, nil
}

// Start runs the loop until Close.
func (s *Sender) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.stop, s.done = cancel, make(chan struct{})
	s.mu.Unlock()
	go func() {
		defer close(s.done)
		s.loop(ctx)
	}()
}

func (s *Sender) loop(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := s.SendOnce(ctx)
		var wait time.Duration
		switch {
		case err != nil:
			wait = s.nextBackoff()
		case n == 0:
			wait = s.cfg.Poll
		default:
			continue // more may be waiting
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

func (s *Sender) nextBackoff() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.backoff == 0 {
		s.backoff = s.cfg.MinBackoff
	} else {
		s.backoff = min(2*s.backoff, s.cfg.MaxBackoff)
	}
	return s.backoff
}

// SendOnce enforces the bound when due, then sends one batch: it reports
// how many records the collector acknowledged, or why it did not.
func (s *Sender) SendOnce(ctx context.Context) (int, error) {
	now := s.cfg.Now()
	if now.Sub(s.lastTrim) >= s.cfg.TrimEvery {
		s.lastTrim = now
		s.cfg.Outbox.TrimOutbox(ctx, store.OutboxBound{MaxRecords: s.cfg.Telemetry.OutboxMaxRecs, MaxAge: s.cfg.Telemetry.OutboxMaxAge})
	}
	items, err := s.cfg.Outbox.ClaimOutbox(ctx, s.cfg.Batch, s.cfg.Lease)
	if err != nil || len(items) == 0 {
		return 0, err
	}
	recs := make([]Record, len(items))
	seqs := make([]int64, len(items))
	for i, it := range items {
		seqs[i] = it.Seq
		r, err := Build(ctx, s.cfg.Outbox, it, BuildOptions{LogArguments: s.cfg.Telemetry.LogArguments})
		if err != nil {
			r = fallback(it, err)
		}
		recs[i] = r
	}
	sctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	err = s.logs.export(sctx, recs)
	cancel()
	wctx := context.WithoutCancel(ctx)
	if err != nil {
		why := errorWords(s.cfg.Telemetry.Endpoint, err)
		s.mu.Lock()
		s.failing = true
		b := s.backoff
		s.mu.Unlock()
		retry := s.cfg.Now().Add(max(b, s.cfg.MinBackoff))
		if rerr := s.cfg.Outbox.ReleaseOutbox(wctx, seqs, retry, why); rerr != nil {
			return 0, errors.Join(err, rerr)
		}
		return 0, fmt.Errorf("telemetry: %s", why)
	}
	if err := s.cfg.Outbox.AckOutbox(wctx, seqs); err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.failing, s.backoff = false, 0
	s.mu.Unlock()
	s.meters.count(ctx, recs)
	return len(items), nil
}

// fallback is the record of an event whose record could not be built (its
// session is gone, say): the chain fields and why, so the collector still
// sees the sequence complete.
func fallback(it store.OutboxItem, err error) Record {
	return Record{Time: it.Time, EventName: "warden." + classOf(it.Event), Severity: log.SeverityWarn,
		Body: string(it.Kind) + " — record incomplete: " + err.Error(),
		Attrs: []attribute.KeyValue{attribute.String(AttrRecord, classOf(it.Event)), attribute.String(AttrSession, it.SessionID),
			attribute.String(AttrEventKind, string(it.Kind)), attribute.Int64(AttrEventSeq, it.Seq),
			attribute.Int64(AttrChainSeq, it.Version), attribute.String(AttrChainHash, hex.EncodeToString(it.Hash)),
			attribute.Int64(AttrPrevExported, it.PrevVersion), attribute.String("warden.record.error", err.Error())}}
}

// Flush sends until the outbox is empty, a send fails or ctx ends.
func (s *Sender) Flush(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := s.SendOnce(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
	return ctx.Err()
}

// Close stops the loop and sends what is queued until ctx ends or a send
// fails; what is left waits in the outbox for the next start. Metrics are
// flushed the same way (and given up on when the collector is failing).
func (s *Sender) Close(ctx context.Context) error {
	s.mu.Lock()
	stop, done, failing := s.stop, s.done, s.failing
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	var errs []error
	// One more try even after failures (the collector may be back); the
	// first failure ends it, and what is left waits for the next start.
	if err := s.Flush(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		failing = true
		if !strings.HasPrefix(err.Error(), "telemetry: ") {
			errs = append(errs, err)
		}
	}
	if s.mp != nil {
		if failing {
			// A dead collector would hold the shutdown's final export
			// until ctx ends; the counts are lost, the logs are not.
			c, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			s.mp.Shutdown(c)
			cancel()
		} else {
			errs = append(errs, s.mp.Shutdown(ctx))
		}
	}
	errs = append(errs, s.logs.shutdown(ctx))
	return errors.Join(errs...)
}

// ExportStatus is the export's state for Settings.
type ExportStatus struct {
	Enabled      bool     `json:"enabled"`
	Endpoint     string   `json:"endpoint"`
	Protocol     string   `json:"protocol"`
	LogArguments bool     `json:"log_arguments"`
	Required     bool     `json:"required"`
	Pinned       []string `json:"pinned"`
	// State is off, ok (the last send succeeded), failing (it did not) or
	// waiting (nothing sent yet).
	State       string `json:"state" ts:"'off' | 'ok' | 'failing' | 'waiting'"`
	Queued      int64  `json:"queued"`
	OldestMs    int64  `json:"oldest_ms"` // 0: nothing queued
	Sent        int64  `json:"sent"`
	Dropped     int64  `json:"dropped"`
	LastSuccess int64  `json:"last_success_ms"` // 0: never
	LastError   string `json:"last_error"`
	LastErrorAt int64  `json:"last_error_ms"`
}

// StatusOf reads the export's state from the store: the counters and last
// outcome are kept there, so any process sees what the sender did.
func StatusOf(ctx context.Context, t config.Telemetry, o interface {
	OutboxStats(context.Context) (store.OutboxStats, error)
}) (ExportStatus, error) {
	st := ExportStatus{Enabled: t.Enabled, Endpoint: t.Endpoint, Protocol: t.Protocol, LogArguments: t.LogArguments,
		Required: t.Required, Pinned: append([]string{}, t.Pinned...), State: "off"}
	if o == nil {
		return st, nil
	}
	os, err := o.OutboxStats(ctx)
	if err != nil {
		return st, err
	}
	st.Queued, st.Sent, st.Dropped, st.LastError = os.Queued, os.Sent, os.Dropped, os.LastError
	ms := func(t time.Time) int64 {
		if t.IsZero() {
			return 0
		}
		return t.UnixMilli()
	}
	st.OldestMs, st.LastSuccess, st.LastErrorAt = ms(os.Oldest), ms(os.LastSuccess), ms(os.LastErrorAt)
	if t.Enabled {
		switch {
		case st.LastErrorAt > st.LastSuccess:
			st.State = "failing"
		case st.LastSuccess > 0:
			st.State = "ok"
		default:
			st.State = "waiting"
		}
	}
	return st, nil
}
