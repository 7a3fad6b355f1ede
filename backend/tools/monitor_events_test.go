package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

// eventLog collects what a monitor records through Env.Log.
type eventLog struct {
	mu  sync.Mutex
	evs []store.Event
}

func (l *eventLog) log(e store.Event) {
	l.mu.Lock()
	l.evs = append(l.evs, e)
	l.mu.Unlock()
}

func (l *eventLog) all() []store.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]store.Event(nil), l.evs...)
}

func (l *eventLog) stopped(id string) []store.MonitorStopped {
	var out []store.MonitorStopped
	for _, e := range l.all() {
		if s, ok := e.(store.MonitorStopped); ok && s.MonitorID == id {
			out = append(out, s)
		}
	}
	return out
}

// TestMonitorLifecycleEvents: every monitor records one MonitorStarted
// (naming its call) and exactly one MonitorStopped saying how it ended.
func TestMonitorLifecycleEvents(t *testing.T) {
	cases := []struct {
		name     string
		args     string
		stop     func(m *Monitors, env Env, id string)
		reason   string
		exitCode int // -1: none expected
	}{
		{name: "command exits by itself", args: `{"command": "echo one; echo two; exit 3"}`, reason: "exited", exitCode: 3},
		{name: "command stopped by the model", args: `{"command": "echo up; sleep 30"}`, reason: "stopped by the model (monitor.stop)", exitCode: -2,
			stop: func(m *Monitors, env Env, id string) { invoke(t, NewMonitorStop(m), env, `{"id":"`+id+`"}`) }},
		{name: "command stopped by the user", args: `{"command": "sleep 30"}`, reason: "stopped by the user", exitCode: -2,
			stop: func(m *Monitors, env Env, id string) { _, _ = m.Stop(env.SessionID, id) }},
		{name: "watch closed with its session", args: `{"watch_path": "."}`, reason: "the session closed", exitCode: -1,
			stop: func(m *Monitors, env Env, id string) { m.StopSession(env.SessionID) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mons := NewMonitors(testCage(t))
			t.Cleanup(mons.Close)
			env := testEnv(t)
			var l eventLog
			env.Log, env.CallID = l.log, "call-mon"
			id := startedID(t, invoke(t, NewMonitorStart(mons), env, tc.args))
			if tc.stop != nil {
				if tc.exitCode != -1 {
					eventually(t, "the command to start", func() bool {
						return len(mons.List(env.SessionID)) == 1
					})
				}
				tc.stop(mons, env, id)
			}
			eventually(t, "MonitorStopped", func() bool { return len(l.stopped(id)) > 0 })
			evs := l.all()
			st, ok := evs[0].(store.MonitorStarted)
			if !ok || st.MonitorID != id || st.CallID != "call-mon" || st.Command == "" {
				t.Fatalf("first event %#v", evs[0])
			}
			stops := l.stopped(id)
			if len(stops) != 1 || stops[0].Reason != tc.reason {
				t.Fatalf("stopped events %+v, want one with reason %q", stops, tc.reason)
			}
			switch {
			case tc.exitCode >= 0 && (stops[0].ExitCode == nil || *stops[0].ExitCode != tc.exitCode):
				t.Fatalf("exit code %v, want %d", stops[0].ExitCode, tc.exitCode)
			case tc.exitCode == -1 && stops[0].ExitCode != nil:
				t.Fatalf("a watch has exit code %d", *stops[0].ExitCode)
			}
			mons.Close() // nothing more is recorded for an ended monitor
			if n := len(l.stopped(id)); n != 1 {
				t.Fatalf("%d MonitorStopped after Close", n)
			}
		})
	}
}

// TestMonitorRead pages a monitor's output by line number and waits for
// new output or the end.
func TestMonitorRead(t *testing.T) {
	mons := NewMonitors(testCage(t))
	t.Cleanup(mons.Close)
	env := testEnv(t)
	gate := filepath.Join(env.Workspace, "go-on")
	id := startedID(t, invoke(t, NewMonitorStart(mons), env,
		`{"command": "for i in 1 2 3 4 5; do echo line$i; done; while [ ! -e go-on ]; do sleep 0.05; done; echo last; exit 7"}`))
	read := NewMonitorRead(mons)
	page := func(args string) MonitorLines {
		t.Helper()
		r := invoke(t, read, env, args)
		if r.IsError {
			t.Fatalf("monitor.read %s: %s", args, text(r))
		}
		var p MonitorLines
		if err := json.Unmarshal(r.Structured, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	eventually(t, "five lines", func() bool { return len(page(`{"id":"`+id+`"}`).Lines) == 5 })
	p := page(`{"id":"` + id + `", "since": 2, "max_lines": 2}`)
	if strings.Join(p.Lines, ",") != "line2,line3" || p.From != 2 || p.Next != 4 {
		t.Fatalf("page %+v", p)
	}
	if p := page(`{"id":"` + id + `", "since": 6}`); len(p.Lines) != 0 || !p.Info.Running {
		t.Fatalf("nothing new yet: %+v", p)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := invoke(t, read, env, `{"id":"`+id+`", "since": 6, "wait_sec": 20}`)
	if !strings.Contains(text(r), "last") {
		t.Fatalf("waited read: %s", text(r))
	}
	eventually(t, "the exit", func() bool {
		return strings.Contains(text(invoke(t, read, env, `{"id":"`+id+`", "since": 7, "wait_sec": 5}`)), "[exited 7]")
	})
	bad := []struct{ name, args, want string }{
		{"no id", `{}`, "id"},
		{"blank id", `{"id": " "}`, "id is empty"},
		{"negative since", `{"id":"x","since":-1}`, "negative"},
		{"long wait", `{"id":"x","wait_sec":9999}`, "over"},
		{"unknown monitor", `{"id":"mon-99"}`, "no monitor"},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			if r := invoke(t, read, env, b.args); !r.IsError || !strings.Contains(text(r), b.want) {
				t.Fatalf("%s: %s", b.args, text(r))
			}
		})
	}
}
