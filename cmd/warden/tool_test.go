package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/store"
)

type toolRun struct {
	code   int
	out    toolOutput
	stderr string
}

func runToolCLI(t *testing.T, args ...string) toolRun {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"tool"}, args...), stdio{in: strings.NewReader(""), out: &out, err: &errb})
	r := toolRun{code: code, stderr: errb.String()}
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &r.out); err != nil {
			t.Fatalf("output is not {decision, result}: %v\n%s", err, out.String())
		}
	}
	return r
}

// toolEventKinds lists the kinds of a session's events in the store file.
func toolEventKinds(t *testing.T, db, sessionID string) string {
	t.Helper()
	st, err := openStore(context.Background(), db, store.MustExist())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Events(context.Background(), store.EventQuery{SessionID: sessionID})
	if err != nil {
		t.Fatal(err)
	}
	var k []string
	for _, e := range evs {
		k = append(k, string(e.Kind))
	}
	return strings.Join(k, ",")
}

func TestToolCommand(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	db := filepath.Join(t.TempDir(), "warden.db")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	tests := []struct {
		name    string
		args    []string
		code    int
		verdict string
		reason  string
		events  string
		check   func(t *testing.T, r toolRun)
	}{
		{"shell command runs in the cage", []string{"shell.exec", "--args", `{"command":"echo hi > made.txt; cat made.txt"}`},
			0, "allow", "", "session_created,permission_granted,tool_invocation_started,tool_invocation_completed",
			func(t *testing.T, r toolRun) {
				var res struct{ Confined bool }
				_ = json.Unmarshal(r.out.Result.Structured, &res)
				if !res.Confined || !toolExists(filepath.Join(ws, "made.txt")) {
					t.Fatalf("result %s", r.out.Result.Structured)
				}
			}},
		{"an ask with nobody attached is a no-approver deny", []string{"fs.write", "--args", `{"path":".envrc","content":"x"}`},
			1, "deny", "no-approver", "session_created,permission_requested,permission_denied",
			func(t *testing.T, r toolRun) {
				if toolExists(filepath.Join(ws, ".envrc")) {
					t.Fatal(".envrc written")
				}
			}},
		{"the approval timeout is waited", []string{"fs.write", "--approval-timeout", "300ms", "--args", `{"path":".envrc","content":"x"}`},
			1, "deny", "no-approver", "session_created,permission_requested,permission_denied", nil},
		{"a write outside is a sandbox denial", []string{"fs.write", "--args", `{"path":"` + filepath.Join(outside, "x") + `","content":"x"}`},
			1, "deny", "sandbox-rejected", "session_created,permission_denied",
			func(t *testing.T, r toolRun) {
				if toolExists(filepath.Join(outside, "x")) {
					t.Fatal("written outside")
				}
			}},
		{"flags after the name and a writable root", []string{"fs.write", "--writable-root", outside, "--approval", "never", "--args", `{"path":"` + filepath.Join(outside, "y") + `","content":"y"}`},
			0, "allow", "", "session_created,permission_granted,tool_invocation_started,tool_invocation_completed",
			func(t *testing.T, r toolRun) {
				if !toolExists(filepath.Join(outside, "y")) {
					t.Fatal("not written to the writable root")
				}
			}},
		{"planning freeze", []string{"shell.exec", "--planning", "--args", `{"command":"touch z"}`},
			1, "deny", "planning-freeze", "session_created,permission_denied", nil},
		{"read-only sandbox", []string{"fs.read", "--sandbox", "read-only", "--args", `{"path":"made.txt"}`},
			0, "allow", "", "session_created,permission_granted,tool_invocation_started,tool_invocation_completed", nil},
		{"a tool error is recorded as failed", []string{"fs.read", "--args", `{"path":"missing.txt"}`},
			1, "allow", "", "session_created,permission_granted,tool_invocation_started,tool_invocation_failed", nil},
		{"bad arguments are refused before deciding", []string{"fs.read", "--args", `{"path":5}`},
			1, "", "", "session_created", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := runToolCLI(t, append(tc.args, "--workspace", ws, "--db", db)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s; result %+v", r.code, tc.code, r.stderr, r.out.Result)
			}
			if tc.verdict == "" {
				if r.out.Decision != nil {
					t.Fatalf("decision %+v for unusable arguments", r.out.Decision)
				}
			} else if r.out.Decision == nil || string(r.out.Decision.Verdict) != tc.verdict || string(r.out.Decision.Reason) != tc.reason {
				t.Fatalf("decision %+v, want %s %s", r.out.Decision, tc.verdict, tc.reason)
			}
			if got := toolEventKinds(t, db, r.out.SessionID); got != tc.events {
				t.Fatalf("events %s, want %s", got, tc.events)
			}
			if strings.Contains(strings.Join(tc.args, " "), "300ms") && time.Since(start) < 300*time.Millisecond {
				t.Fatal("did not wait the approval timeout")
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestToolCommandUsage(t *testing.T) {
	ws := t.TempDir()
	db := filepath.Join(t.TempDir(), "w.db")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no tool name", []string{"--workspace", ws}, "Usage: warden tool NAME"},
		{"unknown tool", []string{"fs.delete", "--workspace", ws, "--db", db}, `unknown tool "fs.delete" (known: fs.list, fs.read`},
		{"args not JSON", []string{"fs.read", "--args", "{path", "--db", db}, "--args is not valid JSON"},
		{"bad approval", []string{"fs.read", "--approval", "sometimes", "--db", db}, "unknown approval policy"},
		{"bad caged", []string{"fs.read", "--caged", "maybe", "--workspace", ws, "--db", db}, "--caged: unknown value"},
		{"missing workspace", []string{"fs.read", "--workspace", filepath.Join(ws, "nope"), "--db", db}, "--workspace"},
		{"two names", []string{"fs.read", "fs.list", "--db", db}, `unexpected argument "fs.list"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runToolCLI(t, tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d stderr %q, want 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

func TestToolCommandUsesWardenDB(t *testing.T) {
	ws := t.TempDir()
	db := filepath.Join(t.TempDir(), "env.db")
	t.Setenv("WARDEN_DB", db)
	r := runToolCLI(t, "fs.list", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("WARDEN_DB not used: %v", err)
	}
	if got := toolEventKinds(t, db, r.out.SessionID); !strings.HasSuffix(got, "tool_invocation_completed") {
		t.Fatalf("events %s", got)
	}
}

func toolExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
