package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/netproxy"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// cageWorld is a workspace, a secret outside it that the cage hides, a
// host loopback service counting its connections, and a cage.
type cageWorld struct {
	ws, secretFile, wardenFile string
	port                       int
	accepted                   *atomic.Int64
	cage                       *sandbox.Cage
}

const (
	secretText = "s3cret-value-outside-the-workspace"
	wardenText = "warden-own-data-must-not-be-read"
	reachedMsg = "reached-the-host-service"
)

func newCageWorld(t *testing.T) *cageWorld {
	t.Helper()
	base := outsideTmp(t)
	w := &cageWorld{ws: filepath.Join(base, "ws")}
	secretDir, wardenDir := filepath.Join(base, "secrets"), filepath.Join(base, "warden-data")
	for _, d := range []string{w.ws, secretDir, wardenDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	w.secretFile, w.wardenFile = filepath.Join(secretDir, "token"), filepath.Join(wardenDir, "warden.db")
	for p, s := range map[string]string{w.secretFile: secretText, w.wardenFile: wardenText, filepath.Join(w.ws, "note.txt"): "inside the workspace"} {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w.cage = sandbox.New(sandbox.Config{DenyRead: []string{secretDir}, Protected: []string{wardenDir}})
	if st := w.cage.Detect(context.Background()); !st.Available {
		t.Fatalf("the cage must work on this machine: %s", st.Reason)
	}
	t.Cleanup(func() { _ = w.cage.Close() })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.accepted = &atomic.Int64{}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(rw, reachedMsg)
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			w.accepted.Add(1)
		}
	}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	w.port = ln.Addr().(*net.TCPAddr).Port
	return w
}

// outsideTmp is a fresh folder outside /tmp (the cage's /tmp is its own,
// so a secret there would be out of reach for the wrong reason), removed
// after the test.
func outsideTmp(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(base, "warden-cage-test")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(base, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+"-")
	if err != nil {
		t.Fatal(err)
	}
	if d, err = filepath.EvalSymlinks(d); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// probeServer is the Go test server with its probe tools, copied into the
// workspace: the test binary lives under /tmp, which the cage replaces.
func (w *cageWorld) probeServer(t *testing.T, name, sandboxSetting string) ServerConfig {
	t.Helper()
	cfg := goServer(t, name, "-probe")
	data, err := os.ReadFile(cfg.Command)
	if err != nil {
		t.Fatal(err)
	}
	// Beside the workspace, not in it: a server run unconfined from a
	// workspace is refused (unconfined.go).
	bin := filepath.Join(filepath.Dir(w.ws), "bin", "mcp-probe-server")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if err := os.WriteFile(bin, data, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Command, cfg.Sandbox = bin, sandboxSetting
	return cfg
}

// connJournal records the events the gate appends.
type connJournal struct {
	mu    sync.Mutex
	conns []store.NetworkConnection
	asked int
}

func (j *connJournal) Append(_ context.Context, _ string, _ int64, evs ...store.Event) (int64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, e := range evs {
		switch e := e.(type) {
		case store.NetworkConnection:
			j.conns = append(j.conns, e)
		case store.PermissionRequested:
			j.asked++
		}
	}
	return 0, nil
}

func (j *connJournal) snapshot() ([]store.NetworkConnection, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]store.NetworkConnection(nil), j.conns...), j.asked
}

// gate is the real gate and policy engine, headless (an ask times out),
// in a session with network admitted and the given [network] allow list.
func (w *cageWorld) gate(t *testing.T, allow ...string) (*gate.Gate, *connJournal) {
	return w.gateWith(t, nil, true, allow...)
}

// gateWith is gate with a human answering the asks (nil: headless).
// network is the session's network switch.
func (w *cageWorld) gateWith(t *testing.T, ap gate.Approver, network bool, allow ...string) (*gate.Gate, *connJournal) {
	t.Helper()
	rules, err := policy.ParseHostRules(allow, nil)
	if err != nil {
		t.Fatal(err)
	}
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: network}
	s := policy.Session{Workspace: w.ws, Approval: policy.OnRequest, Sandbox: sb, Caged: true, NetworkProxied: true}
	j := &connJournal{}
	g, err := gate.New(gate.Config{Decider: policy.New(policy.Config{}), Journal: j, ApprovalTimeout: 50 * time.Millisecond, Approver: ap,
		Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil },
		Network: gate.NetworkConfig{Rules: rules, Resolve: func(_ context.Context, h string) ([]netip.Addr, error) {
			if h == "registry.test" || h == "other.test" {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, fmt.Errorf("%s: no such host", h)
		}}})
	if err != nil {
		t.Fatal(err)
	}
	return g, j
}

// call runs one MCP tool call through the gate and returns its text.
func (w *cageWorld) call(t *testing.T, g *gate.Gate, m *Manager, tool, args string) string {
	t.Helper()
	a := lookup(t, m, tool)
	out, err := g.Call(context.Background(), gate.Request{Tool: a, Args: json.RawMessage(args), Env: tools.Env{SessionID: "s1", CallID: "call-" + a.MCPTool()}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Invoked {
		t.Fatalf("%s was not invoked: %s", tool, resultText(out.Result))
	}
	return resultText(out.Result)
}

func (w *cageWorld) manager(t *testing.T, servers ...ServerConfig) *Manager {
	t.Helper()
	m := newTestManager(t, Options{Cage: w.cage, WorkDir: w.ws}, servers...)
	for _, s := range servers {
		if err := m.Trust(context.Background(), s.Name, TrustSession); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// TestCagedServerReachesNothingOutside: a caged MCP server (the default)
// reads the workspace but not the hidden secret nor Warden's own data, does
// not reach a host loopback service directly, and reaches the network only
// through Warden's proxy, decided per host by the gate for the call in
// flight: headless, an unlisted host is refused with a message naming it;
// a listed one is reached, and its connection event names the MCP call.
// Uncaged (sandbox = "none"), the same server reads and reaches all of it.
func TestCagedServerReachesNothingOutside(t *testing.T) {
	w := newCageWorld(t)
	allowed := fmt.Sprintf("registry.test:%d", w.port)
	cases := []struct {
		name, sandbox, tool, args string
		allow                     []string
		networkOff                bool // the session's network switch is off
		want, notWant             []string
		reached                   int64
		conn                      string // the connection event: allowed:<by> or refused:<reason>
	}{
		{name: "caged reads the workspace", tool: "read-file", args: `{"path":"` + filepath.Join(w.ws, "note.txt") + `"}`,
			want: []string{"content: inside the workspace"}},
		{name: "caged cannot read a hidden secret outside the workspace", tool: "read-file", args: `{"path":"` + w.secretFile + `"}`,
			want: []string{"read failed", "permission denied"}, notWant: []string{secretText}},
		{name: "caged cannot read Warden's own data", tool: "read-file", args: `{"path":"` + w.wardenFile + `"}`,
			want: []string{"read failed"}, notWant: []string{wardenText}},
		{name: "caged does not reach a host loopback listener", tool: "fetch", args: fmt.Sprintf(`{"url":"http://127.0.0.1:%d/"}`, w.port),
			want: []string{"fetch failed", "connection refused"}, notWant: []string{reachedMsg}},
		{name: "caged, an unlisted host is refused headless, naming it", tool: "fetch", args: fmt.Sprintf(`{"url":"http://other.test:%d/"}`, w.port),
			want:    []string{"status 403", "other.test", "network: other.test:" + fmt.Sprint(w.port) + " refused (no-approver)", "--allow-host other.test"},
			notWant: []string{reachedMsg}, conn: "refused:no-approver"},
		{name: "caged, a listed host is reached through the proxy", tool: "fetch", args: fmt.Sprintf(`{"url":"http://%s/"}`, allowed), allow: []string{allowed},
			want: []string{"status 200: " + reachedMsg}, reached: 1, conn: "allowed:network-allow:" + allowed},
		{name: "caged, with the session's network off even a listed host is refused", tool: "fetch", args: fmt.Sprintf(`{"url":"http://%s/"}`, allowed),
			allow: []string{allowed}, networkOff: true,
			want: []string{"status 403", "network access is off"}, notWant: []string{reachedMsg}, conn: "refused:sandbox-rejected"},
		{name: "uncaged reads the secret as before", sandbox: SandboxNone, tool: "read-file", args: `{"path":"` + w.secretFile + `"}`,
			want: []string{"content: " + secretText}},
		{name: "uncaged reaches the host loopback listener as before", sandbox: SandboxNone, tool: "fetch", args: fmt.Sprintf(`{"url":"http://127.0.0.1:%d/"}`, w.port),
			want: []string{"status 200: " + reachedMsg}, reached: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w.accepted.Store(0)
			m := w.manager(t, w.probeServer(t, "probe", tc.sandbox))
			g, j := w.gateWith(t, nil, !tc.networkOff, tc.allow...)
			got := w.call(t, g, m, "mcp-tool:probe/"+tc.tool, tc.args)
			for _, s := range tc.want {
				if !strings.Contains(strings.ToLower(got), strings.ToLower(s)) {
					t.Errorf("result lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tc.notWant {
				if strings.Contains(got, s) {
					t.Errorf("result holds %q:\n%s", s, got)
				}
			}
			if n := w.accepted.Load(); n != tc.reached {
				t.Errorf("the host service saw %d connections, want %d", n, tc.reached)
			}
			if tc.conn != "" {
				// The proxy records a connection when it closes.
				waitFor(t, "the connection event", func() bool { c, _ := j.snapshot(); return len(c) > 0 })
			}
			conns, _ := j.snapshot()
			var seen []string
			for _, c := range conns {
				if c.CallID != "call-"+tc.tool {
					t.Errorf("connection event of call %q, want the MCP call", c.CallID)
				}
				if c.Allowed {
					seen = append(seen, "allowed:"+c.AllowedBy)
				} else {
					seen = append(seen, "refused:"+c.Reason)
				}
			}
			if want := tc.conn; (want == "" && len(seen) > 0) || (want != "" && (len(seen) != 1 || seen[0] != want)) {
				t.Errorf("connection events %v, want %q", seen, want)
			}
			st := m.Status(context.Background())[0]
			wantMode := SandboxCage
			if tc.sandbox == SandboxNone {
				wantMode = SandboxNone
			}
			if st.Sandbox != wantMode {
				t.Errorf("status sandbox %q (%s), want %q", st.Sandbox, st.SandboxWhy, wantMode)
			}
		})
	}
}

// TestCagedServerAskNamesServer: under On request with a human, the ask for
// a caged server's destination names the host and the MCP tool's call.
func TestCagedServerAskNamesServer(t *testing.T) {
	w := newCageWorld(t)
	m := w.manager(t, w.probeServer(t, "probe", SandboxCage))
	ap := &recordingApprover{}
	g, _ := w.gateWith(t, ap, true)
	got := w.call(t, g, m, "mcp-tool:probe/fetch", fmt.Sprintf(`{"url":"http://registry.test:%d/"}`, w.port))
	if !strings.Contains(got, "status 200: "+reachedMsg) || w.accepted.Load() != 1 {
		t.Fatalf("approved once, the host was not reached (%d connections):\n%s", w.accepted.Load(), got)
	}
	// Asked about the name before it is resolved, then about the loopback
	// address it resolved to (a private address needs its own answer).
	reqs := ap.requests()
	if len(reqs) != 2 {
		t.Fatalf("asked %d times, want twice (the name, then its address)", len(reqs))
	}
	sig := fmt.Sprintf("net:registry.test:%d", w.port)
	for _, r := range reqs {
		if r.Signature != sig || !strings.Contains(r.Preview, "registry.test") || !strings.Contains(r.Preview, "mcp-tool:probe/fetch") {
			t.Fatalf("the ask does not name the host and the MCP server: %+v", r)
		}
	}
	if !strings.Contains(reqs[1].Preview, "127.0.0.1") {
		t.Fatalf("the second ask does not name the address: %s", reqs[1].Preview)
	}
}

type recordingApprover struct {
	mu   sync.Mutex
	seen []gate.ApprovalRequest
}

func (a *recordingApprover) Approve(_ context.Context, r gate.ApprovalRequest) (gate.Approval, error) {
	a.mu.Lock()
	a.seen = append(a.seen, r)
	a.mu.Unlock()
	return gate.Approval{Approved: true}, nil
}

func (a *recordingApprover) requests() []gate.ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]gate.ApprovalRequest(nil), a.seen...)
}

// TestReferenceServersInTheCage: the npm reference servers work caged by
// default; the filesystem server writes the workspace from the cage.
func TestReferenceServersInTheCage(t *testing.T) {
	w := newCageWorld(t)
	m := w.manager(t,
		ServerConfig{Name: "everything", Command: npmBin(t, "mcp-server-everything"), Args: []string{"stdio"}, Source: "test"},
		ServerConfig{Name: "fs", Command: npmBin(t, "mcp-server-filesystem"), Args: []string{w.ws}, Source: "test"})
	g, _ := w.gate(t)
	if got := w.call(t, g, m, "mcp-tool:everything/echo", `{"message":"hello from the cage"}`); !strings.Contains(got, "hello from the cage") {
		t.Fatalf("echo: %s", got)
	}
	if got := w.call(t, g, m, "mcp-tool:fs/read_text_file", `{"path":"`+filepath.Join(w.ws, "note.txt")+`"}`); !strings.Contains(got, "inside the workspace") {
		t.Fatalf("read_text_file: %s", got)
	}
	out := filepath.Join(w.ws, "written.txt")
	w.call(t, g, m, "mcp-tool:fs/write_file", `{"path":"`+out+`","content":"made in the cage"}`)
	if data, err := os.ReadFile(out); err != nil || string(data) != "made in the cage" {
		t.Fatalf("the caged filesystem server did not write the workspace: %q %v", data, err)
	}
	for _, st := range m.Status(context.Background()) {
		if st.Sandbox != SandboxCage || st.SandboxWhy != "the default for stdio servers" {
			t.Errorf("%s: sandbox %q (%s), want the default cage", st.Name, st.Sandbox, st.SandboxWhy)
		}
	}
}

// TestSandboxMode: how each setting runs with no cage, a cage that does not
// work and one that does.
func TestSandboxMode(t *testing.T) {
	broken := sandbox.New(sandbox.Config{Bwrap: "/nonexistent/bwrap"})
	broken.Detect(context.Background())
	working := sandbox.New(sandbox.Config{})
	if st := working.Detect(context.Background()); !st.Available {
		t.Fatalf("the cage must work on this machine: %s", st.Reason)
	}
	t.Cleanup(func() { _ = working.Close(); _ = broken.Close() })
	stdio := func(s string) ServerConfig { return ServerConfig{Name: "s", Command: "x", Sandbox: s} }
	cases := []struct {
		name    string
		cfg     ServerConfig
		cage    *sandbox.Cage
		caged   bool
		why     string // substring; "" with err set
		wantErr string
	}{
		{"default, working cage", stdio(""), working, true, "the default", ""},
		{"cage, working cage", stdio(SandboxCage), working, true, `sandbox = "cage"`, ""},
		{"none, working cage", stdio(SandboxNone), working, false, `sandbox = "none"`, ""},
		{"default, broken cage runs unconfined", stdio(""), broken, false, "the cage is unavailable", ""},
		{"cage insisted, broken cage refuses to start", stdio(SandboxCage), broken, false, "", "the cage is unavailable"},
		{"default, no cage", stdio(""), nil, false, "no cage", ""},
		{"cage insisted, no cage", stdio(SandboxCage), nil, false, "", "without a cage"},
		{"http server", ServerConfig{Name: "h", URL: "http://127.0.0.1:1/mcp"}, working, false, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			caged, why, err := sandboxMode(tc.cfg, tc.cage)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || caged != tc.caged || !strings.Contains(why, tc.why) {
				t.Fatalf("caged %v why %q err %v; want %v %q", caged, why, err, tc.caged, tc.why)
			}
		})
	}
}

// TestRouteWithoutACall: a caged server's connection made while none of
// its calls runs is refused and written to its log; during a call the
// call's egress decides, and the oldest call in flight wins.
func TestRouteWithoutACall(t *testing.T) {
	log := filepath.Join(t.TempDir(), "s.log")
	r := newCallRoute("s", log)
	dest := policy.Destination{Host: "example.test", Port: 443}
	if v := r.Decide(context.Background(), dest); v.Allow || v.Reason != ReasonNoCall || !strings.Contains(v.Detail, "example.test:443") {
		t.Fatalf("verdict without a call: %+v", v)
	}
	if data, _ := os.ReadFile(log); !strings.Contains(string(data), "example.test:443 refused") {
		t.Fatalf("the log lacks the refusal: %q", data)
	}
	decider := func(by string) *sandbox.Egress {
		return &sandbox.Egress{Decider: netproxy.DeciderFunc(func(context.Context, policy.Destination) netproxy.Verdict {
			return netproxy.Verdict{Allow: true, By: by}
		})}
	}
	leaveA := r.enter(decider("a"))
	leaveB := r.enter(decider("b"))
	if v := r.Decide(context.Background(), dest); v.By != "a" {
		t.Fatalf("decided by %q, want the oldest call a", v.By)
	}
	leaveA()
	if v := r.Decide(context.Background(), dest); v.By != "b" {
		t.Fatalf("decided by %q, want b", v.By)
	}
	leaveB()
	if v := r.Decide(context.Background(), dest); v.Allow {
		t.Fatal("allowed after every call ended")
	}
}
