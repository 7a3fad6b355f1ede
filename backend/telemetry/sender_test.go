package telemetry_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/telemetry"
	"github.com/warden-dev/warden/backend/telemetry/otelcoltest"
)

var testKey = store.Key("0123456789abcdef0123456789abcdef")

// TestSenderToCollector: records queued with their events reach a real
// collector's file exporter once, with the chain fields of their events.
func TestSenderToCollector(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real collector")
	}
	dir := t.TempDir()
	col := otelcoltest.New(t, dir, otelcoltest.FreePort(t))
	col.Start(t)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "w.db"), testKey, store.WithOutbox(telemetry.Exported))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, _ := st.CreateSession(ctx, store.NewSession{Workspace: "/w"})
	st.Append(ctx, sess.ID, store.AnyVersion,
		store.PermissionGranted{RequestID: "r1", CallID: "c1", Tool: "fs.read", Source: "sandbox+policy", Layer: policy.LayerPolicy},
		store.PermissionDenied{RequestID: "r2", CallID: "c2", Tool: "fs.write", Reason: policy.ReasonSandboxRejected, By: store.DeniedBySandbox, Detail: "/etc/x is outside"},
		store.MessageAppended{Role: "user", Text: "never exported"})
	tc := config.DefaultTelemetry()
	tc.Enabled, tc.Endpoint = true, col.Endpoint
	s, err := telemetry.NewSender(ctx, telemetry.SenderConfig{Telemetry: tc, Outbox: st, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var cs []telemetry.Copy
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if f, err := os.Open(col.File); err == nil {
			cs, _, err = telemetry.ReadCopies(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) >= 2 {
				break
			}
		}
	}
	if len(cs) != 2 || cs[0].Layer != "policy" || cs[1].Layer != "sandbox" || cs[0].Seq != 2 || cs[1].PrevExported != 2 {
		b, _ := os.ReadFile(col.Log)
		t.Fatalf("copies %+v\ncollector log:\n%s", cs, b)
	}
	if os.Getenv("WARDEN_UPDATE_TESTDATA") != "" {
		// The fixture of TestReadCopies: what this collector really wrote.
		b, _ := os.ReadFile(col.File)
		os.WriteFile("testdata/collector.jsonl", b, 0o644)
	}
	rep, err := telemetry.Against(ctx, st, cs)
	if err != nil || !rep.OK() {
		t.Fatalf("against: %v %v", err, rep.Findings())
	}
}
