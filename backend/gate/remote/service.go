package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Service makes links and serves them: under the base a server set
// (`warden serve` mounts Handler on its own listener), or on a listener of
// its own started on demand at Addr ([remote] address; loopback when
// empty) that serves /remote/ and nothing else.
type Service struct {
	Links *Links
	// Addr is where the listener of its own listens; "" is 127.0.0.1 on
	// a free port (this machine only).
	Addr string

	mu    sync.Mutex
	base  string
	srv   *http.Server
	hosts map[string]bool
}

// SetBase makes links under base (scheme://host:port), served by a
// server that mounts Handler; Addr is then not opened unless Listen is
// called.
func (s *Service) SetBase(base string) {
	s.mu.Lock()
	s.base = strings.TrimRight(base, "/")
	s.mu.Unlock()
}

// Make makes a link to a live ask, starting the listener if no server
// serves links yet.
func (s *Service) Make(ctx context.Context, requestID string) (RemoteLink, error) {
	base, err := s.Base()
	if err != nil {
		return RemoteLink{}, err
	}
	return s.Links.Make(ctx, requestID, base)
}

// Base is where links are served, the listener started if need be.
func (s *Service) Base() (string, error) {
	s.mu.Lock()
	base := s.base
	s.mu.Unlock()
	if base != "" {
		return base, nil
	}
	return s.Listen()
}

// Listen opens Addr and serves the links there (only /remote/), and makes
// links under it from now on. Listening on every address (0.0.0.0, ::)
// makes links with this machine's first non-loopback IPv4 address.
func (s *Service) Listen() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return s.base, nil
	}
	addr := s.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("remote: listen on %s: %w", addr, err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	s.hosts = map[string]bool{}
	urlHost := host
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		urlHost = ""
		for _, a := range interfaceAddrs() {
			s.hosts[net.JoinHostPort(a.String(), port)] = true
			if urlHost == "" && a.To4() != nil && !a.IsLoopback() {
				urlHost = a.String()
			}
		}
		if urlHost == "" {
			urlHost = "127.0.0.1"
		}
	}
	if h, _, err := net.SplitHostPort(s.Addr); err == nil && h != "" && net.ParseIP(h) == nil {
		urlHost = h // a name the user configured
	}
	s.hosts[net.JoinHostPort(host, port)] = true
	s.hosts[net.JoinHostPort(urlHost, port)] = true
	if host == "127.0.0.1" || host == "::1" {
		s.hosts["localhost:"+port] = true
	}
	h := s.Links.Handler()
	hosts := s.hosts
	s.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "host not allowed", http.StatusForbidden)
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/remote/") {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})}
	go func() { _ = s.srv.Serve(ln) }()
	s.base = "http://" + net.JoinHostPort(urlHost, port)
	return s.base, nil
}

// Close stops the listener of its own.
func (s *Service) Close() error {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func interfaceAddrs() []net.IP {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok {
			out = append(out, n.IP)
		}
	}
	return out
}
