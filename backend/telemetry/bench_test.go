package telemetry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/telemetry/otelcoltest"
	"github.com/warden-dev/warden/backend/tools"
)

// BenchmarkExportOverhead is `make bench`'s row for issue 34: a caged
// shell.exec through the whole graph (gate, engine, cage, store) with the
// export off, on with a live collector, and on with a dead one (nothing
// listens), interleaved round by round on one machine so load drifts hit
// all three alike. Reported: the median wall time of each and the
// overheads in percent (target ≤ 2 % for both).
func BenchmarkExportOverhead(b *testing.B) {
	base, err := os.UserCacheDir()
	if err != nil {
		b.Fatal(err)
	}
	base = filepath.Join(base, "warden-cage-test")
	os.MkdirAll(base, 0o755)
	dir, err := os.MkdirTemp(base, "telemetry-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	col := otelcoltest.New(b, dir, otelcoltest.FreePort(b))
	col.Start(b)
	dead := otelcoltest.FreePort(b)
	type rig struct {
		name string
		g    *assemble.Graph
		ps   policy.Session
		sess store.Session
		ds   []time.Duration
	}
	var rigs []*rig
	ctx := context.Background()
	for _, c := range []struct{ name, telemetry string }{
		{"off", ""},
		{"live", fmt.Sprintf("[telemetry]\nendpoint = %q\nmetrics = false\n", col.Endpoint)},
		{"dead", fmt.Sprintf("[telemetry]\nendpoint = \"http://127.0.0.1:%d\"\nmetrics = false\n", dead)},
	} {
		cfg := filepath.Join(dir, "config", c.name+".toml")
		os.MkdirAll(filepath.Join(dir, "data-"+c.name), 0o755)
		os.MkdirAll(filepath.Join(dir, "config"), 0o755)
		os.WriteFile(cfg, []byte(c.telemetry), 0o600)
		g, err := assemble.Open(ctx, assemble.Options{DBPath: filepath.Join(dir, "data-"+c.name, "warden.db"), ConfigPath: cfg,
			Workspace: ws, NoModel: true, LeaveSessions: true, Headless: true})
		if err != nil {
			b.Fatal(err)
		}
		defer g.Close()
		if !g.CageStatus.Available {
			b.Fatal("no cage on this machine: the row measures a caged shell.exec")
		}
		sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
		sess, err := g.Store.CreateSession(ctx, store.NewSession{Workspace: ws, Approval: policy.OnRequest, Sandbox: sb})
		if err != nil {
			b.Fatal(err)
		}
		ps := policy.Session{Workspace: ws, Approval: policy.OnRequest, Sandbox: sb, Caged: true}
		rigs = append(rigs, &rig{name: c.name, g: g, ps: ps, sess: sess})
	}
	shell := func(r *rig) {
		t, _ := r.g.Tool("shell.exec")
		start := time.Now()
		ps := r.ps
		out, err := r.g.Gate.Call(ctx, gate.Request{Tool: t, Args: json.RawMessage(`{"command":"true"}`),
			Env:     tools.Env{SessionID: r.sess.ID, Workspace: ws, Sandbox: ps.Sandbox},
			Session: func(context.Context, tools.Env) (policy.Session, error) { return ps, nil }})
		if err != nil || !out.Invoked || out.Result.IsError {
			b.Fatalf("%s: %v %+v", r.name, err, out.Result)
		}
		r.ds = append(r.ds, time.Since(start))
	}
	for _, r := range rigs { // warm the cage and the page cache
		shell(r)
		r.ds = nil
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Rotate the order each round: no configuration always runs first.
		for k := range rigs {
			shell(rigs[(i+k)%len(rigs)])
		}
	}
	b.StopTimer()
	med := map[string]float64{}
	for _, r := range rigs {
		sort.Slice(r.ds, func(i, j int) bool { return r.ds[i] < r.ds[j] })
		med[r.name] = float64(r.ds[len(r.ds)/2].Microseconds()) / 1000
		b.ReportMetric(med[r.name], "ms-median-"+r.name)
	}
	b.ReportMetric(100*(med["live"]-med["off"])/med["off"], "%-overhead-live")
	b.ReportMetric(100*(med["dead"]-med["off"])/med["off"], "%-overhead-dead")
	st, _ := rigs[1].g.TelemetryStatus(ctx)
	sd, _ := rigs[2].g.TelemetryStatus(ctx)
	b.ReportMetric(float64(st.Sent), "sent-live")
	b.ReportMetric(float64(sd.Queued), "queued-dead")
}
