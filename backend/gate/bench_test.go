package gate

import (
	"context"
	"encoding/json"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// BenchmarkShellTrue measures `true` through gate + cage against the same
// bwrap command line run directly, a minimal bwrap, and plain sh -c.
func BenchmarkShellTrue(b *testing.B) {
	cage := testCage(b)
	env := testEnv(b)
	gitInit(b, env.Workspace)
	g, err := New(Config{
		Decider: benchDecider(),
		Journal: &journal{},
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true}, nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	sh := tools.NewShellExec(cage)
	args := json.RawMessage(`{"command":"true"}`)
	prep, err := cage.Prepare(context.Background(), sandbox.Spec{Workspace: env.Workspace, Policy: env.Sandbox, Args: []string{"bash", "-c", "true"}})
	if err != nil {
		b.Fatal(err)
	}
	prep.Finish()
	sameArgv := sandbox.StandaloneArgv(prep.Argv)
	run := func(b *testing.B, argv ...string) {
		for i := 0; i < b.N; i++ {
			if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	b.Run("gate+cage", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out, err := callGate(g, context.Background(), sh, args, env)
			if err != nil || out.Result.IsError {
				b.Fatalf("%v %s", err, text(out.Result))
			}
		}
	})
	b.Run("bwrap-same-argv", func(b *testing.B) { run(b, sameArgv...) })
	b.Run("bwrap-minimal", func(b *testing.B) {
		run(b, "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--die-with-parent", "true")
	})
	b.Run("sh-c", func(b *testing.B) { run(b, "sh", "-c", "true") })
}

// BenchmarkCageOverhead alternates gate+cage and the same bwrap command
// line run directly, one of each per iteration, and reports the median of
// each and of their difference: on a loaded machine that is far steadier
// than two benchmarks run minutes apart.
func BenchmarkCageOverhead(b *testing.B) {
	cage := testCage(b)
	env := testEnv(b)
	gitInit(b, env.Workspace)
	g, err := New(Config{Decider: benchDecider(), Journal: &journal{},
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true}, nil
		}})
	if err != nil {
		b.Fatal(err)
	}
	sh := tools.NewShellExec(cage)
	prep, err := cage.Prepare(context.Background(), sandbox.Spec{Workspace: env.Workspace, Policy: env.Sandbox, Args: []string{"bash", "-c", "true"}})
	if err != nil {
		b.Fatal(err)
	}
	prep.Finish()
	argv := sandbox.StandaloneArgv(prep.Argv)
	var gate, raw, diff []float64
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		out, err := callGate(g, context.Background(), sh, json.RawMessage(`{"command":"true"}`), env)
		if err != nil || out.Result.IsError {
			b.Fatalf("%v %s", err, text(out.Result))
		}
		t1 := time.Now()
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		t2 := time.Now()
		gate = append(gate, float64(t1.Sub(t0).Microseconds())/1000)
		raw = append(raw, float64(t2.Sub(t1).Microseconds())/1000)
		diff = append(diff, float64(t1.Sub(t0).Microseconds()-t2.Sub(t1).Microseconds())/1000)
	}
	b.ReportMetric(median(gate), "gate+cage-ms")
	b.ReportMetric(median(raw), "bwrap-ms")
	b.ReportMetric(median(diff), "overhead-ms")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func benchDecider() Decider { return policy.New(policy.Config{}) }
