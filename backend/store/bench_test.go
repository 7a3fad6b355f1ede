package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

func benchStore(b *testing.B) (*Store, string) {
	b.Helper()
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), testKey)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	sess, err := s.CreateSession(context.Background(), NewSession{Workspace: "/bench"})
	if err != nil {
		b.Fatal(err)
	}
	return s, sess.ID
}

// sampleEvent is a realistic mix: every third event is part of the
// permission audit.
func sampleEvent(i int) Event {
	id := strconv.Itoa(i)
	switch i % 6 {
	case 0:
		return PermissionRequested{RequestID: id, CallID: id, Tool: "shell.exec", Args: []byte(`{"command":"npm test"}`),
			Risk: policy.RiskMedium, Reasons: []policy.Reason{policy.ReasonUnknownCommand}, Signature: "shell:npm test",
			Effects: []policy.Effect{{Kind: policy.EffectExec, Command: "npm test", Cwd: "/bench"}},
			Trace:   []policy.Step{{Step: "approval", Saw: "unknown command", Concluded: "ask"}}}
	case 1:
		return PermissionGranted{RequestID: strconv.Itoa(i - 1), CallID: strconv.Itoa(i - 1), Tool: "shell.exec", Source: "human:once"}
	case 2:
		return ToolInvocationStarted{CallID: id, Tool: "shell.exec", Args: []byte(`{"command":"npm test"}`)}
	case 3:
		return ToolOutput{CallID: id, Stream: "stdout", Chunk: "PASS src/app.test.ts (12 tests)\n"}
	case 4:
		return ToolInvocationCompleted{CallID: id, Tool: "shell.exec", Output: "ok", DurationMs: 1200}
	default:
		return MessageAppended{Role: "assistant", Text: "The tests pass; next I will update the changelog."}
	}
}

// BenchmarkAppendSingle: one event per Append. durable commits fsync the
// WAL; stream (ToolOutput only) commits do not.
func BenchmarkAppendSingle(b *testing.B) {
	cases := []struct {
		name string
		ev   func(i int) Event
	}{
		{"durable", func(i int) Event { return sampleEvent(i*6 + 5) }},
		{"stream", func(i int) Event { return sampleEvent(i*6 + 3) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s, sid := benchStore(b)
			ctx := context.Background()
			defer reportCPU(b)()
			for i := 0; b.Loop(); i++ {
				if _, err := s.Append(ctx, sid, AnyVersion, tc.ev(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkAppendBatch: N events per Append, one transaction and one fsync.
func BenchmarkAppendBatch(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s, sid := benchStore(b)
			ctx := context.Background()
			batch := make([]Event, n)
			for i := range batch {
				batch[i] = sampleEvent(i)
			}
			defer reportCPU(b)()
			for b.Loop() {
				if _, err := s.Append(ctx, sid, AnyVersion, batch...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

const (
	bigSessions    = 900  // ordinary sessions of bigPerSession events
	bigPerSession  = 1000 //
	bigSessionSize = 100_000
	bigTotal       = bigSessions*bigPerSession + bigSessionSize
)

// bigDB is a 1,000,000-event database, built once and kept in the temp
// directory (keyed by schema version) so later runs reuse it. Sessions are
// written in interleaved rounds so a session's events are spread over the
// file as in real use.
func bigDB(b *testing.B) (s *Store, big, ordinary string) {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("warden-bench-1m-v%d-b3.db", SchemaVersion()))
	if s, err := Open(ctx, path, testKey); err == nil {
		if m, err := s.GetMemory(ctx, "bench", "bench:", "ready"); err == nil {
			return s, "big", m.Value
		}
		s.Close()
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	b.Logf("building %s (%d events), once", path, bigTotal)
	s, err := Open(ctx, path, testKey, WithIDs(func() string { return "bench" }))
	if err != nil {
		b.Fatal(err)
	}
	ids := []string{"big"}
	for i := range bigSessions {
		ids = append(ids, fmt.Sprintf("s%04d", i))
	}
	for _, id := range ids {
		if _, err := s.CreateSession(ctx, NewSession{ID: id, Workspace: "/bench"}); err != nil {
			b.Fatal(err)
		}
	}
	const rounds = 20
	n := 0
	for r := range rounds {
		err := s.write(ctx, func(tx *sql.Tx) error {
			for j, id := range ids {
				per := bigPerSession / rounds
				if j == 0 {
					per = bigSessionSize / rounds
				}
				evs := make([]Event, per)
				for k := range evs {
					evs[k] = sampleEvent(r*per + k)
					n++
				}
				enc, err := encodeAll(evs)
				if err != nil {
					return err
				}
				if _, err := s.appendTx(ctx, tx, id, AnyVersion, enc); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE); ANALYZE"); err != nil {
		b.Fatal(err)
	}
	if err := s.SetMemory(ctx, Memory{WorkspaceID: "bench", Namespace: "bench:", Key: "ready", Value: "s0450"}); err != nil {
		b.Fatal(err)
	}
	var total int64
	s.r.QueryRow("SELECT count(*) FROM events").Scan(&total)
	b.Logf("built: %d events", total)
	return s, "big", "s0450"
}

func BenchmarkLast200Of1M(b *testing.B) {
	s, big, ordinary := bigDB(b)
	defer s.Close()
	for _, sid := range []string{big, ordinary} {
		b.Run(sid, func(b *testing.B) {
			ctx := context.Background()
			defer reportCPU(b)()
			for b.Loop() {
				evs, err := s.Events(ctx, EventQuery{SessionID: sid, Limit: 200, Desc: true})
				if err != nil || len(evs) != 200 {
					b.Fatalf("%d events, %v", len(evs), err)
				}
			}
		})
	}
}

func BenchmarkPermissionAuditOf1M(b *testing.B) {
	s, _, ordinary := bigDB(b)
	defer s.Close()
	ctx := context.Background()
	defer reportCPU(b)()
	for b.Loop() {
		evs, err := s.PermissionAudit(ctx, ordinary)
		if err != nil || len(evs) < 100 {
			b.Fatalf("%d events, %v", len(evs), err)
		}
	}
}

func BenchmarkPermissionRequestsOf1M(b *testing.B) {
	s, _, ordinary := bigDB(b)
	defer s.Close()
	ctx := context.Background()
	defer reportCPU(b)()
	for b.Loop() {
		evs, err := s.Events(ctx, EventQuery{SessionID: ordinary, Kinds: []Kind{KindPermissionRequested}, Limit: 200, Desc: true})
		if err != nil || len(evs) == 0 {
			b.Fatalf("%d events, %v", len(evs), err)
		}
	}
}

func BenchmarkVerify1M(b *testing.B) {
	s, _, _ := bigDB(b)
	defer s.Close()
	for b.Loop() {
		rep, err := s.Verify(context.Background())
		if err != nil || !rep.OK() {
			b.Fatalf("%+v %v", rep, err)
		}
	}
}

// reportCPU adds the process CPU time per operation, which stays
// meaningful when other work shares the machine and wall time does not.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
