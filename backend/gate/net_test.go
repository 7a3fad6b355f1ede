package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
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
		// Asked about the name first (nothing resolved yet), then, since it
		// resolved to a loopback address, about that address: a name's
		// answer never reaches a private address the human did not see.
		{name: "a human allows once: reached, asked once per step for both connections", approval: policy.OnRequest, approver: &answer{a: Approval{Approved: true}},
			reached: 2, asked: 2, out: "reached-the-host-service", events: "allowed:human:once"},
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
			cfg := Config{Decider: policy.New(policy.Config{}), Journal: j, ApprovalTimeout: tc.timeout,
				Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil },
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
			g, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			out, err := callGate(g, context.Background(), &alwaysAllowed{tools.NewShellExec(cage)}, mustJSON(t, map[string]any{"command": twice}), env)
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
				for i, r := range tc.approver.asked {
					if r.Signature != sig || r.Tool != sig || !strings.Contains(r.Preview, dest) {
						t.Fatalf("the ask names the destination: %+v", r)
					}
					// The first ask is about the name, before any lookup;
					// the second shows the address it resolved to.
					if i == 0 && (strings.Contains(r.Preview, "127.0.0.1") || !strings.Contains(r.Preview, "not looked up yet")) ||
						i == 1 && !strings.Contains(r.Preview, "127.0.0.1") {
						t.Fatalf("ask %d preview: %s", i, r.Preview)
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
// effects are a read), so the test sees only the network decisions. It
// embeds the tool as a Tool: a typed tool embedded as itself would bring
// its own Prepare, and the gate would decide on its effects instead.
type alwaysAllowed struct{ tools.Tool }

func (alwaysAllowed) Effects(json.RawMessage, tools.Env) ([]policy.Effect, error) {
	return []policy.Effect{{Kind: policy.EffectRead}}, nil
}

// In the proxied cage the engine does not ask for a command as a whole for
// reaching the network (policy.Session.NetworkProxied): the proxy decides
// each destination. Issue 14's red-team commands, whose command-level ask
// that was, run headless under On request against a host that has an HTTP
// service on its loopback (every test name resolves to it) and a unix socket
// in the workspace; neither sees a connection.
func TestProxiedCageRedTeamReachesNothing(t *testing.T) {
	cage := testCage(t)
	port, accepted := hostService(t)
	env := testEnv(t)
	env.Sandbox.NetworkAccess = true
	if !cage.Proxied(env.Sandbox) {
		t.Fatal("bwrap with network admitted must send every connection through the proxy")
	}
	sock := filepath.Join(env.Workspace, "host.sock")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	var unixAccepted atomic.Int64
	go func() {
		for {
			c, err := uln.Accept()
			if err != nil {
				return
			}
			unixAccepted.Add(1)
			_, _ = c.Write([]byte("HTTP/1.0 200 OK\r\n\r\nreached-the-host-socket"))
			c.Close()
		}
	}()
	s := policy.Session{Workspace: env.Workspace, Approval: policy.OnRequest, Sandbox: env.Sandbox,
		Caged: cage.Caged(env.Sandbox), NetworkProxied: cage.Proxied(env.Sandbox)}
	j := &journal{}
	g, err := New(Config{Decider: policy.New(policy.Config{}), Journal: j, ApprovalTimeout: 50 * time.Millisecond,
		Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil },
		Network: NetworkConfig{Resolve: func(_ context.Context, h string) ([]netip.Addr, error) {
			if strings.HasSuffix(h, ".test") || h == "example.com" {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, fmt.Errorf("%s: no such host", h)
		}}})
	if err != nil {
		t.Fatal(err)
	}
	p := fmt.Sprint(port)
	curl := "curl -sS --max-time 10 "
	for _, tc := range []struct {
		name, command string
		proxied       bool // goes to the proxy, which refuses it
	}{
		{"getent-hosts", "getent hosts registry.test", false},
		{"getent-ahosts", "getent ahosts example.com", false},
		{"curl-connect-to", curl + "--connect-to registry.test:80:127.0.0.1:" + p + " http://registry.test/", true},
		{"curl-connect-to-any", curl + "--connect-to ::127.0.0.1:" + p + " https://registry.test/", true},
		{"curl-resolve", curl + "--resolve registry.test:" + p + ":127.0.0.1 http://registry.test:" + p + "/", true},
		{"curl-resolve-noproxy", curl + "--noproxy '*' --resolve registry.test:" + p + ":127.0.0.1 http://registry.test:" + p + "/", false},
		{"curl-unix-socket", curl + "--unix-socket " + sock + " http://localhost/", false},
		{"ssh-jump", "ssh -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=no -J registry.test:" + p + " -p " + p + " 127.0.0.1 uptime", false},
		{"ssh-direct", "ssh -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=no -p " + p + " 127.0.0.1 uptime", false},
		{"tar-remote", "tar -tf registry.test:/a.tar", false},
		{"pip-download", "pip download --no-deps --no-cache-dir -d /tmp/pd example-pkg --retries 0 --timeout 5 --trusted-host registry.test --index-url http://registry.test:" + p + "/simple", true},
		{"git-ls-remote", "git ls-remote http://registry.test:" + p + "/repo.git", true},
		{"python-urlopen", "python3 -c \"import urllib.request as u; print(u.urlopen('http://registry.test:" + p + "/').read())\"", true},
		{"bash-dev-tcp", "exec 3<>/dev/tcp/127.0.0.1/" + p + " && echo connected", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			accepted.Store(0)
			unixAccepted.Store(0)
			j.mu.Lock()
			j.evs = nil
			j.mu.Unlock()
			out, err := callGate(g, context.Background(), tools.NewShellExec(cage), mustJSON(t, map[string]any{"command": tc.command}), env)
			if err != nil {
				t.Fatal(err)
			}
			res := text(out.Result)
			if out.Decision == nil || out.Decision.Verdict != policy.VerdictAllow {
				t.Fatalf("the command itself is decided by the engine alone, not asked: %+v\n%s", out.Decision, res)
			}
			j.mu.Lock()
			evs := append([]rec(nil), j.evs...)
			j.mu.Unlock()
			for _, e := range evs {
				if e.Type == EventPermissionRequested && !strings.HasPrefix(e.Tool, "net:") {
					t.Fatalf("asked for %s as a whole (%s)", e.Tool, j.types())
				}
			}
			if n, u := accepted.Load(), unixAccepted.Load(); n != 0 || u != 0 {
				t.Fatalf("the host saw %d TCP and %d unix connections:\n%s", n, u, res)
			}
			if tc.proxied && !strings.Contains(res, " refused (no-approver)") {
				t.Fatalf("the proxy did not refuse it:\n%s", res)
			}
			if strings.Contains(res, "reached-the-host") {
				t.Fatalf("the host answered:\n%s", res)
			}
		})
	}
}
