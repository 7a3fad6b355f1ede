package main

import (
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// DecideResult is one testing.Benchmark of the engine.
type DecideResult struct {
	Call        string  `json:"call"`
	NsPerOp     float64 `json:"ns_per_op"`
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
			Command: "git status --short | grep -v '^??' > /tmp/changed.txt; rg -n TODO . | wc -l && ls -la"}}}},
	}
	var out []DecideResult
	for _, c := range cases {
		r := DecideResult{Call: c.name, TargetNs: c.target}
		if d := e.Decide(c.call, s); d.Verdict != policy.VerdictAllow {
			r.Error = "not allowed: " + string(d.Verdict) + " " + d.Detail
			out = append(out, r)
			continue
		}
		br := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				e.Decide(c.call, s)
			}
		})
		r.NsPerOp = float64(br.T.Nanoseconds()) / float64(br.N)
		r.AllocsPerOp, r.BytesPerOp = br.AllocsPerOp(), br.AllocedBytesPerOp()
		out = append(out, r)
	}
	return out
}
