package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// hostService is a real HTTP server on the host's loopback counting the
// connections it accepted.
func hostService(t *testing.T) (int, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("reached-the-host-service"))
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port, &n
}

func TestGateNetworkDecisions(t *testing.T) {
	cage := testCage(t)
	port, accepted := hostService(t)
	dest := fmt.Sprintf("registry.test:%d", port)
	sig := "net:" + dest
	twice := fmt.Sprintf("curl -sS --max-time 20 http://%[1]s/a; echo; curl -sS --max-time 20 http://%[1]s/b; echo", dest)
	for _, tc := range []struct {
		name       string
		approval   policy.ApprovalPolicy
		approver   *answer
		timeout    time.Duration // gate ApprovalTimeout
		askTimeout time.Duration
		allow      []string
		deny       []string
		grant      bool
		reached    int64
		asked      int
		out        string
		events     string // NetworkConnection allowed/by, or refused/reason
	}{
		{name: "headless ask is refused and never connects", approval: policy.OnRequest, timeout: 50 * time.Millisecond,
			asked: 1, out: "network: " + dest + " refused (no-approver)", events: "refused:no-approver"},
		{name: "a human allows once: reached, asked once for both connections", approval: policy.OnRequest, approver: &answer{a: Approval{Approved: true}},
			reached: 2, asked: 1, out: "reached-the-host-service", events: "allowed:human:once"},
		{name: "a human denies", approval: policy.OnRequest, approver: &answer{a: Approval{Note: "no"}},
			asked: 1, out: "refused (user-denied)", events: "refused:user-denied"},
		{name: "an unanswered ask times out, the command ends", approval: policy.OnRequest, approver: &answer{never: true}, askTimeout: 200 * time.Millisecond,
			asked: 1, out: "refused (no-approver)", events: "refused:no-approver"},
		{name: "a grant for the signature allows", approval: policy.OnRequest, grant: true,
			reached: 2, out: "reached-the-host-service", events: "allowed:session-grant:" + sig},
		{name: "an exact allow entry reaches loopback", approval: policy.OnRequest, allow: []string{dest},
			reached: 2, out: "reached-the-host-service", events: "allowed:network-allow:" + dest},
		{name: "never does not reach loopback", approval: policy.Never,
			out: "refused (private-address)", events: "refused:private-address"},
		{name: "deny pattern wins, nobody asked", approval: policy.OnRequest, approver: &answer{a: Approval{Approved: true}}, allow: []string{dest}, deny: []string{"*.test"},
			out: "refused (host-denied)", events: "refused:host-denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			accepted.Store(0)
			env := testEnv(t)
			env.Sandbox.NetworkAccess = true
			rules, err := policy.ParseHostRules(tc.allow, tc.deny)
			if err != nil {
				t.Fatal(err)
			}
			s := policy.Session{Workspace: env.Workspace, Approval: tc.approval, Sandbox: env.Sandbox, Caged: true}
			if tc.grant {
				s.Grants = []policy.Grant{{ID: "g", Signature: sig, Scope: policy.ScopeSession, Reasons: []policy.Reason{policy.ReasonNetworkRequest}}}
			}
			j := &journal{}
			cfg := GateConfig{Decider: policy.New(policy.Config{}), Journal: j, ApprovalTimeout: tc.timeout,
				Session: func(context.Context, Env) (policy.Session, error) { return s, nil },
				Network: NetworkConfig{Rules: rules, AskTimeout: tc.askTimeout, Resolve: func(_ context.Context, h string) ([]netip.Addr, error) {
					if h == "registry.test" {
						return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
					}
					return nil, fmt.Errorf("%s: no such host", h)
				}}}
			if tc.approver != nil {
				cfg.Approver = tc.approver
			}
			// The shell command itself is allowed; only its destinations are asked.
			g, err := NewGate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			out, err := g.Call(context.Background(), &alwaysAllowed{NewShellExec(cage)}, mustJSON(t, map[string]any{"command": twice}), env)
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 30*time.Second {
				t.Fatalf("the command hung on the ask (%s)", time.Since(start))
			}
			res := text(out.Result)
			if got := accepted.Load(); got != tc.reached {
				t.Fatalf("the host service saw %d connections, want %d:\n%s", got, tc.reached, res)
			}
			if !strings.Contains(res, tc.out) {
				t.Fatalf("result lacks %q:\n%s", tc.out, res)
			}
			asked := 0
			if tc.approver != nil {
				asked = len(tc.approver.asked)
				for _, r := range tc.approver.asked {
					if r.Signature != sig || r.Tool != sig || !strings.Contains(r.Preview, "127.0.0.1") {
						t.Fatalf("the ask names the destination: %+v", r)
					}
				}
			} else {
				asked = strings.Count(j.types(), EventPermissionRequested)
			}
			if asked != tc.asked {
				t.Fatalf("asked %d times, want %d (events %s)", asked, tc.asked, j.types())
			}
			var conns []string
			for _, e := range j.evs {
				if e.Type != EventNetworkConnection {
					continue
				}
				if e.Conn.Allowed {
					conns = append(conns, "allowed:"+e.Conn.AllowedBy)
				} else {
					conns = append(conns, "refused:"+e.Conn.Reason)
				}
				if e.Tool != sig || e.CallID != out.CallID {
					t.Fatalf("connection event %+v", e)
				}
			}
			if len(conns) != 2 || conns[0] != tc.events || conns[1] != tc.events {
				t.Fatalf("connection events %v, want two of %q", conns, tc.events)
			}
		})
	}
}

// alwaysAllowed is a tool whose call the chain allows without asking (its
// effects are a read), so the test sees only the network decisions.
type alwaysAllowed struct{ *ShellExec }

func (alwaysAllowed) Effects(json.RawMessage, Env) ([]policy.Effect, error) {
	return []policy.Effect{{Kind: policy.EffectRead}}, nil
}
