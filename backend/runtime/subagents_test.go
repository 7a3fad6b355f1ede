package runtime

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/store"
)

// routeChild sends a subagent's requests (they offer no task tool) to the
// child's script and the parent's to its own.
func routeChild(parent, kid *script.Script) func([]byte) *script.Script {
	return func(body []byte) *script.Script {
		if bytes.Contains(body, []byte(`"name":"task"`)) {
			return parent
		}
		return kid
	}
}

func waitFinished(t *testing.T, r *rig, parentID string) store.SubagentFinished {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if evs := r.events(parentID, store.KindSubagentFinished); len(evs) > 0 {
			return evs[0].Event.(store.SubagentFinished)
		}
		if time.Now().After(deadline) {
			t.Fatal("the subagent did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBackgroundSubagentReportsAtTheNextTurn: a background child's final
// answer — or its failure, or the human's kill — is in the parent's next
// model request, over both wire protocols.
func TestBackgroundSubagentReportsAtTheNextTurn(t *testing.T) {
	cases := []struct {
		name     string
		protocol string
		kid      string // the child's turns
		kill     bool
		want     string
	}{
		{"anthropic answer", "anthropic", `[{"text": "The flaky test is TestIO."}]`, false, "finished. Its final answer:\nThe flaky test is TestIO."},
		{"openai answer", "openai", `[{"text": "The flaky test is TestIO."}]`, false, "finished. Its final answer:\nThe flaky test is TestIO."},
		{"killed while it waits for a human", "anthropic",
			`[{"tool_calls": [{"id": "call_rm", "name": "shell.exec", "args": {"command": "rm -rf build"}}]}, {"text": "removed"}]`,
			true, "was killed by the user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			parent := wireScript(t, `[
				{"tool_calls": [{"id": "call_bg", "name": "task", "args": {"prompt": "CHILD-TASK find the flaky test", "background": true}}]},
				{"text": "A helper is on it."},
				{"text": "Noted."}]`)
			kid := wireScript(t, tc.kid)
			prov, srv := wireProvider(t, tc.protocol, "", parent)
			srv.Route(routeChild(parent, kid))
			r := newRig(t, prov, nil)
			s := r.session(nil)
			must(t, r.svc.Run(ctx, s.ID, "find the flaky test, in the background"))
			started := r.events(s.ID, store.KindSubagentStarted)
			if len(started) != 1 || !started[0].Event.(store.SubagentStarted).Background {
				t.Fatalf("subagent started events: %+v", started)
			}
			kidID := started[0].Event.(store.SubagentStarted).SubagentID
			if tc.kill {
				r.waitPending(kidID, 1)
				must(t, r.svc.KillAgent(ctx, s.ID, kidID))
			}
			fin := waitFinished(t, r, s.ID)
			if fin.Killed != tc.kill || !fin.Background {
				t.Fatalf("finished: %+v", fin)
			}
			if tc.kill {
				if _, err := os.Stat(filepath.Join(r.ws, "build")); err != nil {
					t.Fatal("the killed child's command ran")
				}
			}
			n := len(srv.Bodies())
			must(t, r.svc.Run(ctx, s.ID, "any news?"))
			bodies := srv.Bodies()
			next := bodies[len(bodies)-1]
			if len(bodies) != n+1 || !bytes.Contains(next, []byte(`"name":"task"`)) {
				t.Fatalf("the parent's next turn made %d requests", len(bodies)-n)
			}
			if !bytes.Contains(next, jsonText(tc.want)) {
				t.Fatalf("the parent's next request does not tell the child's end %q:\n%s", tc.want, next)
			}
			if bytes.Count(next, jsonText(tc.want)) != 1 {
				t.Fatal("the child's end is told more than once")
			}
		})
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) []byte {
	return bytes.ReplaceAll([]byte(s), []byte("\n"), []byte(`\n`))
}

// TestTaskResultWaitsAndFetches: the parent waits for a background child
// with task_result (naming it by the task call's id) and reads its answer
// as the tool result; the same answer is then not told a second time.
func TestTaskResultWaitsAndFetches(t *testing.T) {
	ctx := context.Background()
	parent := wireScript(t, `[
		{"tool_calls": [{"id": "call_bg", "name": "task", "args": {"prompt": "CHILD-TASK count the files", "background": true}}]},
		{"tool_calls": [{"id": "call_wait", "name": "task_result", "args": {"id": "call_bg", "timeout_sec": 30}}]},
		{"tool_calls": [{"id": "call_list", "name": "task_result", "args": {}}]},
		{"text": "There are 2 entries."}]`)
	kid, err := script.Parse([]byte(`{"version": 1, "delta_delay_ms": 40, "turns": [{"text": "COUNTED two entries: README.md and build."}]}`))
	must(t, err)
	prov, srv := wireProvider(t, "anthropic", "", parent)
	// The child's answer is held until the parent's task_result call has
	// started, so it ends while task_result waits, not before (releasing
	// it at the parent's next request raced the parent's own step on a
	// busy machine: the child ended first and was told as a notice).
	release := make(chan struct{})
	route := routeChild(parent, kid)
	srv.Route(func(body []byte) *script.Script {
		sc := route(body)
		if sc == kid {
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
		}
		return sc
	})
	r := newRig(t, prov, nil)
	s := r.session(nil)
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for p := range r.svc.Subscribe(pctx) {
			if p.Event != nil && p.Event.Kind == store.KindToolInvocationStarted && bytes.Contains(p.Event.Data, []byte(`"call_wait"`)) {
				close(release)
				return
			}
		}
	}()
	must(t, r.svc.Run(ctx, s.ID, "count the files with a helper"))
	var afterWait []byte
	for _, b := range srv.Bodies() {
		if bytes.Contains(b, []byte("call_wait")) && !bytes.Contains(b, []byte("call_list")) && bytes.Contains(b, []byte(`"tool_use_id":"call_wait"`)) {
			afterWait = b
		}
	}
	if afterWait == nil {
		t.Fatal("no request after the task_result call")
	}
	if bytes.Count(afterWait, []byte("COUNTED two entries")) != 1 {
		t.Fatalf("the answer should be in the task_result result exactly once:\n%s", afterWait)
	}
	hist, err := r.svc.history(ctx, s.ID)
	must(t, err)
	var waitRes, listRes string
	for _, m := range hist {
		for _, res := range m.Results {
			switch res.CallID {
			case "call_wait":
				waitRes = res.Content[0].Text
			case "call_list":
				listRes = res.Content[0].Text
			}
		}
	}
	if waitRes != "COUNTED two entries: README.md and build." {
		t.Fatalf("task_result gave %q", waitRes)
	}
	if !bytes.Contains([]byte(listRes), []byte("[done] CHILD-TASK count the files")) {
		t.Fatalf("task_result without id listed %q", listRes)
	}
}
