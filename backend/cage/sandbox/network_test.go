package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/netproxy"
	"github.com/warden-dev/warden/backend/policy"
)

// hostListener is a real HTTP server on the host's loopback that counts the
// connections it accepted: the outside world the tests assert on.
type hostListener struct {
	port     int
	accepted atomic.Int64
}

func newHostListener(t *testing.T, ip string) *hostListener {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hostListener{port: ln.Addr().(*net.TCPAddr).Port}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("host-secret-service"))
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			h.accepted.Add(1)
		}
	}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return h
}

// policyEgress decides like the gate does on a session with approval never:
// the real engine's chain plus the [network] lists, names resolved by a
// table (test names all point at the host's loopback).
func policyEgress(t *testing.T, allow []string, names map[string]string) (*Egress, func() []netproxy.Conn) {
	t.Helper()
	rules, err := policy.ParseHostRules(allow, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := policy.New(policy.Config{})
	s := policy.Session{Workspace: "/w", Approval: policy.Never, Caged: true,
		Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}}
	var mu sync.Mutex
	var conns []netproxy.Conn
	eg := &Egress{
		Decider: netproxy.DeciderFunc(func(_ context.Context, d policy.Destination) netproxy.Verdict {
			dec := rules.Apply(d, e.Decide(policy.NetworkCall(d), s))
			return netproxy.Verdict{Allow: dec.Verdict == policy.VerdictAllow, By: dec.Source, Reason: string(dec.Reason), Detail: dec.Detail, Remedy: dec.Remedy}
		}),
		Observe: func(c netproxy.Conn) {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		},
		Resolver: func(_ context.Context, host string) ([]netip.Addr, error) {
			if a, ok := names[host]; ok {
				return []netip.Addr{netip.MustParseAddr(a)}, nil
			}
			return nil, errors.New("no such host")
		},
	}
	return eg, func() []netproxy.Conn {
		mu.Lock()
		defer mu.Unlock()
		return append([]netproxy.Conn(nil), conns...)
	}
}

func runEgress(t *testing.T, c *Cage, pol policy.SandboxPolicy, eg *Egress, script string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws := t.TempDir()
	p, err := c.Prepare(ctx, Spec{Workspace: ws, Policy: pol, Args: []string{"bash", "-c", script}, Egress: eg})
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	var out bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &out, &out
	err = p.Cmd.Run()
	p.Finish()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out.String(), code
}

func TestCageNetworkReachesOnlyWhatIsAllowed(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("these tests drive curl inside the cage; install curl")
	}
	c := newCage(t, Config{})
	on := policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}
	off := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	lo := newHostListener(t, "127.0.0.1")
	names := map[string]string{"registry.test": "127.0.0.1", "sneaky.test": "127.0.0.1"}
	curl := "curl -sS --max-time 10 "
	for _, tc := range []struct {
		name    string
		pol     policy.SandboxPolicy
		allow   []string
		script  string
		reached bool
		out     string // the output contains this
	}{
		{name: "network off: direct connect to host loopback", pol: off,
			script: fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", lo.port)},
		{name: "network off: no proxy is set", pol: off, script: "env | grep -i '^[a-z_]*_proxy=' || echo no-proxy-vars", out: "no-proxy-vars"},
		{name: "network on: direct connect to host loopback", pol: on,
			script: fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", lo.port)},
		{name: "network on: curl to host loopback stays in the cage", pol: on, script: curl + fmt.Sprintf("http://127.0.0.1:%d/", lo.port)},
		{name: "network on: forced through the proxy, loopback refused", pol: on,
			script: curl + fmt.Sprintf("--noproxy '' http://127.0.0.1:%d/", lo.port), out: "private-address"},
		{name: "network on: a name resolving to loopback is refused", pol: on,
			script: curl + fmt.Sprintf("http://sneaky.test:%d/", lo.port), out: "--allow-host sneaky.test:"},
		{name: "network on: a wildcard does not list loopback", pol: on, allow: []string{"*.test"},
			script: curl + fmt.Sprintf("http://registry.test:%d/", lo.port), out: "private-address"},
		{name: "network on: https tunnel to a refused name", pol: on,
			script: curl + fmt.Sprintf("https://sneaky.test:%d/ ; echo rc=$?", lo.port), out: "rc=56"},
		{name: "allowed by name through the http proxy", pol: on, allow: []string{fmt.Sprintf("registry.test:%d", lo.port)},
			script: curl + fmt.Sprintf("http://registry.test:%d/", lo.port), reached: true, out: "host-secret-service"},
		{name: "allowed by name through socks5", pol: on, allow: []string{fmt.Sprintf("registry.test:%d", lo.port)},
			script: curl + fmt.Sprintf("--socks5-hostname 127.0.0.1:3128 http://registry.test:%d/", lo.port), reached: true, out: "host-secret-service"},
		{name: "allowed ip literal when forced through the proxy", pol: on, allow: []string{fmt.Sprintf("127.0.0.1:%d", lo.port)},
			script: curl + fmt.Sprintf("--noproxy '' http://127.0.0.1:%d/", lo.port), reached: true, out: "host-secret-service"},
		{name: "a program ignoring the proxy variables gets nothing", pol: on, allow: []string{fmt.Sprintf("registry.test:%d", lo.port)},
			script: curl + fmt.Sprintf("--noproxy '*' http://registry.test:%d/", lo.port), out: "resolve"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo.accepted.Store(0)
			eg, _ := policyEgress(t, tc.allow, names)
			out, code := runEgress(t, c, tc.pol, eg, tc.script)
			got := lo.accepted.Load()
			if tc.reached && (got != 1 || code != 0) {
				t.Fatalf("the host listener saw %d connections (exit %d), want 1:\n%s", got, code, out)
			}
			if !tc.reached && got != 0 {
				t.Fatalf("the host listener saw %d connections, want none:\n%s", got, out)
			}
			if !strings.Contains(out, tc.out) {
				t.Fatalf("output lacks %q:\n%s", tc.out, out)
			}
			if !tc.reached && strings.Contains(out, "host-secret-service") {
				t.Fatalf("the service answered:\n%s", out)
			}
		})
	}
}

func TestCageNetworkEvents(t *testing.T) {
	c := newCage(t, Config{})
	lo := newHostListener(t, "127.0.0.1")
	eg, conns := policyEgress(t, []string{fmt.Sprintf("registry.test:%d", lo.port)}, map[string]string{"registry.test": "127.0.0.1", "sneaky.test": "127.0.0.1"})
	out, code := runEgress(t, c, policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}, eg,
		fmt.Sprintf("curl -sS http://registry.test:%[1]d/a; curl -sS http://sneaky.test:%[1]d/b", lo.port))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	evs := conns()
	if len(evs) != 2 {
		t.Fatalf("events %+v", evs)
	}
	ok, refused := evs[0], evs[1]
	if !ok.Allowed || ok.Host != "registry.test" || ok.Port != lo.port || ok.BytesDown == 0 || !strings.HasPrefix(ok.By, policy.SourceNetworkAllow) {
		t.Fatalf("allowed event %+v", ok)
	}
	if refused.Allowed || refused.Host != "sneaky.test" || refused.Reason != string(policy.ReasonPrivateAddress) || refused.BytesDown != 0 {
		t.Fatalf("refused event %+v", refused)
	}
}

func TestCageHostAbstractSocketUnreachable(t *testing.T) {
	if _, err := exec.LookPath("socat"); err != nil {
		t.Fatal("this test uses socat inside the cage; install socat")
	}
	c := newCage(t, Config{})
	name := fmt.Sprintf("warden-test-%d", syscall.Getpid())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_, _ = conn.Write([]byte("abstract-secret\n"))
			conn.Close()
		}
	}()
	// The listener works from the host.
	if out, err := exec.Command("socat", "-u", "ABSTRACT-CONNECT:"+name, "-").CombinedOutput(); err != nil || !strings.Contains(string(out), "abstract-secret") {
		t.Fatalf("host-side control failed: %v %s", err, out)
	}
	accepted.Store(0)
	for _, pol := range []policy.SandboxPolicy{{Kind: policy.WorkspaceWrite}, {Kind: policy.WorkspaceWrite, NetworkAccess: true}, {Kind: policy.ReadOnly}} {
		eg, _ := policyEgress(t, []string{"*"}, nil)
		out, _ := runEgress(t, c, pol, eg, "socat -u ABSTRACT-CONNECT:"+name+" - ; echo done")
		if strings.Contains(out, "abstract-secret") || accepted.Load() != 0 {
			t.Fatalf("%+v: the host's abstract socket answered (%d accepts):\n%s", pol, accepted.Load(), out)
		}
	}
}

func TestCageForwarderKeepsExitStatus(t *testing.T) {
	c := newCage(t, Config{})
	on := policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}
	eg, _ := policyEgress(t, nil, nil)
	for _, tc := range []struct {
		name   string
		script string
		code   int
	}{
		{"exit code", "exit 7", 7},
		{"success", "true", 0},
		{"killed by a signal", "kill -TERM $$", 128 + int(syscall.SIGTERM)},
		{"stdout passes", "echo through", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := runEgress(t, c, on, eg, tc.script)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, out)
			}
			if tc.name == "stdout passes" && out != "through\n" {
				t.Fatalf("%q", out)
			}
		})
	}
}

// A dev server listening inside the cage is reached from the host only
// through the port the caller exposed; the host port ends with the command.
func TestCageExposedPort(t *testing.T) {
	c := newCage(t, Config{})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "index.html"), []byte("caged-dev-server"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pol := range []policy.SandboxPolicy{{Kind: policy.WorkspaceWrite}, {Kind: policy.WorkspaceWrite, NetworkAccess: true}} {
		t.Run(fmt.Sprintf("network %v", pol.NetworkAccess), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			eg, _ := policyEgress(t, nil, nil)
			p, err := c.Prepare(ctx, Spec{Workspace: ws, Policy: pol, Egress: eg, Expose: []int{5173},
				Args: []string{"bash", "-c", "python3 -m http.server 5173 --bind 127.0.0.1 & python3 -m http.server 5174 --bind 127.0.0.1 & wait"}})
			if err != nil {
				t.Fatal(err)
			}
			ex := p.Exposed()
			if len(ex) != 1 || ex[0].CagePort != 5173 || !strings.HasPrefix(ex[0].HostAddr, "127.0.0.1:") {
				t.Fatalf("exposed %+v", ex)
			}
			var out bytes.Buffer
			p.Cmd.Stdout, p.Cmd.Stderr = &out, &out
			if err := p.Cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { _ = p.Cmd.Wait(); close(done) }()
			client := &http.Client{Timeout: 5 * time.Second}
			var body string
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				resp, err := client.Get(ex[0].URL + "index.html")
				if err != nil {
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					body = string(b)
					break
				}
			}
			if body != "caged-dev-server" {
				t.Fatalf("the exposed port did not serve the cage's server: %q\n%s", body, out.String())
			}
			// The other port of the cage has no way out, and the host's
			// own 5174 is not the cage's.
			if resp, err := client.Get("http://127.0.0.1:5174/index.html"); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if strings.Contains(string(b), "caged-dev-server") {
					t.Fatal("an unexposed cage port reached the host")
				}
			}
			cancel()
			<-done
			p.Finish()
			time.Sleep(100 * time.Millisecond)
			if conn, err := net.DialTimeout("tcp", ex[0].HostAddr, time.Second); err == nil {
				conn.Close()
				t.Fatal("the host port outlived the command")
			}
		})
	}
}

// An exactly listed host-loopback address leaves NO_PROXY: a plain
// `curl http://127.0.0.1:P/` then goes to the host's service through the
// proxy, while localhost stays the cage's own.
func TestCageHostLoopbackListed(t *testing.T) {
	c := newCage(t, Config{})
	lo := newHostListener(t, "127.0.0.1")
	dest := fmt.Sprintf("127.0.0.1:%d", lo.port)
	eg, _ := policyEgress(t, []string{dest}, nil)
	eg.HostLoopback = []string{"127.0.0.1"}
	out, code := runEgress(t, c, policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}, eg,
		"echo no_proxy=$no_proxy; curl -sS --max-time 10 http://"+dest+"/")
	if code != 0 || lo.accepted.Load() != 1 || !strings.Contains(out, "host-secret-service") {
		t.Fatalf("exit %d, %d connections:\n%s", code, lo.accepted.Load(), out)
	}
	if !strings.Contains(out, "no_proxy=localhost,::1\n") {
		t.Fatalf("NO_PROXY still keeps 127.0.0.1:\n%s", out)
	}
}

// Proxied is the fact the engine stands on when it does not ask for a caged
// command as a whole: only bwrap's own network namespace with network
// admitted sends every connection through the proxy.
func TestCageProxied(t *testing.T) {
	bw := newCage(t, Config{})
	ct := newCage(t, Config{Mode: ModeContainer})
	on := policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}
	for _, tc := range []struct {
		name string
		c    *Cage
		pol  policy.SandboxPolicy
		want bool
	}{
		{"bwrap, workspace-write with network", bw, on, true},
		{"bwrap, network off", bw, policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, false},
		{"bwrap, read-only", bw, policy.SandboxPolicy{Kind: policy.ReadOnly, NetworkAccess: true}, false},
		{"bwrap, danger-full-access is not caged", bw, policy.SandboxPolicy{Kind: policy.DangerFullAccess, NetworkAccess: true}, false},
		{"an outer container shares its network", ct, on, false},
		{"no cage on this machine", New(Config{Bwrap: "/nonexistent/bwrap"}), on, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Proxied(tc.pol); got != tc.want {
				t.Fatalf("Proxied = %v, want %v", got, tc.want)
			}
		})
	}
}

// A dev server whose port nobody named: the forwarder sees the cage's new
// listening socket and the host gets a loopback port for it, reported to
// OnExpose. Only that port, only on the host's loopback.
func TestCageDetectedPort(t *testing.T) {
	c := newCage(t, Config{})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "index.html"), []byte("caged-dev-server"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	found := make(chan Exposed, 4)
	p, err := c.Prepare(ctx, Spec{Workspace: ws, Policy: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, DetectPorts: true,
		OnExpose: func(e Exposed) { found <- e },
		Args:     []string{"bash", "-c", "sleep 0.5; exec python3 -m http.server 5181 --bind 127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if ex := p.Exposed(); len(ex) != 0 {
		t.Fatalf("exposed before anything listens: %+v", ex)
	}
	var out bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &out, &out
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = p.Cmd.Wait(); close(done) }()
	var e Exposed
	select {
	case e = <-found:
	case <-time.After(30 * time.Second):
		t.Fatalf("the listening port was not detected:\n%s", out.String())
	}
	if e.CagePort != 5181 || !strings.HasPrefix(e.HostAddr, "127.0.0.1:") || e.URL != "http://"+e.HostAddr+"/" {
		t.Fatalf("exposed %+v", e)
	}
	if ex := p.Exposed(); len(ex) != 1 || ex[0] != e {
		t.Fatalf("Prepared.Exposed %+v", ex)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(e.URL + "index.html")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "caged-dev-server" {
		t.Fatalf("the detected port did not serve the cage's server: %q", b)
	}
	// The host's own port of that number is not the cage's, and the host
	// port is not reachable on any other address of the host.
	if resp, err := client.Get("http://127.0.0.1:5181/index.html"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "caged-dev-server") {
			t.Fatal("the cage's port is the host's")
		}
	}
	_, hostPort, _ := net.SplitHostPort(e.HostAddr)
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ip, _, _ := net.ParseCIDR(a.String())
		if ip == nil || ip.IsLoopback() {
			continue
		}
		if conn, err := net.DialTimeout("tcp", net.JoinHostPort(ip.String(), hostPort), time.Second); err == nil {
			conn.Close()
			t.Fatalf("the exposed port answers on %s", ip)
		}
	}
	select {
	case more := <-found:
		t.Fatalf("a second port was reported: %+v", more)
	default:
	}
	cancel()
	<-done
	p.Finish()
	time.Sleep(100 * time.Millisecond)
	if conn, err := net.DialTimeout("tcp", e.HostAddr, time.Second); err == nil {
		conn.Close()
		t.Fatal("the host port outlived the command")
	}
}
