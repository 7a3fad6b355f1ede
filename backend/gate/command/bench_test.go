package command

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

// BenchmarkAnswererOverhead measures what a command answerer adds to an
// ask beyond its program's own run time. Each iteration runs, back to
// back, the answerer on an ask, the same program in a cage of the same
// spec (prepared, run with the same stdin, finished), and the program
// alone (sh, no cage); it reports the median of each and of the
// answerer's excess over both (paired: on a loaded machine far steadier
// than separate benchmarks). over-cage-ms is the answerer's own cost
// (encoding, parsing, limits); overhead-ms includes the cage's start.
// The #35 target is overhead-ms <= 15 ms.
func BenchmarkAnswererOverhead(b *testing.B) {
	c := sandbox.New(sandbox.Config{})
	if st := c.Detect(context.Background()); !st.Available {
		b.Fatalf("cage unavailable: %s", st.Reason)
	}
	b.Cleanup(func() { _ = c.Close() })
	ws := benchDir(b)
	prog := filepath.Join(benchDir(b), "answer.sh")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ncat >/dev/null\necho '{\"answer\":\"allow\",\"reason\":\"fine\"}'\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	p, err := NewLoader().Load([]string{prog}, Where{Base: ws, Copy: func(string) bool { return false }})
	if err != nil {
		b.Fatal(err)
	}
	a := NewAnswerer("bench", p, 30*time.Second, &Runner{Cage: c}, nil)
	q := question(ws)
	stdin, err := json.Marshal(normalise(Input{Version: Version, Event: "ask", Tool: q.Tool, Arguments: q.Args, Effects: q.Effects,
		Reasons: q.Reasons, Signature: q.Signature, Workspace: q.Workspace}))
	if err != nil {
		b.Fatal(err)
	}
	spec := sandbox.Spec{Workspace: ws, Policy: policy.SandboxPolicy{Kind: policy.ReadOnly}, Args: p.Run, Files: p.Files}
	caged := func() {
		prep, err := c.Prepare(context.Background(), spec)
		if err != nil {
			b.Fatal(err)
		}
		defer prep.Finish()
		prep.Cmd.Stdin = bytes.NewReader(stdin)
		var out bytes.Buffer
		prep.Cmd.Stdout, prep.Cmd.Stderr = &out, &out
		if err := prep.Cmd.Run(); err != nil {
			b.Fatalf("%v %s", err, out.Bytes())
		}
		_ = sandbox.KillGroup(prep.Cmd)
	}
	alone := func() {
		cmd := exec.Command("sh", prog)
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
	}
	var ans, cg, al, overCage, overAlone []float64
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if v, err := a.Answer(context.Background(), q); err != nil || v.Answer != "allow" {
			b.Fatalf("%+v %v", v, err)
		}
		t1 := time.Now()
		caged()
		t2 := time.Now()
		alone()
		t3 := time.Now()
		ans, cg, al = append(ans, ms(t1.Sub(t0))), append(cg, ms(t2.Sub(t1))), append(al, ms(t3.Sub(t2)))
		overCage = append(overCage, ms(t1.Sub(t0)-t2.Sub(t1)))
		overAlone = append(overAlone, ms(t1.Sub(t0)-t3.Sub(t2)))
	}
	b.ReportMetric(med(ans), "answerer-ms")
	b.ReportMetric(med(cg), "cage-ms")
	b.ReportMetric(med(al), "program-ms")
	b.ReportMetric(med(overCage), "over-cage-ms")
	b.ReportMetric(med(overAlone), "overhead-ms")
}

// benchDir is a fresh folder outside /tmp (the cage's /tmp is its own).
func benchDir(b *testing.B) string {
	b.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		b.Fatal(err)
	}
	base = filepath.Join(base, "warden-answerer-bench")
	if err := os.MkdirAll(base, 0o755); err != nil {
		b.Fatal(err)
	}
	d, err := os.MkdirTemp(base, "b-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(d) })
	d, _ = filepath.EvalSymlinks(d)
	return d
}

func med(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
