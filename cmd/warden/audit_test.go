//go:build !wardenslim

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/auditexport"
)

// auditDB is a closed database with session "s1" of 5 events.
func auditDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warden.db")
	s, err := openStore(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateSession(ctx, store.NewSession{ID: "s1", Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Append(ctx, "s1", 1,
		store.MessageAppended{Role: "user", Text: "clean, then build"},
		store.PermissionRequested{RequestID: "r1", CallID: "c1", Tool: "shell.exec", Signature: "shell:rm",
			Reasons: []policy.Reason{policy.ReasonDestructiveEffect}, Args: json.RawMessage(`{"command":"rm -rf build, \"dist\""}`)},
		store.PermissionGranted{RequestID: "r1", CallID: "c1", Tool: "shell.exec", Source: "human:once"},
		store.ToolOutput{CallID: "c1", Stream: "stdout", Chunk: "removed\n"})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// plainRechain rewrites session s1's event at version from (old replaced
// by new in its payload) straight in the SQLite file and recomputes the
// chain from there to the head as plain sha256, the way anyone who can
// write the file but lacks the key would: a consistent chain of the old,
// keyless kind, the session row's head moved to its end.
func plainRechain(t *testing.T, path string, from int64, old, new string) {
	t.Helper()
	db, err := sql.Open(store.Driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TRIGGER events_no_update`); err != nil {
		t.Fatal(err)
	}
	var prev []byte
	if err := db.QueryRow(`SELECT prev_hash FROM events WHERE session_id = 's1' AND version = ?`, from).Scan(&prev); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT seq, version, kind, time_ms, payload FROM events WHERE session_id = 's1' AND version >= ? ORDER BY version`, from)
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		seq, version, ms int64
		kind, payload    string
	}
	var evs []ev
	for rows.Next() {
		var e ev
		rows.Scan(&e.seq, &e.version, &e.kind, &e.ms, &e.payload)
		evs = append(evs, e)
	}
	rows.Close()
	for _, e := range evs {
		if e.version == from {
			e.payload = strings.Replace(e.payload, old, new, 1)
		}
		env, _ := json.Marshal(e.kind)
		sid, _ := json.Marshal("s1")
		sum := sha256.Sum256([]byte(fmt.Sprintf(`%s{"data":%s,"kind":%s,"session_id":%s,"time_ms":%d,"version":%d}`,
			prev, e.payload, env, sid, e.ms, e.version)))
		if _, err := db.Exec(`UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?`, e.payload, prev, sum[:], e.seq); err != nil {
			t.Fatal(err)
		}
		prev = sum[:]
	}
	if _, err := db.Exec(`UPDATE sessions SET head_hash = ? WHERE id = 's1'`, prev); err != nil {
		t.Fatal(err)
	}
}

func runCLI(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(ctx, args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestAuditVerify(t *testing.T) {
	sound := auditDB(t)
	tampered := auditDB(t)
	db, err := sql.Open(store.Driver, tampered)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TRIGGER events_no_update; UPDATE events SET payload = replace(payload, 'rm -rf', 'ls') WHERE version = 3`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rewritten := auditDB(t)
	plainRechain(t, rewritten, 3, "rm -rf", "ls")
	notDB := filepath.Join(t.TempDir(), "notes.db")
	os.WriteFile(notDB, []byte("plain text, not a database"), 0o600)
	cases := []struct {
		name     string
		args     []string
		env      string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"sound", []string{"--db", sound}, "", 0, "ok: " + sound, ""},
		{"sound counts", []string{"--db", sound}, "", 0, "1 sessions, 5 events", ""},
		{"says which chain it checked", []string{"--db", sound}, "", 0, "chain: HMAC-SHA256, keyed with " +
			filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "warden", "audit.key") + ": 5 events in 1 sessions", ""},
		{"consistent plain sha256 rewrite fails", []string{"--db", rewritten}, "", 1, "",
			"first bad event: session s1 version 3 (seq 3, permission_requested): hash does not match the event's content under this installation's audit key"},
		{"failure says which chain it checked", []string{"--db", rewritten}, "", 1, "", "chain: HMAC-SHA256, keyed with"},
		{"WARDEN_DB", nil, sound, 0, "ok: " + sound, ""},
		{"flag beats env", []string{"--db", tampered}, sound, 1, "", "FAILED"},
		{"tampered names first bad event", []string{"--db", tampered}, "", 1, "",
			"first bad event: session s1 version 3"},
		{"tampered says why", []string{"--db", tampered}, "", 1, "", "hash does not match"},
		{"json report", []string{"--db", tampered, "--json"}, "", 1, `"problem":`, ""},
		{"missing file", []string{"--db", filepath.Join(t.TempDir(), "none.db")}, "", 1, "", "no database here"},
		{"not a database", []string{"--db", notDB}, "", 1, "", "is not a SQLite database"},
		{"bad flag", []string{"--frob"}, "", 2, "", "flag provided but not defined"},
		{"extra argument", []string{"--db", sound, "x"}, "", 2, "", "unexpected argument"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(assemble.DBEnv, tc.env)
			code, out, errs := runCLI(t, context.Background(), append([]string{"audit", "verify"}, tc.args...)...)
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out, errs, tc.wantCode, tc.wantOut, tc.wantErr)
			}
		})
	}
}

func TestAuditExport(t *testing.T) {
	path := auditDB(t)
	t.Run("jsonl", func(t *testing.T) {
		code, out, errs := runCLI(t, context.Background(), "audit", "export", "--db", path, "--session", "s1")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 5 {
			t.Fatalf("%d lines", len(lines))
		}
		for i, line := range lines {
			var e struct {
				Version int64           `json:"version"`
				Kind    string          `json:"kind"`
				Data    json.RawMessage `json:"data"`
				Hash    string          `json:"hash"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil || e.Version != int64(i+1) || len(e.Hash) != 64 || len(e.Data) < 2 {
				t.Errorf("line %d %q: %+v %v", i, line, e, err)
			}
		}
	})
	t.Run("csv", func(t *testing.T) {
		code, out, errs := runCLI(t, context.Background(), "audit", "export", "--db", path, "--session", "s1", "--format", "csv",
			"--kinds", "permission_requested,permission_granted")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 3 || strings.Join(recs[0], ",") != strings.Join(auditexport.CSVHeader, ",") ||
			recs[1][4] != "permission_requested" || !strings.Contains(recs[1][len(recs[1])-1], `rm -rf build, \"dist\"`) || recs[1][8] != "ask" {
			t.Errorf("csv = %q", recs)
		}
	})
	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no session flag", []string{"--db", path}, 2, "--session is required"},
		{"unknown session", []string{"--db", path, "--session", "nope"}, 1, "session nope: not found"},
		{"bad format", []string{"--db", path, "--session", "s1", "--format", "xml"}, 2, `--format "xml"`},
		{"unknown kind", []string{"--db", path, "--session", "s1", "--kinds", "nope"}, 2, `unknown event kind "nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(t, context.Background(), append([]string{"audit", "export"}, tc.args...)...)
			if code != tc.wantCode || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errs, tc.wantCode, tc.wantErr)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe to read while tail writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAuditTail(t *testing.T) {
	path := auditDB(t)
	t.Run("last two, no follow", func(t *testing.T) {
		code, out, errs := runCLI(t, context.Background(), "audit", "tail", "--db", path, "-n", "2", "--follow=false")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "permission_granted") || !strings.Contains(lines[1], "tool_output") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
		}
	})
	t.Run("follows another writer", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out, errb syncBuffer
		done := make(chan int)
		go func() {
			done <- run(ctx, []string{"audit", "tail", "--db", path, "-n", "0", "--format", "jsonl",
				"--kinds", "permission_requested"}, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		}()
		s, err := openStore(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		deadline := time.Now().Add(15 * time.Second)
		for !strings.Contains(out.String(), `"request_id":"r9"`) {
			if time.Now().After(deadline) {
				t.Fatalf("tail printed %q (stderr %q)", out.String(), errb.String())
			}
			if _, err := s.Append(context.Background(), "s1", store.AnyVersion,
				store.MessageAppended{Role: "user", Text: "not shown"},
				store.PermissionRequested{RequestID: "r9", CallID: "c9", Tool: "fs.write", Signature: "fs.write"}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
		}
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("tail exit %d: %s", code, errb.String())
		}
		if strings.Contains(out.String(), "not shown") {
			t.Errorf("kind filter ignored: %s", out.String())
		}
	})
	code, _, errs := runCLI(t, context.Background(), "audit", "tail", "--db", path, "--format", "xml")
	if code != 2 || !strings.Contains(errs, `--format "xml"`) {
		t.Errorf("bad format: exit %d %q", code, errs)
	}
}

func TestAuditUsage(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"no subcommand", []string{"audit"}, 2, "", "Usage: warden audit"},
		{"unknown subcommand", []string{"audit", "frob"}, 2, "", `unknown subcommand "frob"`},
		{"help", []string{"audit", "--help"}, 0, "verify", ""},
		{"listed at top level", []string{"--help"}, 0, "audit", ""},
		{"flag help", []string{"audit", "verify", "-h"}, 0, "", "-db"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, context.Background(), tc.args...)
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}
