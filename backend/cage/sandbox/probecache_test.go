package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// countingBwrap writes a bwrap stand-in that logs each run to a file and
// then runs the real bwrap, so a test sees how often the cage was probed.
func countingBwrap(t *testing.T, dir string) (bin, log string) {
	t.Helper()
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatalf("bwrap is required here: %v", err)
	}
	bin, log = filepath.Join(dir, "bwrap"), filepath.Join(dir, "runs.log")
	script := "#!/bin/sh\necho run >>'" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

func runsIn(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "run\n")
}

// TestProbeCache: a second process on an unchanged machine does not start
// bwrap to learn what the first one learnt; whatever could change the
// answer (bwrap replaced, Warden upgraded, the cache damaged or dropped)
// makes it probe again, and a failed probe is never kept.
func TestProbeCache(t *testing.T) {
	cases := []struct {
		name string
		// between runs after the first (cached) Detect, before the second
		change   func(t *testing.T, bin, cacheDir string) (version string)
		reprobe  bool // the second Detect calls Reprobe instead
		wantRuns int  // bwrap runs of the second Detect
	}{
		{name: "unchanged machine: no bwrap run", wantRuns: 0},
		{name: "bwrap replaced (upgrade): probed again", wantRuns: 2,
			change: func(t *testing.T, bin, _ string) string {
				later := time.Now().Add(time.Hour)
				if err := os.Chtimes(bin, later, later); err != nil {
					t.Fatal(err)
				}
				return "v1"
			}},
		{name: "another Warden version: probed again", wantRuns: 2,
			change: func(*testing.T, string, string) string { return "v2" }},
		{name: "damaged cache file: probed again", wantRuns: 2,
			change: func(t *testing.T, _, dir string) string {
				if err := os.WriteFile(filepath.Join(dir, probeCacheName), []byte("{not json"), 0o600); err != nil {
					t.Fatal(err)
				}
				return "v1"
			}},
		{name: "cache removed: probed again", wantRuns: 2,
			change: func(t *testing.T, _, dir string) string {
				if err := os.Remove(filepath.Join(dir, probeCacheName)); err != nil {
					t.Fatal(err)
				}
				return "v1"
			}},
		{name: "reprobe after a failed start ignores the cache", reprobe: true, wantRuns: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin, log := countingBwrap(t, dir)
			cacheDir := filepath.Join(dir, "cache")
			first := New(Config{Bwrap: bin, ProbeCacheDir: cacheDir, Version: "v1"})
			t.Cleanup(func() { _ = first.Close() })
			st := first.Detect(context.Background())
			if !st.Available {
				t.Fatalf("first probe: %+v", st)
			}
			if n := runsIn(t, log); n != 2 {
				t.Fatalf("first probe ran bwrap %d times, want 2 (--version and the trivial cage)", n)
			}
			if _, err := os.Stat(filepath.Join(cacheDir, probeCacheName)); err != nil {
				t.Fatalf("no cache written: %v", err)
			}
			version := "v1"
			if tc.change != nil {
				version = tc.change(t, bin, cacheDir)
			}
			second := New(Config{Bwrap: bin, ProbeCacheDir: cacheDir, Version: version})
			t.Cleanup(func() { _ = second.Close() })
			var got Status
			if tc.reprobe {
				got = second.Reprobe(context.Background())
			} else {
				got = second.Detect(context.Background())
			}
			if runs := runsIn(t, log) - 2; runs != tc.wantRuns {
				t.Errorf("second Detect ran bwrap %d times, want %d", runs, tc.wantRuns)
			}
			if got != st {
				t.Errorf("second status %+v, want the first %+v", got, st)
			}
			if got != second.Status() {
				t.Errorf("Status() = %+v, want %+v", second.Status(), got)
			}
			// The cage really works from the cached answer: a caged command runs.
			p, err := second.Prepare(context.Background(), Spec{Workspace: dir, Policy: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, Args: []string{"true"}})
			if err != nil {
				t.Fatal(err)
			}
			if !p.Confined {
				t.Fatal("the cached cage did not confine the command")
			}
			err = p.Cmd.Run()
			p.Finish()
			if err != nil {
				t.Fatalf("caged true: %v", err)
			}
		})
	}
}

// TestProbeCacheKeepsNoFailure: a cage that does not work is probed at
// every start (user namespaces may be switched on meanwhile) and leaves no
// cache behind.
func TestProbeCacheKeepsNoFailure(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs("testdata/bwrap-denied.sh")
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Bwrap: abs, ProbeCacheDir: dir, Version: "v1"})
	t.Cleanup(func() { _ = c.Close() })
	if st := c.Detect(context.Background()); st.Available {
		t.Fatalf("denied bwrap reported available: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(dir, probeCacheName)); !os.IsNotExist(err) {
		t.Fatalf("a failed probe was cached (stat: %v)", err)
	}
}

// breakableBwrap is countingBwrap whose cage starts fail the way bwrap's
// do on a machine that refuses user namespaces (exit 1 before the cage
// exists) once the file broken exists; the script itself never changes,
// so the probe's key still matches: a change the key cannot see.
func breakableBwrap(t *testing.T, dir string) (bin, log, broken string) {
	t.Helper()
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatalf("bwrap is required here: %v", err)
	}
	bin, log, broken = filepath.Join(dir, "bwrap"), filepath.Join(dir, "runs.log"), filepath.Join(dir, "broken")
	script := "#!/bin/sh\necho run >>'" + log + "'\n" +
		"if [ -e '" + broken + "' ] && [ \"$1\" != --version ]; then\n" +
		"  echo 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\n  exit 1\nfi\n" +
		"exec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log, broken
}

// TestStaleProbeReprobesOnce: a caged start that fails before the cage
// exists, in a process that took the cage's readiness from the cache,
// drops the cache and probes again — once per process. A command failing
// inside a working cage, or a cage probed by this very process, probes
// nothing. The failed process keeps saying caged (its calls fail closed);
// the next process learns the truth from its own probe.
func TestStaleProbeReprobesOnce(t *testing.T) {
	cases := []struct {
		name    string
		cached  bool // the second process answers from the cache
		breaks  bool // cage starts fail after the cache was written
		command string
		// bwrap runs of the second process: its Detect, then two calls
		wantRuns  int
		wantCache bool // a cache file is there afterwards
		// what a third process's Detect says, and its bwrap runs
		wantNext     bool
		wantNextRuns int
	}{
		{name: "machine changed under the cache: one re-probe, cache dropped", cached: true, breaks: true, command: "true",
			wantRuns: 0 + 1 + 2 + 1, wantCache: false, wantNext: false, wantNextRuns: 2},
		{name: "command fails inside a working cage: no re-probe", cached: true, command: "exit 1",
			wantRuns: 0 + 1 + 1, wantCache: true, wantNext: true, wantNextRuns: 0},
		{name: "cage probed by this process: a failed start probes nothing more", breaks: true, command: "true",
			wantRuns: 2 + 1 + 1, wantCache: false, wantNext: false, wantNextRuns: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			bin, log, broken := breakableBwrap(t, dir)
			cacheDir := filepath.Join(dir, "cache")
			cfg := Config{Bwrap: bin, ProbeCacheDir: cacheDir, Version: "v1"}
			if tc.cached {
				first := New(cfg)
				if st := first.Detect(ctx); !st.Available {
					t.Fatalf("first probe: %+v", st)
				}
				_ = first.Close()
			}
			if tc.breaks && tc.cached {
				if err := os.WriteFile(broken, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			before := runsIn(t, log)
			second := New(cfg)
			t.Cleanup(func() { _ = second.Close() })
			if st := second.Detect(ctx); !st.Available {
				t.Fatalf("second Detect: %+v", st)
			}
			if tc.breaks && !tc.cached {
				if err := os.WriteFile(broken, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				_ = os.Remove(filepath.Join(cacheDir, probeCacheName))
			}
			for i := 0; i < 2; i++ {
				p, err := second.Prepare(ctx, Spec{Workspace: dir, Policy: ww, Args: []string{"bash", "-c", tc.command}})
				if err != nil {
					t.Fatal(err)
				}
				if !p.Confined {
					t.Fatalf("call %d ran unconfined", i)
				}
				err = p.Cmd.Run()
				p.Finish()
				if err == nil {
					t.Fatalf("call %d: %q succeeded, want a failure", i, tc.command)
				}
			}
			if runs := runsIn(t, log) - before; runs != tc.wantRuns {
				t.Errorf("the second process ran bwrap %d times, want %d", runs, tc.wantRuns)
			}
			if !second.Status().Available {
				t.Errorf("the second process lowered its status mid-flight: %+v", second.Status())
			}
			_, err := os.Stat(filepath.Join(cacheDir, probeCacheName))
			if got := err == nil; got != tc.wantCache {
				t.Errorf("cache file present = %v, want %v (stat: %v)", got, tc.wantCache, err)
			}
			before = runsIn(t, log)
			third := New(cfg)
			t.Cleanup(func() { _ = third.Close() })
			if st := third.Detect(ctx); st.Available != tc.wantNext {
				t.Errorf("next process: %+v, want available=%v", st, tc.wantNext)
			}
			if runs := runsIn(t, log) - before; runs != tc.wantNextRuns {
				t.Errorf("the next process ran bwrap %d times, want %d", runs, tc.wantNextRuns)
			}
		})
	}
}
