package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/netproxy/dnstest"
	"github.com/warden-dev/warden/backend/policy"
)

type dnsCase struct {
	name, proto, host, onName, onAddrs string
	query, reached                     bool
}

func dnsCases(t *testing.T) []dnsCase {
	t.Helper()
	data, err := os.ReadFile("testdata/dns_decisions.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []dnsCase
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			t.Fatalf("testdata/dns_decisions.txt:%d: want 7 fields, got %d", n+1, len(f))
		}
		out = append(out, dnsCase{name: f[0], proto: f[1], host: f[2], onName: f[3], onAddrs: f[4],
			query: f[5] == "query", reached: f[6] == "reached"})
	}
	return out
}

// throughProxy makes one request to host:port through the proxy in the
// given protocol and reports whether it got the upstream's body.
func throughProxy(t *testing.T, proxy, proto, host string, port int) bool {
	t.Helper()
	target := net.JoinHostPort(strings.TrimSuffix(host, "."), fmt.Sprint(port))
	if strings.HasSuffix(host, ".") {
		target = host + ":" + fmt.Sprint(port)
	}
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	br := bufio.NewReader(c)
	switch proto {
	case "http":
		fmt.Fprintf(c, "GET http://%s/x HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, target)
	case "connect":
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil || resp.StatusCode != 200 {
			return false
		}
		fmt.Fprintf(c, "GET /x HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	case "socks5h":
		msg := []byte{5, 1, 0, 5, 1, 0, 3, byte(len(host))}
		msg = append(msg, host...)
		msg = append(msg, byte(port>>8), byte(port))
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		var rep [12]byte
		if _, err := io.ReadFull(br, rep[:]); err != nil || rep[3] != socksOK {
			return false
		}
		fmt.Fprintf(c, "GET /x HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host)
	default:
		t.Fatalf("unknown protocol %q", proto)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return false
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode == 200 && string(b) == "upstream body"
}

// A denied or unanswered name never reaches a resolver: a real DNS server
// on loopback, the proxy's only resolver, sees no query for it through
// plain HTTP, CONNECT or SOCKS5 with a name; an allowed name is looked up
// (the listener works) and only then are its addresses checked.
func TestDecideBeforeResolve(t *testing.T) {
	up := newUpstream(t, []byte("upstream body"))
	for _, c := range dnsCases(t) {
		t.Run(c.name, func(t *testing.T) {
			up.accepted.Store(0)
			dns := dnstest.Start(t, map[string]string{
				"denied.example": "127.0.0.1", "pending.example": "127.0.0.1", "allowed.example": "127.0.0.1",
				"c2VjcmV0LWtleQ.exfil.example": "127.0.0.1",
			})
			var decided []string
			p, err := New(Config{Resolve: dns.Resolve, Decider: DeciderFunc(func(ctx context.Context, d policy.Destination) Verdict {
				decided = append(decided, fmt.Sprintf("%s %d", d, len(d.Addrs)))
				if len(d.Addrs) == 0 || d.Addrs[0].String() == d.Host {
					switch c.onName {
					case "allow":
						return Verdict{Allow: true, By: "test"}
					case "unanswered":
						// An ask nobody answers within its time.
						select {
						case <-time.After(100 * time.Millisecond):
						case <-ctx.Done():
						}
						return Verdict{Reason: "no-approver", Detail: "nobody answered"}
					}
					return Verdict{Reason: "host-denied"}
				}
				if c.onAddrs == "allow" {
					return Verdict{Allow: true, By: "test"}
				}
				return Verdict{Reason: "private-address"}
			})})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); _ = p.Serve(ctx, ln) }()
			defer func() { cancel(); <-done }()

			got := throughProxy(t, ln.Addr().String(), c.proto, c.host, up.port)
			if got != c.reached || (up.accepted.Load() > 0) != c.reached {
				t.Fatalf("reached = %v (upstream accepted %d), want %v; decided %v", got, up.accepted.Load(), c.reached, decided)
			}
			name := strings.ToLower(strings.TrimSuffix(c.host, "."))
			if asked := dns.Asked(name); asked != c.query {
				t.Fatalf("the DNS listener saw a query for %s: %v, want %v (all queries %v; decided %v)", name, asked, c.query, dns.Queries(), decided)
			}
			if !c.query && len(dns.Queries()) != 0 {
				t.Fatalf("the DNS listener saw queries %v", dns.Queries())
			}
		})
	}
}
