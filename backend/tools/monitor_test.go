package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// eventually polls cond for up to five seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func startedID(t *testing.T, r Result) string {
	t.Helper()
	var info MonitorInfo
	if r.IsError || json.Unmarshal(r.Structured, &info) != nil || info.ID == "" {
		t.Fatalf("monitor.start: %s", text(r))
	}
	return info.ID
}

func TestCommandMonitor(t *testing.T) {
	mons := NewMonitors(testCage(t))
	t.Cleanup(mons.Close)
	env := testEnv(t)
	var s streams
	env.Output = s.out
	beat := filepath.Join(env.Workspace, "beat")
	id := startedID(t, invoke(t, NewMonitorStart(mons), env, `{"command":"echo ready; while :; do date +%s%N > beat; sleep 0.05; done","name":"heart"}`))
	eventually(t, "streamed output", func() bool { return s.get("monitor/"+id+"/stdout") == "ready\n" })
	eventually(t, "the heartbeat file", func() bool { return exists(beat) })

	list := invoke(t, NewMonitorList(mons), env, `{}`)
	if !strings.Contains(text(list), id+" heart [running]") || !strings.Contains(text(list), "    ready") {
		t.Fatalf("monitor.list: %s", text(list))
	}
	other := env
	other.SessionID = "someone-else"
	if r := invoke(t, NewMonitorList(mons), other, `{}`); text(r) != "no monitors running" {
		t.Fatalf("another session sees the monitor: %s", text(r))
	}
	if r := invoke(t, NewMonitorStop(mons), other, `{"id":"`+id+`"}`); !r.IsError {
		t.Fatal("another session stopped the monitor")
	}

	stop := invoke(t, NewMonitorStop(mons), env, `{"id":"`+id+`"}`)
	if stop.IsError || !strings.Contains(text(stop), "stopped monitor "+id) {
		t.Fatalf("monitor.stop: %s", text(stop))
	}
	last := readFile(t, beat)
	time.Sleep(300 * time.Millisecond)
	if readFile(t, beat) != last {
		t.Fatal("the monitor's process kept running after stop")
	}
	if !strings.Contains(s.get("monitor/"+id+"/exit"), "exit code") {
		t.Fatalf("no exit event: %q", s.get("monitor/"+id+"/exit"))
	}
}

func TestMonitorsDieWithTheirSession(t *testing.T) {
	mons := NewMonitors(testCage(t))
	t.Cleanup(mons.Close)
	env := testEnv(t)
	keep := env
	keep.SessionID = "other"
	for i, e := range []Env{env, env, keep} {
		name := filepath.Join(e.Workspace, "beat"+string(rune('0'+i)))
		startedID(t, invoke(t, NewMonitorStart(mons), e, string(mustJSON(t, map[string]string{"command": "while :; do date +%s%N > " + name + "; sleep 0.05; done"}))))
		eventually(t, "heartbeat", func() bool { return exists(name) })
	}
	if n := mons.StopSession(env.SessionID); n != 2 {
		t.Fatalf("StopSession stopped %d, want 2", n)
	}
	beats := func() []string {
		var b []string
		for i := 0; i < 3; i++ {
			b = append(b, readFile(t, filepath.Join(env.Workspace, "beat"+string(rune('0'+i)))))
		}
		return b
	}
	before := beats()
	// Wait until the live monitor has beaten at least twice (a loaded
	// machine can hold one beat back for a second), then compare: the
	// ended ones must not have moved in all that time.
	after := beats()
	for moved, deadline := 0, time.Now().Add(15*time.Second); moved < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the other session's monitor was stopped too")
		}
		time.Sleep(200 * time.Millisecond)
		if b := beats(); b[2] != after[2] {
			moved++
			after = b
		}
	}
	if before[0] != after[0] || before[1] != after[1] {
		t.Fatal("a monitor of the ended session is still running")
	}
	if len(mons.List("other")) != 1 || len(mons.List(env.SessionID)) != 0 {
		t.Fatal("List after StopSession")
	}
}

func TestWatchMonitor(t *testing.T) {
	mons := NewMonitors(testCage(t))
	t.Cleanup(mons.Close)
	env := testEnv(t)
	var s streams
	env.Output = s.out
	if err := os.Mkdir(filepath.Join(env.Workspace, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	id := startedID(t, invoke(t, NewMonitorStart(mons), env, `{"watch_path":"."}`))
	writeFile(t, filepath.Join(env.Workspace, "src", "changed.go"), "x")
	eventually(t, "a change event", func() bool {
		return strings.Contains(s.get("monitor/"+id+"/event"), filepath.Join(env.Workspace, "src", "changed.go"))
	})
	if r := invoke(t, NewMonitorStop(mons), env, `{"id":"`+id+`"}`); r.IsError {
		t.Fatal(text(r))
	}
}

func TestMonitorStartArguments(t *testing.T) {
	mons := NewMonitors(testCage(t))
	t.Cleanup(mons.Close)
	env := testEnv(t)
	start := NewMonitorStart(mons)
	tests := []struct{ name, args, want string }{
		{"neither", `{}`, "exactly one of command or watch_path"},
		{"both", `{"command":"ls","watch_path":"."}`, "exactly one of command or watch_path"},
		{"nonexistent watch", `{"watch_path":"nope"}`, "watch_path"},
		{"cwd with a watch", `{"watch_path":".","cwd":"."}`, "cwd applies to a command"},
		{"wrong type", `{"command":5}`, `"command" must be a JSON string`},
		{"expose with a watch", `{"watch_path":".","expose":[5173]}`, "expose applies to a command"},
		{"expose port zero", `{"command":"true","expose":[0]}`, "not a port"},
		{"expose too many", `{"command":"true","expose":[1,2,3,4,5,6,7,8,9]}`, "at most 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := invoke(t, start, env, tc.args)
			if !r.IsError || !strings.Contains(text(r), tc.want) {
				t.Fatalf("got %q, want %q", text(r), tc.want)
			}
		})
	}
	if r := invoke(t, NewMonitorStop(mons), env, `{"id":"mon-404"}`); !r.IsError || !strings.Contains(text(r), `no monitor "mon-404"`) {
		t.Fatalf("stop unknown: %s", text(r))
	}
	eff, err := start.Effects(json.RawMessage(`{"command":"npm run dev"}`), env)
	if err != nil || eff[0].Kind != policy.EffectExec || eff[0].Command != "npm run dev" || eff[0].Cwd != env.Workspace {
		t.Fatalf("command monitor effects %+v %v", eff, err)
	}
	eff, err = start.Effects(json.RawMessage(`{"watch_path":"."}`), env)
	if err != nil || eff[0].Kind != policy.EffectRead {
		t.Fatalf("watch effects %+v %v", eff, err)
	}
}

// A monitor is watched for its whole life: a protected name it makes long
// after it started is gone while it still runs, and reported.
func TestMonitorCannotPlantProtectedNames(t *testing.T) {
	mons := NewMonitors(testCage(t))
	t.Cleanup(mons.Close)
	env := testEnv(t)
	var s streams
	env.Output = s.out
	plant := filepath.Join(env.Workspace, "pkg", ".envrc")
	id := startedID(t, invoke(t, NewMonitorStart(mons), env, `{"command":"sleep 0.5; mkdir -p pkg; echo evil > pkg/.envrc; echo planted; sleep 30","name":"late"}`))
	eventually(t, "the monitor's write", func() bool { return s.get("monitor/"+id+"/stdout") == "planted\n" })
	eventually(t, "the planted file to go", func() bool { return !exists(plant) })
	if r := invoke(t, NewMonitorList(mons), env, `{}`); !strings.Contains(text(r), "[running]") {
		t.Fatalf("the monitor should still run: %s", text(r))
	}
	invoke(t, NewMonitorStop(mons), env, `{"id":"`+id+`"}`)
	eventually(t, "the violation in the monitor's output", func() bool {
		return strings.Contains(s.get("monitor/"+id+"/stderr"), "sandbox violation: "+plant)
	})
}
