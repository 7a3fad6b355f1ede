// Package server serves runtime.Service over HTTP and a WebSocket for
// `warden serve`, with the built frontend.
//
// It is a local server for one person's browser, so every request must
// prove three things: it carries the random token printed at start (header,
// query or the cookie set by the first authenticated page load), its Host
// names this server by a loopback name (a DNS-rebinding page has its own
// host name there), and any Origin it carries is this server (a cross-site
// page's fetch or WebSocket carries its own). Listen refuses non-loopback
// addresses unless told otherwise.
package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
)

// CookieName holds the token after the first authenticated page load, so
// the page's own assets and fetches need not repeat it.
const CookieName = "warden_token"

// Options configure a Server.
type Options struct {
	Service *runtime.Service
	// Settings serves the Settings screen's methods; nil answers them
	// with 503.
	Settings *settings.Service
	// Token is the secret every request carries; NewToken makes one.
	Token string
	// Static is the built frontend (index.html at its root); nil serves a
	// page that says how to build it.
	Static fs.FS
	// StaticHint is shown when Static is nil.
	StaticHint string
	// Hosts are the Host header values accepted besides the loopback names
	// with the listener's port (set by Serve). Needed with --insecure-bind.
	Hosts []string
}

// Server is the HTTP face of a Service.
type Server struct {
	opts  Options
	hosts map[string]bool
	mux   *http.ServeMux
}

// NewToken returns 32 random bytes in hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// New builds a server; AllowPort must be called (Serve does) before a
// request can pass the Host check.
func New(opts Options) (*Server, error) {
	if opts.Service == nil {
		return nil, errors.New("server: a Service is required")
	}
	if len(opts.Token) < 16 {
		return nil, errors.New("server: the token must be at least 16 characters")
	}
	s := &Server{opts: opts, hosts: map[string]bool{}, mux: http.NewServeMux()}
	for _, h := range opts.Hosts {
		s.hosts[strings.ToLower(h)] = true
	}
	s.mux.HandleFunc("POST /api/{method}", s.api)
	s.mux.HandleFunc("GET /api/ws", s.ws)
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "unknown API path (POST /api/<method>, GET /api/ws)")
	})
	s.mux.Handle("/", s.static())
	return s, nil
}

// AllowPort accepts the loopback names with port in the Host header.
func (s *Server) AllowPort(port string) {
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		s.hosts[h+":"+port] = true
	}
}

// Handler is the whole server with its checks.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if !s.hosts[strings.ToLower(r.Host)] {
		writeError(w, http.StatusForbidden, "host not allowed: this server answers only to its loopback address")
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !s.sameOrigin(o) {
		writeError(w, http.StatusForbidden, "cross-origin request refused")
		return
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		writeError(w, http.StatusForbidden, "cross-site request refused")
		return
	}
	tok, fromQuery := s.token(r)
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) != 1 {
		writeError(w, http.StatusUnauthorized, "missing or wrong token: open the URL warden serve printed")
		return
	}
	if fromQuery {
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.opts.Token, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode})
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) sameOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Path != "" && u.Path != "/" {
		return false
	}
	return s.hosts[strings.ToLower(u.Host)]
}

// token reads the token from the Authorization header, the query or the
// cookie; fromQuery says to set the cookie.
func (s *Server) token(r *http.Request) (string, bool) {
	if a := r.Header.Get("Authorization"); a != "" {
		t, _ := strings.CutPrefix(a, "Bearer ")
		return t, false
	}
	if t := r.URL.Query().Get("token"); t != "" {
		return t, true
	}
	if c, err := r.Cookie(CookieName); err == nil {
		return c.Value, false
	}
	return "", false
}

// Listen opens addr; a non-loopback address is refused unless insecure.
func Listen(addr string, insecure bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("server: address %q: %w", addr, err)
	}
	if !insecure && !isLoopback(host) {
		return nil, fmt.Errorf("server: refusing to listen on %q: only loopback addresses (127.0.0.1, ::1, localhost) unless --insecure-bind", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	return ln, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is what the user opens: the listener's loopback address with the
// token.
func (s *Server) URL(ln net.Listener) string {
	host := "127.0.0.1"
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.To4() == nil && a.IP.IsLoopback() {
		host = "[::1]"
	}
	return fmt.Sprintf("http://%s:%s/?token=%s", host, port, s.opts.Token)
}

// Serve answers on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s.AllowPort(port)
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		return nil
	}
}

func (s *Server) static() http.Handler {
	if s.opts.Static == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			hint := s.opts.StaticHint
			if hint == "" {
				hint = "The frontend is not built. Run `make` (it builds frontend/dist) or pass --static DIR."
			}
			fmt.Fprintln(w, hint)
			fmt.Fprintln(w, "The API is up: POST /api/<method>, WebSocket /api/ws.")
		})
	}
	files := http.FileServerFS(s.opts.Static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/")
		if p != "" {
			if _, err := fs.Stat(s.opts.Static, p); err != nil {
				// A client-side route: the app's index answers.
				r2 := r.Clone(r.Context())
				r2.URL.Path = "/"
				files.ServeHTTP(w, r2)
				return
			}
		}
		files.ServeHTTP(w, r)
	})
}
