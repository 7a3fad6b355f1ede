package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/warden-dev/warden/backend/auditkey"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// StoreResult holds the store's figures.
type StoreResult struct {
	AppendSingle Stat    `json:"durable_append_single_events_per_sec"`
	AppendBatch  Stat    `json:"durable_append_batch100_events_per_sec"`
	Events       int64   `json:"db_events"`
	BuildSeconds float64 `json:"db_build_seconds,omitempty"`
	Last200Big   Stat    `json:"last200_big_session_ms"`
	Last200      Stat    `json:"last200_ordinary_session_ms"`
	Audit        Stat    `json:"permission_audit_ms"`
	// The same queries in this process's CPU time (user+sys): what the
	// query costs, without the wait for a core on a shared machine.
	Last200BigCPU Stat   `json:"last200_big_session_cpu_ms"`
	Last200CPU    Stat   `json:"last200_ordinary_session_cpu_ms"`
	AuditCPU      Stat   `json:"permission_audit_cpu_ms"`
	AuditEvents   int    `json:"permission_audit_events"`
	Error         string `json:"error,omitempty"`
}

// sampleEvent is the store benchmark's realistic mix (backend/store's
// bench_test.go): every third event belongs to the permission audit.
func sampleEvent(i int) store.Event {
	id := strconv.Itoa(i)
	switch i % 6 {
	case 0:
		return store.PermissionRequested{RequestID: id, CallID: id, Tool: "shell.exec", Args: []byte(`{"command":"npm test"}`),
			Risk: policy.RiskMedium, Reasons: []policy.Reason{policy.ReasonUnknownCommand}, Signature: "shell:npm test",
			Effects: []policy.Effect{{Kind: policy.EffectExec, Command: "npm test", Cwd: "/bench"}},
			Trace:   []policy.Step{{Step: "approval", Saw: "unknown command", Concluded: "ask"}}}
	case 1:
		return store.PermissionGranted{RequestID: strconv.Itoa(i - 1), CallID: strconv.Itoa(i - 1), Tool: "shell.exec", Source: "human:once"}
	case 2:
		return store.ToolInvocationStarted{CallID: id, Tool: "shell.exec", Args: []byte(`{"command":"npm test"}`)}
	case 3:
		return store.ToolOutput{CallID: id, Stream: "stdout", Chunk: "PASS src/app.test.ts (12 tests)\n"}
	case 4:
		return store.ToolInvocationCompleted{CallID: id, Tool: "shell.exec", Output: "ok", DurationMs: 1200}
	default:
		return store.MessageAppended{Role: "assistant", Text: "The tests pass; next I will update the changelog."}
	}
}

const (
	bigSessions   = 900
	bigPerSession = 1000
	bigSession    = 100_000
	bigTotal      = bigSessions*bigPerSession + bigSession
	bigRounds     = 20
	ordinaryID    = "s0450"
)

// openBench opens a scratch database of the bench, keyed with a key kept
// in the work folder so a reused database keeps verifying.
func openBench(ctx context.Context, work, path string) (*store.Store, error) {
	key, _, err := auditkey.LoadOrCreate(filepath.Join(work, auditkey.FileName))
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, path, key)
}

// bigDB opens the 1,000,000-event database, building it on first use.
// Sessions are written in interleaved rounds so one session's events are
// spread over the file, as in real use.
func bigDB(ctx context.Context, work string, logf func(string, ...any)) (*store.Store, float64, error) {
	path := filepath.Join(work, fmt.Sprintf("events-1m-v%d.db", store.SchemaVersion()))
	stamp := path + ".done"
	if _, err := os.Stat(stamp); err == nil {
		s, err := openBench(ctx, work, path)
		return s, 0, err
	}
	for _, suf := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suf)
	}
	logf("building %s (%d events), once; later runs reuse it", path, bigTotal)
	t0 := time.Now()
	s, err := openBench(ctx, work, path)
	if err != nil {
		return nil, 0, err
	}
	ids := []string{"big"}
	for i := range bigSessions {
		ids = append(ids, fmt.Sprintf("s%04d", i))
	}
	for _, id := range ids {
		if _, err := s.CreateSession(ctx, store.NewSession{ID: id, Workspace: "/bench"}); err != nil {
			s.Close()
			return nil, 0, err
		}
	}
	for r := range bigRounds {
		for j, id := range ids {
			per := bigPerSession / bigRounds
			if j == 0 {
				per = bigSession / bigRounds
			}
			evs := make([]store.Event, per)
			for k := range evs {
				evs[k] = sampleEvent(r*per + k)
			}
			if _, err := s.Append(ctx, id, store.AnyVersion, evs...); err != nil {
				s.Close()
				return nil, 0, err
			}
		}
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		s.Close()
		return nil, 0, err
	}
	return s, time.Since(t0).Seconds(), nil
}

// timeIt runs f n times and returns its wall and process CPU time.
func timeIt(n int, f func() error) (wall, cpu Stat, err error) {
	var ws, cs []float64
	for i := 0; i < n; i++ {
		c0, t0 := processCPU(), time.Now()
		if err := f(); err != nil {
			return Stat{}, Stat{}, err
		}
		ws = append(ws, ms(time.Since(t0)))
		cs = append(cs, ms(processCPU()-c0))
	}
	return statOf(ws), statOf(cs), nil
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchStore(ctx context.Context, work string, singles, rounds int, logf func(string, ...any)) StoreResult {
	var r StoreResult
	fail := func(err error) StoreResult { r.Error = err.Error(); return r }
	path := filepath.Join(work, "append.db")
	for _, suf := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suf)
	}
	s, err := openBench(ctx, work, path)
	if err != nil {
		return fail(err)
	}
	sess, err := s.CreateSession(ctx, store.NewSession{Workspace: "/bench"})
	if err != nil {
		s.Close()
		return fail(err)
	}
	// Durable events only (ToolOutput is a stream event, committed without
	// fsync): case 5 of the mix is MessageAppended.
	var single, batch []float64
	for round := 0; round < rounds; round++ {
		t0 := time.Now()
		for i := 0; i < singles; i++ {
			if _, err := s.Append(ctx, sess.ID, store.AnyVersion, sampleEvent(i*6+5)); err != nil {
				s.Close()
				return fail(err)
			}
		}
		single = append(single, float64(singles)/time.Since(t0).Seconds())
		evs := make([]store.Event, 100)
		for i := range evs {
			evs[i] = sampleEvent(i)
		}
		t0 = time.Now()
		const batches = 10
		for i := 0; i < batches; i++ {
			if _, err := s.Append(ctx, sess.ID, store.AnyVersion, evs...); err != nil {
				s.Close()
				return fail(err)
			}
		}
		batch = append(batch, float64(batches*len(evs))/time.Since(t0).Seconds())
	}
	s.Close()
	r.AppendSingle, r.AppendBatch = statOf(single), statOf(batch)

	big, built, err := bigDB(ctx, work, logf)
	if err != nil {
		return fail(fmt.Errorf("1M database: %w", err))
	}
	defer big.Close()
	r.BuildSeconds = built
	r.Events = bigTotal
	n := 10 * rounds
	last := func(sid string) func() error {
		return func() error {
			evs, err := big.Events(ctx, store.EventQuery{SessionID: sid, Limit: 200, Desc: true})
			if err == nil && len(evs) != 200 {
				err = fmt.Errorf("last 200 of %s: got %d", sid, len(evs))
			}
			return err
		}
	}
	if r.Last200Big, r.Last200BigCPU, err = timeIt(n, last("big")); err != nil {
		return fail(err)
	}
	if r.Last200, r.Last200CPU, err = timeIt(n, last(ordinaryID)); err != nil {
		return fail(err)
	}
	if r.Audit, r.AuditCPU, err = timeIt(n, func() error {
		evs, err := big.PermissionAudit(ctx, ordinaryID)
		r.AuditEvents = len(evs)
		if err == nil && len(evs) < 100 {
			err = fmt.Errorf("permission audit: only %d events", len(evs))
		}
		return err
	}); err != nil {
		return fail(err)
	}
	return r
}
