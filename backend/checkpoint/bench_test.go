package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/store"
)

// The figures of the package doc, in `make bench` (bench/run.sh), side by
// side in one run on one generated tree per size:
//
//   - BenchmarkCallCheckpoint/files=N/warden: what the hook adds to a call
//     that changed one file — the snapshot before, the snapshot after, the
//     change set — with the watcher (targets: median ≤ 30 ms at 10,000
//     files, ≤ 150 ms at 100,000);
//   - .../warden-full-scan: the same with every snapshot a full scan by
//     git (the fallback, and what main did before the watcher);
//   - .../plain-git: `git add -A && git write-tree` in an ordinary
//     repository holding a copy of the same tree (one snapshot, where the
//     hook takes two);
//   - BenchmarkUndoDeleted1000: undo of a call that deleted 1,000 files
//     (target ≤ 1 s).
//
// Each reports its median wall time as ms-median/op beside Go's mean, and
// the median CPU time (this process and git) as cpu-ms-median/op. On a
// shared machine compare the rows of one run, not runs.

// benchTree writes n small files, 100 to a folder, and returns the root.
func benchTree(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/1000), fmt.Sprintf("s%02d", (i/100)%10))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.txt", i)), []byte(fmt.Sprintf("file %d\nline two\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// cpuNow is the CPU time (user + system) this process and its waited-for
// children (git) have used: on a loaded machine it says what a call costs
// better than the wall clock, which counts waiting for a core.
func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration {
		return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
	}
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

func median(ds []time.Duration) float64 {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

func BenchmarkCallCheckpoint(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		ws := benchTree(b, n)
		b.Run(fmt.Sprintf("files=%d/warden", n), func(b *testing.B) { benchCall(b, ws, true) })
		b.Run(fmt.Sprintf("files=%d/warden-full-scan", n), func(b *testing.B) { benchCall(b, ws, false) })
		b.Run(fmt.Sprintf("files=%d/plain-git", n), func(b *testing.B) { benchPlainGit(b, ws) })
	}
}

func benchCall(b *testing.B, ws string, watch bool) {
	ctx := context.Background()
	r, err := Open(ctx, b.TempDir(), ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if !watch {
		r.noWatch = "measuring the full scan"
	}
	// The first snapshot of a workspace, then the one that sets the
	// watcher up (a Repo's first snapshot does not: one-shot commands).
	for range 2 {
		if _, err := r.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
	}
	target := filepath.Join(ws, "d000", "s00", "f00000.txt")
	var ds, cpu []time.Duration
	full := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start, c0 := time.Now(), cpuNow()
		before, err := r.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		pause, pc := time.Now(), cpuNow()
		// Go runs a benchmark more than once: the content must differ from
		// every earlier run's too.
		if err := os.WriteFile(target, []byte(fmt.Sprintf("changed %d %d\n", i, time.Now().UnixNano())), 0o644); err != nil {
			b.Fatal(err)
		}
		paused, pausedCPU := time.Since(pause), cpuNow()-pc
		b.StartTimer()
		after, err := r.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if !r.LastMode().Incremental {
			full++
		}
		cs, err := r.Diff(ctx, before, after, Limits{})
		if err != nil || len(cs.Files) != 1 {
			b.Fatalf("change set %+v, %v", cs.Files, err)
		}
		ds = append(ds, time.Since(start)-paused)
		cpu = append(cpu, cpuNow()-c0-pausedCPU)
	}
	if watch && full > 0 {
		b.Logf("%d of %d snapshots were full scans: %s", full, b.N, r.LastMode().Why)
	}
	b.ReportMetric(median(ds), "ms-median/op")
	b.ReportMetric(median(cpu), "cpu-ms-median/op")
}

func benchPlainGit(b *testing.B, src string) {
	ws := filepath.Join(b.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", src, ws).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v %s", err, out)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = ws, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	target := filepath.Join(ws, "d000", "s00", "f00000.txt")
	var ds, cpu []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.WriteFile(target, []byte(fmt.Sprintf("changed %d %d\n", i, time.Now().UnixNano())), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, c0 := time.Now(), cpuNow()
		cmd := exec.Command("sh", "-c", "git add -A && git write-tree")
		cmd.Dir, cmd.Env = ws, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		ds = append(ds, time.Since(start))
		cpu = append(cpu, cpuNow()-c0)
	}
	b.ReportMetric(median(ds), "ms-median/op")
	b.ReportMetric(median(cpu), "cpu-ms-median/op")
}

// memStore is the part of the store Undo reads, in memory: the benchmark
// measures the files, not SQLite.
type memStore struct{ evs []store.StoredEvent }

func (m *memStore) Append(_ context.Context, sessionID string, _ int64, evs ...store.Event) (int64, error) {
	for _, e := range evs {
		m.evs = append(m.evs, store.StoredEvent{Seq: int64(len(m.evs) + 1), SessionID: sessionID, Kind: store.KindOf(e), Event: e})
	}
	return int64(len(m.evs)), nil
}

func (m *memStore) Events(_ context.Context, q store.EventQuery) ([]store.StoredEvent, error) {
	var out []store.StoredEvent
	for _, e := range m.evs {
		for _, k := range q.Kinds {
			if e.Kind == k && (q.SessionID == "" || q.SessionID == e.SessionID) {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

func BenchmarkUndoDeleted1000(b *testing.B) {
	ctx := context.Background()
	ws := benchTree(b, 1000)
	root := b.TempDir()
	st := &memStore{}
	tr, err := New(Config{Store: st, Root: func(string) string { return root }})
	if err != nil {
		b.Fatal(err)
	}
	r, err := tr.Repo(ctx, ws)
	if err != nil {
		b.Fatal(err)
	}
	var ds, cpu []time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before, err := r.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range []string{"d000"} {
			if err := os.RemoveAll(filepath.Join(ws, d)); err != nil {
				b.Fatal(err)
			}
		}
		after, err := r.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("call-%d", i)
		_, _ = st.Append(ctx, "s", 0, store.WorkspaceChanged{CallID: id, Cause: store.CauseCall, Workspace: r.Workspace(), Before: before, After: after})
		b.StartTimer()
		start, c0 := time.Now(), cpuNow()
		out, err := tr.Undo(ctx, id, false)
		if err != nil || len(out.Restored) != 1000 {
			b.Fatalf("undo: %d restored, %v", len(out.Restored), err)
		}
		ds = append(ds, time.Since(start))
		cpu = append(cpu, cpuNow()-c0)
	}
	b.ReportMetric(median(ds), "ms-median/op")
	b.ReportMetric(median(cpu), "cpu-ms-median/op")
}
