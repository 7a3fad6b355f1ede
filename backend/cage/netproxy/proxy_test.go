package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// upstream is a real loopback HTTP server that counts the connections it
// accepted: the outside world the assertions look at.
type upstream struct {
	addr     string
	port     int
	accepted atomic.Int64
}

func newUpstream(t *testing.T, body []byte) *upstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{addr: ln.Addr().String(), port: ln.Addr().(*net.TCPAddr).Port}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Path", r.URL.Path)
		_, _ = w.Write(body)
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			u.accepted.Add(1)
		}
	}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return u
}

type events struct {
	mu sync.Mutex
	l  []Conn
}

func (e *events) add(c Conn) {
	e.mu.Lock()
	e.l = append(e.l, c)
	e.mu.Unlock()
}

func (e *events) all() []Conn {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Conn(nil), e.l...)
}

// startProxy serves a proxy on loopback TCP; allow decides by host:port.
func startProxy(t *testing.T, allow func(policy.Destination) bool, resolve map[string]string) (string, *events) {
	t.Helper()
	evs := &events{}
	p, err := New(Config{
		Decider: DeciderFunc(func(_ context.Context, d policy.Destination) Verdict {
			if allow(d) {
				return Verdict{Allow: true, By: "test-rule"}
			}
			return Verdict{Reason: "test-refusal", Detail: d.String() + " is not on the test's list"}
		}),
		Observe: evs.add,
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if a, ok := resolve[host]; ok {
				return []netip.Addr{netip.MustParseAddr(a)}, nil
			}
			return nil, errors.New("no such host")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String(), evs
}

func proxyClient(proxy string) *http.Client {
	u, _ := url.Parse("http://" + proxy)
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}, Timeout: 10 * time.Second}
}

func TestPlainHTTP(t *testing.T) {
	up := newUpstream(t, []byte("hello from upstream"))
	for _, tc := range []struct {
		name     string
		host     string
		allow    bool
		status   int
		body     string
		accepted int64
	}{
		{name: "allowed by ip", host: up.addr, allow: true, status: 200, body: "hello from upstream", accepted: 1},
		{name: "allowed by name", host: fmt.Sprintf("registry.test:%d", up.port), allow: true, status: 200, body: "hello from upstream", accepted: 1},
		{name: "refused names host and remedy", host: fmt.Sprintf("registry.test:%d", up.port), allow: false, status: 403,
			body: fmt.Sprintf("connection to registry.test:%d refused (test-refusal)", up.port), accepted: 0},
		{name: "unresolvable", host: "nowhere.test:80", allow: true, status: 502, body: "cannot resolve nowhere.test", accepted: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up.accepted.Store(0)
			proxy, evs := startProxy(t, func(policy.Destination) bool { return tc.allow }, map[string]string{"registry.test": "127.0.0.1"})
			resp, err := proxyClient(proxy).Get("http://" + tc.host + "/pkg")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.body) {
				t.Fatalf("status %d body %q, want %d containing %q", resp.StatusCode, b, tc.status, tc.body)
			}
			if tc.status == 403 && !strings.Contains(string(b), "--allow-host") {
				t.Fatalf("the refusal says how to allow it: %q", b)
			}
			if got := up.accepted.Load(); got != tc.accepted {
				t.Fatalf("upstream accepted %d connections, want %d", got, tc.accepted)
			}
			waitEvents(t, evs, 1)
			ev := evs.all()[0]
			// An unresolvable name was allowed (decided before any lookup)
			// and then failed: admitted, with the resolver's error.
			if ev.Allowed != tc.allow || ev.Proto != "http" || tc.status == 502 && !strings.HasPrefix(ev.Error, "resolve:") {
				t.Fatalf("event %+v", ev)
			}
			if tc.status == 200 && (ev.BytesDown < int64(len(tc.body)) || ev.BytesUp == 0 || ev.By != "test-rule") {
				t.Fatalf("event counts bytes and names the rule: %+v", ev)
			}
		})
	}
}

func waitEvents(t *testing.T, e *events, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(e.all()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d events, want %d", len(e.all()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// connectThrough opens a CONNECT tunnel and sends one HTTP request in it.
func connectThrough(t *testing.T, proxy, target string) (status int, body string) {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	fmt.Fprintf(c, "GET /tunnel HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	r2, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r2.Body)
	return 200, string(b)
}

func TestConnect(t *testing.T) {
	up := newUpstream(t, []byte("tunnelled"))
	t.Run("allowed", func(t *testing.T) {
		proxy, evs := startProxy(t, func(policy.Destination) bool { return true }, nil)
		st, body := connectThrough(t, proxy, up.addr)
		if st != 200 || body != "tunnelled" {
			t.Fatalf("%d %q", st, body)
		}
		waitEvents(t, evs, 1)
		if ev := evs.all()[0]; !ev.Allowed || ev.Proto != "connect" || ev.BytesDown < int64(len("tunnelled")) || ev.Addr != up.addr {
			t.Fatalf("event %+v", ev)
		}
	})
	t.Run("refused never connects", func(t *testing.T) {
		up.accepted.Store(0)
		proxy, evs := startProxy(t, func(policy.Destination) bool { return false }, nil)
		st, body := connectThrough(t, proxy, up.addr)
		if st != 403 || !strings.Contains(body, up.addr) {
			t.Fatalf("%d %q", st, body)
		}
		if n := up.accepted.Load(); n != 0 {
			t.Fatalf("upstream saw %d connections", n)
		}
		waitEvents(t, evs, 1)
		if ev := evs.all()[0]; ev.Allowed || ev.Reason != "test-refusal" {
			t.Fatalf("event %+v", ev)
		}
	})
	t.Run("decides only what it was asked", func(t *testing.T) {
		var seen []string
		var mu sync.Mutex
		proxy, _ := startProxy(t, func(d policy.Destination) bool {
			mu.Lock()
			seen = append(seen, d.String())
			mu.Unlock()
			return true
		}, map[string]string{"Registry.Test.": "127.0.0.1", "registry.test": "127.0.0.1"})
		st, _ := connectThrough(t, proxy, fmt.Sprintf("Registry.Test.:%d", up.port))
		// The canonical name, twice: before the lookup and with its addresses.
		want := fmt.Sprintf("registry.test:%d", up.port)
		if st != 200 || len(seen) != 2 || seen[0] != want || seen[1] != want {
			t.Fatalf("status %d, decided on %v", st, seen)
		}
	})
}

func TestSocks5(t *testing.T) {
	up := newUpstream(t, []byte("via socks"))
	for _, tc := range []struct {
		name  string
		allow bool
		reply byte
	}{
		{"allowed", true, socksOK},
		{"refused", false, socksNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up.accepted.Store(0)
			proxy, _ := startProxy(t, func(policy.Destination) bool { return tc.allow }, map[string]string{"registry.test": "127.0.0.1"})
			c, err := net.Dial("tcp", proxy)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			name := "registry.test"
			msg := []byte{5, 1, 0, 5, 1, 0, 3, byte(len(name))}
			msg = append(msg, name...)
			msg = append(msg, byte(up.port>>8), byte(up.port))
			if _, err := c.Write(msg); err != nil {
				t.Fatal(err)
			}
			var rep [12]byte
			if _, err := io.ReadFull(c, rep[:]); err != nil {
				t.Fatal(err)
			}
			if rep[0] != 5 || rep[1] != 0 || rep[3] != tc.reply {
				t.Fatalf("reply % x, want code %d", rep, tc.reply)
			}
			if !tc.allow {
				if n := up.accepted.Load(); n != 0 {
					t.Fatalf("upstream saw %d connections", n)
				}
				return
			}
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: registry.test\r\nConnection: close\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			if string(b) != "via socks" {
				t.Fatalf("%q", b)
			}
		})
	}
}

// A decision that never comes ends with the proxy; the client is not left
// hanging on a half-open tunnel.
func TestBlockedDecisionEndsWithServe(t *testing.T) {
	p, err := New(Config{Decider: DeciderFunc(func(ctx context.Context, _ policy.Destination) Verdict {
		<-ctx.Done()
		return Verdict{Reason: "no-approver", Detail: "nobody answered"}
	})})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT 10.9.9.9:443 HTTP/1.1\r\nHost: 10.9.9.9:443\r\n\r\n")
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("the client connection was not closed: %v", err)
	}
}

// FuzzHandle feeds arbitrary client bytes to the proxy: it must never
// panic, and with a refusing decider it never dials anything.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		"CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n",
		"GET http://a.test/x HTTP/1.1\r\nHost: a.test\r\n\r\n",
		"GET /relative HTTP/1.1\r\n\r\n",
		"\x05\x01\x00\x05\x01\x00\x03\x06a.test\x01\xbb",
		"\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x50",
		"\x05\x02\x01\x02",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var decided atomic.Int64
		p, err := New(Config{
			Decider: DeciderFunc(func(context.Context, policy.Destination) Verdict {
				decided.Add(1)
				return Verdict{Reason: "fuzz"}
			}),
			Resolve: func(context.Context, string) ([]netip.Addr, error) {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			},
			DialTimeout: 10 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		p.handle(context.Background(), &bytesConn{r: bytes.NewReader(in)})
		if decided.Load() > 1 {
			t.Fatalf("one client connection asked %d decisions", decided.Load())
		}
	})
}

// bytesConn is a client that sends fixed bytes, then EOF, and swallows
// what it is sent.
type bytesConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *bytesConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *bytesConn) Write(b []byte) (int, error) { return len(b), nil }
func (c *bytesConn) Close() error                { return nil }
