//go:build !wardenslim

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/runtime"
)

// TestMonitorEventsInAuditExport: a monitor the model starts records its
// start, its output lines, its exit event and its stop, and `warden audit
// export` carries all of them; the model read the output with monitor.read.
func TestMonitorEventsInAuditExport(t *testing.T) {
	// The cage hides the host's /tmp, so the workspace lives elsewhere.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := os.MkdirTemp(wd, "monitor-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	sc := filepath.Join(t.TempDir(), "monitor.json")
	if err := os.WriteFile(sc, []byte(`{"version": 1, "turns": [
		{"tool_calls": [{"id": "c_mon", "name": "monitor.start", "args": {"command": "echo hello-monitor; exit 3", "name": "greeter"}}]},
		{"tool_calls": [{"id": "c_read", "name": "monitor.read", "args": {"id": "mon-1", "since": 2, "wait_sec": 20}}]},
		{"text": "The monitor said hello and exited 3."}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "w.db")
	code, out, errs := runCLI(t, context.Background(), "run", "--json", "--workspace", ws, "--db", db, "--model", "script:"+sc, "watch it")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	session := ""
	sc2 := bufio.NewScanner(strings.NewReader(out))
	sc2.Buffer(make([]byte, 1<<20), 1<<20)
	for sc2.Scan() {
		var p runtime.Push
		if json.Unmarshal(sc2.Bytes(), &p) == nil && p.Event != nil {
			session = p.Event.SessionID
		}
	}
	if session == "" {
		t.Fatalf("no session in the run's output:\n%s", out)
	}
	code, exported, errs := runCLI(t, context.Background(), "audit", "export", "--db", db, "--session", session)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	type line struct {
		Kind string         `json:"kind"`
		Data map[string]any `json:"data"`
	}
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(exported), "\n") {
		var e line
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("export line %q: %v", l, err)
		}
		got = append(got, e)
	}
	want := []struct{ kind, field, value string }{
		{"monitor_started", "command", "echo hello-monitor; exit 3"},
		{"monitor_started", "call_id", "c_mon"},
		{"monitor_event", "line", "hello-monitor"},
		{"monitor_event", "stream", "exit"},
		{"monitor_stopped", "reason", "exited"},
		{"monitor_stopped", "exit_code", "3"},
	}
	for _, w := range want {
		found := false
		for _, e := range got {
			if e.Kind == w.kind && e.Data != nil && strings.TrimSpace(jsonString(e.Data[w.field])) == w.value {
				found = true
			}
		}
		if !found {
			t.Errorf("audit export has no %s with %s=%q:\n%s", w.kind, w.field, w.value, exported)
		}
	}
	if !strings.Contains(exported, `[exited 3]`) {
		t.Errorf("the model's monitor.read result does not report the exit:\n%s", exported)
	}
}

func jsonString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		b, _ := json.Marshal(x)
		return string(b)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
