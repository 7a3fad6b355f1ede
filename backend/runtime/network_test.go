package runtime

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
)

// A caged command's new destination is asked through the broker like any
// call; "Always allow" for the session remembers net:<host>:<port>, and the
// next command reaches the host by that grant without asking again.
func TestNetworkAskThroughTheBroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("pkg-index")) }),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				accepted.Add(1)
			}
		}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	sig := fmt.Sprintf("net:registry.test:%d", port)

	r := newRig(t, nil, func(c *rigConfig) {
		c.Network = gate.NetworkConfig{Resolve: func(_ context.Context, h string) ([]netip.Addr, error) {
			if h == "registry.test" {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, fmt.Errorf("%s: no such host", h)
		}}
	})
	on := policy.OnRequest
	s := r.session(func(a *CreateSessionArgs) {
		a.Approval = &on
		a.Sandbox = &Sandbox{Kind: policy.WorkspaceWrite, NetworkAccess: true}
	})
	// python's urllib honours http_proxy; the classifier leaves an
	// interpreter to the cage, so only the destination is asked.
	cmd := fmt.Sprintf(`!python3 -c "import urllib.request as u; print(u.urlopen('http://registry.test:%d/').read().decode())"`, port)
	done := make(chan error, 1)
	go func() { done <- r.svc.Run(context.Background(), s.ID, cmd) }()
	ps := r.waitPending(s.ID, 1)
	// Asked about the name before anything resolved it; "Always" makes a
	// grant, which then lists it for its loopback address too.
	if ps[0].Signature != sig || ps[0].Tool != sig || !strings.Contains(ps[0].Preview, "not looked up yet") {
		t.Fatalf("the ask names the destination: %+v", ps[0])
	}
	if accepted.Load() != 0 {
		t.Fatal("connected before the answer")
	}
	if err := r.svc.Answer(context.Background(), AnswerArgs{RequestID: ps[0].RequestID, Answer: AnswerAlways, Scope: policy.ScopeSession}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r.waitIdle(s.ID)
	if accepted.Load() != 1 {
		t.Fatalf("the host saw %d connections after the answer, want 1", accepted.Load())
	}
	grants, err := r.svc.ListGrants(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range grants {
		found = found || g.Signature == sig
	}
	if !found {
		t.Fatalf("no grant for %s: %+v", sig, grants)
	}

	// Again: the grant answers, nobody is asked.
	if err := r.svc.Run(context.Background(), s.ID, cmd); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(s.ID)
	if accepted.Load() != 2 {
		t.Fatalf("the host saw %d connections, want 2", accepted.Load())
	}
	var by []string
	for _, e := range r.events(s.ID, store.KindNetworkConnection) {
		c := e.Event.(store.NetworkConnection)
		by = append(by, c.AllowedBy)
	}
	if len(by) != 2 || by[0] != "human:always" || by[1] != "session-grant:"+sig {
		t.Fatalf("connection events allowed by %v", by)
	}
}

// The model is told where the host reaches a monitor's port at its next
// turn, after the results of the calls in flight.
func TestModelToldTheExposedURL(t *testing.T) {
	r := newRig(t, nil, nil)
	s := r.session(nil)
	ctx := context.Background()
	for _, ev := range []store.Event{
		store.MessageAppended{MessageID: "m1", Role: "user", Text: "start the dev server"},
		store.MessageAppended{MessageID: "m2", Role: "assistant", ToolCalls: []store.ToolCall{{ID: "c1", Name: "monitor.start", Args: []byte(`{"command":"npm run dev"}`)}}},
		store.MonitorStarted{MonitorID: "mon-1", CallID: "c1", Command: "npm run dev"},
		store.MonitorPortExposed{MonitorID: "mon-1", Port: 5173, URL: "http://127.0.0.1:41234/", Detected: true},
		store.MessageAppended{MessageID: "m3", Role: "tool", ToolCallID: "c1", Text: "started monitor mon-1"},
	} {
		if _, err := r.st.Append(ctx, s.ID, store.AnyVersion, ev); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := r.svc.history(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1]
	want := "Monitor mon-1 (npm run dev) listens on port 5173; it is reachable from the host at http://127.0.0.1:41234/ (open it with the browser tool)."
	if last.Role != model.RoleUser || !strings.Contains(last.Text(), want) {
		t.Fatalf("the last message does not tell the URL:\n%+v", last)
	}
	if len(msgs) < 2 || msgs[len(msgs)-2].Role != model.RoleTool {
		t.Fatalf("the notice must follow the call's result, not come between the call and it: %+v", msgs)
	}
}
