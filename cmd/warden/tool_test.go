//go:build !wardenslim

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

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
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
	if sessionID == "" {
		return ""
	}
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
			// The checkpoint hook records the file the command made.
			0, "allow", "", "session_created,permission_granted,tool_invocation_started,workspace_changed,tool_invocation_completed",
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
		// Nothing was decided, so nothing is recorded: the reserved
		// session is never written.
		{"bad arguments are refused before deciding", []string{"fs.read", "--args", `{"path":5}`},
			1, "", "", "", func(t *testing.T, r toolRun) {
				if r.out.SessionID != "" || r.out.CallID != "" {
					t.Fatalf("session %q, call %q named for a call nothing was recorded of", r.out.SessionID, r.out.CallID)
				}
			}},
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
	isolateHome(t)
	ws := t.TempDir()
	db := filepath.Join(t.TempDir(), "w.db")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no tool name", []string{"--workspace", ws}, "Usage: warden tool NAME"},
		{"unknown tool", []string{"fs.delete", "--workspace", ws, "--db", db}, `unknown tool "fs.delete" (known: browser.action, browser.batch, computer.use, fs.list`},
		{"args not JSON", []string{"fs.read", "--args", "{path", "--db", db}, "--args is not valid JSON"},
		{"bad approval", []string{"fs.read", "--approval", "sometimes", "--db", db}, "unknown approval policy"},
		{"bad caged", []string{"fs.read", "--caged", "maybe", "--workspace", ws, "--db", db}, "--caged: unknown value"},
		{"missing workspace", []string{"fs.read", "--workspace", filepath.Join(ws, "nope"), "--db", db}, "--workspace"},
		{"two names", []string{"fs.read", "fs.list", "--db", db}, `unexpected argument "fs.list"`},
		{"two names around a flag", []string{"--db", db, "fs.read", "--workspace", ws, "fs.list"}, `unexpected argument "fs.list" after "fs.read"`},
		{"unknown flag before the name", []string{"--frob", "fs.read"}, "flag provided but not defined: -frob"},
		{"unknown flag after the name", []string{"fs.read", "--frob"}, "flag provided but not defined: -frob"},
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

// TestToolFlagOrder: every flag counts wherever it stands, before or after
// the tool name (--args was dropped when a flag came first).
func TestToolFlagOrder(t *testing.T) {
	isolateHome(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "w.db")
	args := `{"path":"a.txt"}`
	cases := []struct {
		name string
		argv []string
	}{
		{"flags after the name", []string{"fs.read", "--workspace", ws, "--db", db, "--args", args}},
		{"flags before the name", []string{"--workspace", ws, "--db", db, "--args", args, "fs.read"}},
		{"flags on both sides", []string{"--workspace", ws, "fs.read", "--args", args, "--db", db}},
		{"= spelling before the name", []string{"--workspace=" + ws, "--args=" + args, "--db=" + db, "fs.read"}},
		{"single dash before the name", []string{"-workspace", ws, "-db", db, "-args", args, "fs.read"}},
		{"a bool flag before the name", []string{"--planning", "--workspace", ws, "--db", db, "--args", args, "fs.read"}},
		{"name after the terminator", []string{"--workspace", ws, "--db", db, "--args", args, "--", "fs.read"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runToolCLI(t, tc.argv...)
			if r.code != 0 || r.out.Decision == nil || r.out.Decision.Verdict != "allow" {
				t.Fatalf("exit %d, stderr %q, out %+v", r.code, r.stderr, r.out)
			}
			// The read found the file, so --args and --workspace both arrived.
			if len(r.out.Result.Content) == 0 || !strings.Contains(r.out.Result.Content[0].Text, "alpha") {
				t.Fatalf("result %+v: --args or --workspace was dropped", r.out.Result)
			}
		})
	}
}

func toolExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// TestToolProtectsWardensOwnFiles: `warden tool --db` protects what serve
// and run protect (backend/assemble's one rule): the config folder and the
// named database's files. Nothing is written there, though the paths lie
// inside writable roots.
func TestToolProtectsWardensOwnFiles(t *testing.T) {
	isolateHome(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "warden")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(ws, "state", "warden.db")
	cases := []struct {
		name, path string
		extra      []string
	}{
		{"the database named by --db, inside the workspace", db, nil},
		{"its write-ahead log", db + "-wal", nil},
		{"the config folder, even as a writable root", filepath.Join(cfgDir, "config.toml"), []string{"--writable-root", cfgDir}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"fs.write", "--workspace", ws, "--db", db, "--approval", "never",
				"--args", `{"path":"` + tc.path + `","content":"pwned"}`}, tc.extra...)
			r := runToolCLI(t, args...)
			if r.out.Decision == nil || r.out.Decision.Verdict == "allow" {
				t.Fatalf("exit %d, decision %+v, stderr %s", r.code, r.out.Decision, r.stderr)
			}
			// The database records the refused call's arguments, so the
			// check is that no file became the tool's content.
			if after, err := os.ReadFile(tc.path); err == nil && strings.HasPrefix(string(after), "pwned") {
				t.Fatalf("%s was written", tc.path)
			}
			if st, err := os.ReadFile(db); err != nil || !strings.HasPrefix(string(st), "SQLite format 3") {
				t.Fatalf("the database is no longer SQLite: %v", err)
			}
		})
	}
}

// TestSingleCallsLeaveOtherSessions: `warden tool` and `policy check` open
// the full graph, but must not do the start-up resume that belongs to the
// window (a planning session landing in approval Always) to sessions they
// do not own — the window may be running them.
func TestSingleCallsLeaveOtherSessions(t *testing.T) {
	isolateHome(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "w.db")
	st, _, err := assemble.OpenStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.CreateSession(context.Background(), store.NewSession{Workspace: ws, Title: "the window's", Approval: policy.OnRequest, Planning: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	approval := func() policy.ApprovalPolicy {
		st, _, err := assemble.OpenStore(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		s, err := st.Session(context.Background(), sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s.Approval
	}
	if r := runToolCLI(t, "fs.list", "--workspace", ws, "--db", db, "--args", `{"path":"."}`); r.code != 0 {
		t.Fatalf("tool: exit %d %s", r.code, r.stderr)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"policy", "check", "--workspace", ws, "--db", db},
		stdio{in: strings.NewReader(`{"tool":"fs.list","args":{"path":"."}}` + "\n"), out: &out, err: &errb}); code != 0 {
		t.Fatalf("policy check: exit %d %s", code, errb.String())
	}
	if got := approval(); got != policy.OnRequest {
		t.Fatalf("after tool and policy check the planning session's approval is %s, want it left on-request", got)
	}
	// The window's own start does resume it (the contract's rule).
	g, err := assemble.Open(context.Background(), assemble.Options{DBPath: db, NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	if got := approval(); got != policy.Always {
		t.Fatalf("a full start left approval %s, want always", got)
	}
}
