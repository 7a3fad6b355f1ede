package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/tools"
)

// TestMisbehavingCalls: every way a call can go wrong comes back as a clear
// error result, and the next call on the same manager works.
func TestMisbehavingCalls(t *testing.T) {
	ctx := context.Background()
	// Short call timeouts for the cases that must time out; generous ones
	// where a slow (say -race) build must not.
	quick := Options{CallTimeout: 2 * time.Second}
	sized := Options{CallTimeout: 30 * time.Second, MaxResultBytes: 64 << 10, MaxFrameBytes: 1 << 20}
	cases := []struct {
		name, tool, args string
		opts             Options
		want             []string // substrings of the result text
		wantError        bool
		restarts         bool // the server is replaced after this call
	}{
		{"tool error", "fail", `{}`, sized, []string{"the widget is broken"}, true, false},
		{"exits mid-call", "crash", `{}`, sized, []string{`MCP server "t" failed during the call to "crash"`, "restarted", "crashing on purpose"}, true, true},
		{"malformed JSON-RPC", "garbage", `{}`, sized, []string{`MCP server "t" failed during the call to "garbage"`}, true, true},
		{"hangs", "hang", `{}`, quick, []string{"mcp-tool:t/hang timed out after 2s"}, true, false},
		{"stops answering entirely", "freeze", `{}`, quick, []string{"timed out after 2s", "does not answer pings either"}, true, true},
		{"enormous result is capped", "big", `{"n":300000}`, sized, []string{"[truncated: 65536 of 300000 bytes shown"}, false, false},
		{"over the frame limit", "big", `{"n":1200000}`, sized, []string{`failed during the call to "big"`}, true, true},
		{"arguments against the schema", "echo", `{"text":""}`, sized, []string{"do not match the tool's input schema"}, true, false},
		{"arguments not an object", "echo", `[1]`, sized, []string{"arguments must be a JSON object"}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestManager(t, tc.opts, goServer(t, "t"))
			if err := m.Start(ctx, "t"); err != nil {
				t.Fatal(err)
			}
			res := invoke(t, lookup(t, m, "mcp-tool:t/"+tc.tool), tc.args)
			text := resultText(res)
			if res.IsError != tc.wantError {
				t.Fatalf("IsError = %v, want %v; text %.300q", res.IsError, tc.wantError, text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Fatalf("result %.400q does not contain %q", text, w)
				}
			}
			if len(text) > 64<<10+200 {
				t.Fatalf("result of %d bytes passed the cap", len(text))
			}
			// The manager keeps working.
			if r := invoke(t, lookup(t, m, "mcp-tool:t/echo"), `{"text":"still here"}`); r.IsError || resultText(r) != "still here" {
				t.Fatalf("echo after %s: %+v", tc.name, r)
			}
			after := m.Status(ctx)[0]
			if got := after.Restarts > 0; got != tc.restarts {
				t.Fatalf("restarted = %v, want %v (status %+v)", got, tc.restarts, after)
			}
		})
	}
}

// TestStartFailures: a server that cannot start is reported with its
// stderr, its tools are simply absent, and retries back off.
func TestStartFailures(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	missing := ServerConfig{Name: "missing", Command: "/nonexistent/mcp-server", Source: "test"}
	m := newTestManager(t, Options{StartTimeout: 4 * time.Second, Now: clock.Now},
		goServer(t, "failing", "--fail-start"), goServer(t, "hanging", "--hang-start"), missing, goServer(t, "ok"))

	tools := m.Tools(ctx)
	for _, a := range tools {
		if a.Server() != "ok" {
			t.Fatalf("tool %s of a broken server listed", a.Name())
		}
	}
	if len(tools) == 0 {
		t.Fatal("the working server's tools are missing")
	}
	want := map[string]string{
		"failing": "TEST_API_KEY is not set",
		"hanging": "did not finish its handshake within 4s",
		"missing": "/nonexistent/mcp-server",
	}
	for _, st := range m.Status(ctx) {
		if st.Name == "ok" {
			if st.State != StateRunning {
				t.Fatalf("ok: state %s", st.State)
			}
			continue
		}
		if st.State != StateFailed || !strings.Contains(st.LastError, want[st.Name]) {
			t.Fatalf("%s: state %s, error %q, want failed with %q", st.Name, st.State, st.LastError, want[st.Name])
		}
		if st.LogPath == "" {
			t.Fatalf("%s: no log path", st.Name)
		}
	}

	// First failure retries at once; the second one waits.
	if err := m.Start(ctx, "failing"); err == nil || !strings.Contains(err.Error(), "TEST_API_KEY") {
		t.Fatalf("second start: %v", err)
	}
	err := m.Start(ctx, "failing")
	if err == nil || !strings.Contains(err.Error(), "next attempt in 500ms") {
		t.Fatalf("third start within backoff: %v", err)
	}
	clock.Advance(time.Second)
	if err := m.Start(ctx, "failing"); err == nil || !strings.Contains(err.Error(), "TEST_API_KEY") {
		t.Fatalf("start after backoff: %v", err)
	}
	// A call to a tool of a broken server is an error result too.
	a := &ToolAdapter{m: m, server: "failing", tool: "echo"}
	res, err := a.Invoke(ctx, json.RawMessage(`{"text":"x"}`), tools0())
	if err != nil || !res.IsError || !strings.Contains(resultText(res), `MCP server "failing"`) {
		t.Fatalf("call on a failed server: %+v, %v", res, err)
	}
}

func tools0() tools.Env { return tools.Env{} }

func TestBackoff(t *testing.T) {
	cases := []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {1, 0}, {2, 500 * time.Millisecond}, {3, time.Second}, {4, 2 * time.Second},
		{8, 30 * time.Second}, {50, 30 * time.Second},
	}
	for _, tc := range cases {
		if got := backoff(tc.failures); got != tc.want {
			t.Errorf("backoff(%d) = %s, want %s", tc.failures, got, tc.want)
		}
	}
}

// TestCloseAbandonsAStartInProgress: a server stuck before its handshake is
// killed when the manager closes, not left behind waiting for the timeout.
func TestCloseAbandonsAStartInProgress(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	m := newTestManager(t, Options{StartTimeout: time.Minute},
		ServerConfig{Name: "stuck", Command: "sh", Args: []string{"-c", "echo $$ > " + pidFile + "; exec sleep 60"}, Source: "test"})
	started := make(chan error, 1)
	go func() { started <- m.Start(context.Background(), "stuck") }()
	waitFor(t, "the process to start", func() bool { b, err := os.ReadFile(pidFile); return err == nil && len(b) > 1 })
	_ = m.Close()
	select {
	case err := <-started:
		if err == nil {
			t.Fatal("the abandoned start succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not abandon the start")
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitFor(t, "the process to be gone", func() bool { return syscall.Kill(pid, 0) != nil })
}
