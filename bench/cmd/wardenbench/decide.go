package main

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// DecideResult is one testing.Benchmark of the engine.
type DecideResult struct {
	Call    string  `json:"call"`
	NsPerOp float64 `json:"ns_per_op"`
	// CPUNsPerOp is the benchmark thread's own CPU time per decision: on a
	// machine busy with other work, wall-clock ns/op mostly measures the
	// queue for a core.
	CPUNsPerOp  float64 `json:"cpu_ns_per_op"`
	AllocsPerOp int64   `json:"allocs_per_op"`
	BytesPerOp  int64   `json:"bytes_per_op"`
	TargetNs    float64 `json:"target_ns"`
	Error       string  `json:"error,omitempty"`
}

// benchDecide runs the same two cases as backend/policy's benchmarks, with
// testing.Benchmark so ns/op and allocs/op mean what `go test -bench` means.
func benchDecide() []DecideResult {
	const ws = "/work/ws"
	e := policy.New(policy.Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	s := policy.Session{Workspace: ws, Approval: policy.OnRequest, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, Caged: true, Now: time.Now()}
	cases := []struct {
		name   string
		target float64
		call   policy.Call
	}{
		{"fs.read " + ws + "/src/main.go", 2000, policy.Call{Tool: "fs.read", Effects: []policy.Effect{{Kind: policy.EffectRead, Paths: []string{ws + "/src/main.go"}}}}},
		{"shell.exec, 5-segment compound command", 50000, policy.Call{Tool: "shell.exec", Effects: []policy.Effect{{Kind: policy.EffectExec, Cwd: ws,
			Command: "git status --short | grep -v '^??' > /tmp/changed.txt; rg -n deprecated . | wc -l && ls -la"}}}},
	}
	var out []DecideResult
	for _, c := range cases {
		r := DecideResult{Call: c.name, TargetNs: c.target}
		if d := e.Decide(c.call, s); d.Verdict != policy.VerdictAllow {
			r.Error = "not allowed: " + string(d.Verdict) + " " + d.Detail
			out = append(out, r)
			continue
		}
		var cpu time.Duration
		br := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0 := threadCPU()
			for i := 0; i < b.N; i++ {
				e.Decide(c.call, s)
			}
			cpu = threadCPU() - t0
		})
		r.NsPerOp = float64(br.T.Nanoseconds()) / float64(br.N)
		r.CPUNsPerOp = float64(cpu.Nanoseconds()) / float64(br.N)
		r.AllocsPerOp, r.BytesPerOp = br.AllocsPerOp(), br.AllocedBytesPerOp()
		out = append(out, r)
	}
	return out
}

// threadCPU is the CPU time of the calling OS thread (RUSAGE_THREAD).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
