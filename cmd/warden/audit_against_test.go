//go:build !wardenslim

package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/telemetry"
)

// copyLine is one OTLP JSON line as the Collector's file exporter writes
// it, holding one Warden record.
func copyLine(sid string, seq, prev, eventSeq int64, hash, class string) string {
	attr := func(k, v string) string { return fmt.Sprintf(`{"key":%q,"value":{"stringValue":%q}}`, k, v) }
	num := func(k string, v int64) string { return fmt.Sprintf(`{"key":%q,"value":{"intValue":"%d"}}`, k, v) }
	return `{"resourceLogs":[{"resource":{"attributes":[` + attr("service.name", "warden") + `]},"scopeLogs":[{"scope":{},"logRecords":[{"attributes":[` +
		strings.Join([]string{attr("warden.record", class), attr("warden.session.id", sid), num("warden.chain.seq", seq),
			num("warden.chain.prev_exported", prev), num("warden.event.seq", eventSeq), attr("warden.chain.hash", hash)}, ",") +
		`]}]}]}]}` + "\n"
}

func TestAuditVerifyAgainst(t *testing.T) {
	path := auditDB(t)
	ctx := context.Background()
	s, err := openStore(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.ChainRows(ctx, telemetry.Exported)
	s.Close()
	if err != nil || len(rows) != 2 { // the ask (v3) and its answer (v4)
		t.Fatalf("%d exported rows: %v", len(rows), err)
	}
	ask, ans := rows[0], rows[1]
	h := func(r store.ChainRow) string { return hex.EncodeToString(r.Hash) }
	good := copyLine("s1", 3, 0, ask.Seq, h(ask), "ask") + copyLine("s1", 4, 3, ans.Seq, h(ans), "decision")
	cases := []struct {
		name   string
		file   string
		code   int
		stdout []string
		stderr []string
	}{
		{"the copy matches", good, 0, []string{"2 Warden records (0 other records ignored), 2 match the local chain"}, nil},
		{"a repeat is counted, not a problem", good + copyLine("s1", 4, 3, ans.Seq, h(ans), "decision"), 0, []string{"1 delivered twice"}, nil},
		{"a hash that differs", copyLine("s1", 3, 0, ask.Seq, h(ask), "ask") + copyLine("s1", 4, 3, ans.Seq, strings.Repeat("ab", 32), "decision"), 1, nil,
			[]string{"FAILED against", "seq 4: hash-mismatch"}},
		{"a record the local log lacks", good + copyLine("s1", 9, 4, ans.Seq+5, strings.Repeat("cd", 32), "decision"), 1, nil,
			[]string{"seq 9: missing-locally"}},
		{"a gap before a record", copyLine("s1", 4, 3, ans.Seq, h(ans), "decision"), 1, nil, []string{"seq 3: gap"}},
		{"a local row never delivered", copyLine("s1", 3, 0, ask.Seq, h(ask), "ask"), 1, nil, []string{"seq 4: not-delivered"}},
		{"not OTLP JSON", "hello\n", 1, nil, []string{"line 1: not OTLP JSON"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "collector.jsonl")
			os.WriteFile(f, []byte(c.file), 0o644)
			code, out, errs := runCLI(t, ctx, "audit", "verify", "--db", path, "--against", f)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.code, out, errs)
			}
			for _, w := range c.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "collector.jsonl")
		os.WriteFile(f, []byte(good), 0o644)
		code, out, _ := runCLI(t, ctx, "audit", "verify", "--db", path, "--against", f, "--json")
		if code != 0 || !strings.Contains(out, `"against"`) || !strings.Contains(out, `"matched": 2`) {
			t.Fatalf("exit %d: %s", code, out)
		}
	})
}

// TestAuditTailLayer: the text tail names what decided each decision.
func TestAuditTailLayer(t *testing.T) {
	path := auditDB(t)
	code, out, errs := runCLI(t, context.Background(), "audit", "tail", "--db", path, "-n", "5", "--follow=false")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			t.Fatalf("line %q", line)
		}
		want := "-"
		if f[3] == "permission_granted" {
			want = "human" // human:once, written before the layer was recorded
		}
		if f[4] != want {
			t.Errorf("%s: layer column %q, want %q", f[3], f[4], want)
		}
	}
}
