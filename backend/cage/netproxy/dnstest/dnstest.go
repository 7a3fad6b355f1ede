// Package dnstest is a real DNS server on loopback UDP for tests: it answers
// A queries from a table (NXDOMAIN otherwise) and records every name it was
// asked, so a test can assert that a name never reached a resolver. Resolve
// is a net.Resolver pointed at it, the shape netproxy.Config.Resolve and
// tools.NetworkConfig.Resolve take (their production default is the system
// resolver).
package dnstest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// Server is one DNS listener.
type Server struct {
	conn    net.PacketConn
	answers map[string]netip.Addr

	mu      sync.Mutex
	queries []string
}

// Start serves answers (name → IPv4 address, names without the final dot,
// any case) until the test ends.
func Start(t testing.TB, answers map[string]string) *Server {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{conn: pc, answers: map[string]netip.Addr{}}
	for name, a := range answers {
		s.answers[canonical(name)] = netip.MustParseAddr(a)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serve()
	}()
	t.Cleanup(func() {
		_ = pc.Close()
		<-done
	})
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.conn.LocalAddr().String() }

func canonical(name string) string { return strings.ToLower(strings.TrimSuffix(name, ".")) }

func (s *Server) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if reply, ok := s.answer(buf[:n]); ok {
			_, _ = s.conn.WriteTo(reply, from)
		}
	}
}

func (s *Server) answer(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := canonical(q.Name.String())
	s.mu.Lock()
	s.queries = append(s.queries, name)
	s.mu.Unlock()
	addr, known := s.answers[name]
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, false
	}
	if err := b.Question(q); err != nil {
		return nil, false
	}
	if err := b.StartAnswers(); err != nil {
		return nil, false
	}
	if known && q.Type == dnsmessage.TypeA && addr.Is4() {
		rr := dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 5}
		if err := b.AResource(rr, dnsmessage.AResource{A: addr.As4()}); err != nil {
			return nil, false
		}
	}
	out, err := b.Finish()
	return out, err == nil
}

// Queries lists the names asked so far (an A and an AAAA query of one
// lookup count twice), lower case.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

// Asked says whether name was queried at all.
func (s *Server) Asked(name string) bool {
	name = canonical(name)
	for _, q := range s.Queries() {
		if q == name {
			return true
		}
	}
	return false
}

// Resolve looks host up at this server only (never the system's resolver).
func (s *Server) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", s.Addr())
	}}
	return r.LookupNetIP(ctx, "ip4", host)
}
