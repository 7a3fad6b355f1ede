package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

// BenchmarkGateAndCageSetup is the in-process part of a caged shell call,
// everything but the process itself: effects, the engine's decision, the
// bwrap command line with its protected paths, the after-exit check.
func BenchmarkGateAndCageSetup(b *testing.B) {
	cage := testCage(b)
	env := testEnv(b)
	gitInit(b, env.Workspace)
	engine := benchDecider()
	sh := NewShellExec(cage)
	args := json.RawMessage(`{"command":"true"}`)
	s := policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true, Now: time.Now()}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		eff, err := sh.Effects(args, env)
		if err != nil {
			b.Fatal(err)
		}
		if d := engine.Decide(policy.Call{Tool: sh.Name(), Effects: eff}, s); d.Verdict != policy.VerdictAllow {
			b.Fatal(d)
		}
		p, err := cage.Prepare(context.Background(), sandbox.Spec{Workspace: env.Workspace, Policy: env.Sandbox, Args: []string{"bash", "-c", "true"}})
		if err != nil {
			b.Fatal(err)
		}
		p.Finish()
	}
}

// BenchmarkCageCPU compares the CPU time (user+sys, from wait4's rusage)
// of bash -c true under a minimal bwrap and under the full cage command
// line, interleaved. CPU time barely moves with the machine's load, so the
// difference is what the cage's extra namespaces and mounts cost.
func BenchmarkCageCPU(b *testing.B) {
	cage := testCage(b)
	env := testEnv(b)
	gitInit(b, env.Workspace)
	prep, err := cage.Prepare(context.Background(), sandbox.Spec{Workspace: env.Workspace, Policy: env.Sandbox, Args: []string{"bash", "-c", "true"}})
	if err != nil {
		b.Fatal(err)
	}
	prep.Finish()
	minimal := []string{"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--die-with-parent", "bash", "-c", "true"}
	cpu := func(argv []string) float64 {
		cmd := exec.Command(argv[0], argv[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		return float64(u.Utime.Usec+u.Stime.Usec)/1000 + float64(u.Utime.Sec+u.Stime.Sec)*1000
	}
	var full, min, diff []float64
	for i := 0; i < b.N; i++ {
		f, m := cpu(sandbox.StandaloneArgv(prep.Argv)), cpu(minimal)
		full, min, diff = append(full, f), append(min, m), append(diff, f-m)
	}
	b.ReportMetric(median(full), "cage-cpu-ms")
	b.ReportMetric(median(min), "bwrap-cpu-ms")
	b.ReportMetric(median(diff), "overhead-cpu-ms")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// searchTree makes a 10,000-file tree where one file in four holds a match.
func searchTree(b *testing.B) string {
	b.Helper()
	ws := workspace(b)
	body := strings.Repeat("nothing to see here, just a line of text\n", 20)
	for i := 0; i < 10000; i++ {
		content := body
		if i%4 == 0 {
			content += fmt.Sprintf("func target%d() {}\n", i)
		}
		p := filepath.Join(ws, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.go", i))
		if i < 100 {
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// BenchmarkSearch compares search.ripgrep with rg --json on the same tree;
// both read all 2,500 matches.
func BenchmarkSearch(b *testing.B) {
	ws := searchTree(b)
	env := Env{Workspace: ws}
	tool := NewSearchRipgrep("")
	args := json.RawMessage(`{"pattern":"func target","max_results":5000}`)
	b.Run("search.ripgrep", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r, err := tool.Invoke(context.Background(), args, env)
			if err != nil || r.IsError {
				b.Fatalf("%v %s", err, text(r))
			}
		}
	})
	b.Run("rg-json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cmd := exec.Command("rg", "--json", "--no-config", "-e", "func target", "--", ".")
			cmd.Dir = ws
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, out)
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSearchInterleaved alternates the tool and rg --json on the same
// tree and reports the median of each and of their ratio.
func BenchmarkSearchInterleaved(b *testing.B) {
	ws := searchTree(b)
	env := Env{Workspace: ws}
	tool := NewSearchRipgrep("")
	args := json.RawMessage(`{"pattern":"func target","max_results":5000}`)
	var toolMs, rgMs, ratio []float64
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		r, err := tool.Invoke(context.Background(), args, env)
		if err != nil || r.IsError {
			b.Fatalf("%v %s", err, text(r))
		}
		t1 := time.Now()
		cmd := exec.Command("rg", "--json", "--no-config", "-e", "func target", "--", ".")
		cmd.Dir = ws
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, out)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		toolMs = append(toolMs, float64(t1.Sub(t0).Microseconds())/1000)
		rgMs = append(rgMs, float64(t2.Sub(t1).Microseconds())/1000)
		ratio = append(ratio, float64(t1.Sub(t0))/float64(t2.Sub(t1)))
	}
	b.ReportMetric(median(toolMs), "tool-ms")
	b.ReportMetric(median(rgMs), "rg-ms")
	b.ReportMetric(median(ratio), "ratio")
}

func benchDecider() *policy.Engine { return policy.New(policy.Config{}) }
