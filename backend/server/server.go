// Package server serves the API (backend/api's HTTP methods, over
// runtime.Service and settings.Service) and a WebSocket of pushes for
// `warden serve`, with the built frontend.
//
// It is a local server for one person's browser, so every request must
// prove that its Host names this server by a loopback name (a DNS-rebinding
// page has its own host name there) and that any Origin it carries is this
// server (a cross-site page's fetch or WebSocket carries its own); every
// API call and WebSocket must also be signed in. Listen refuses non-loopback
// addresses unless told otherwise.
//
// # Signing in
//
// The URL printed at start carries a one-time code, not a credential: the
// page posts it to /api/auth, gets an HttpOnly, SameSite=Strict session
// cookie back and removes the code from the address bar. The code is dead
// after that one exchange, so the URL left in the browser's history, a
// terminal scrollback or a shell log opens nothing. The session secret in
// the cookie never appears in a URL and page scripts cannot read it. The
// built frontend (public files) loads without signing in; it holds no data.
// Programmatic clients may instead send Options.Token as a bearer header;
// it is never printed.
//
// Every response carries a Content-Security-Policy that allows scripts,
// styles and connections only from this origin (no inline script) and
// images from it or data: URLs, so markup that slips through the Markdown
// renderer cannot run or phone home.
package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
)

// CookieName, with "_<port>" appended, names the cookie holding the session
// secret the one-time code was exchanged for. Browsers share cookies
// between the ports of a host, so each server's cookie has its own name and
// two `warden serve`s on one machine do not sign each other out.
const CookieName = "warden_session"

// cookieName is the session cookie's name for requests to r.Host (already
// checked to be this server).
func cookieName(r *http.Request) string {
	_, port, err := net.SplitHostPort(r.Host)
	if err != nil || port == "" {
		return CookieName
	}
	return CookieName + "_" + port
}

// ContentSecurityPolicy is sent with every response.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Options configure a Server.
type Options struct {
	Service *runtime.Service
	// Settings serves the Settings screen's methods; nil answers them
	// with 503.
	Settings *settings.Service
	// Token is the secret a programmatic client may send as
	// "Authorization: Bearer <token>"; NewToken makes one. It never goes
	// into a URL: browsers sign in with the one-time code of URL.
	Token string
	// Static is the built frontend (index.html at its root); nil serves a
	// page that says how to build it.
	Static fs.FS
	// StaticHint is shown when Static is nil.
	StaticHint string
	// Hosts are the Host header values accepted besides the loopback names
	// with the listener's port (set by Serve). Needed with --insecure-bind.
	Hosts []string
	// Remote serves /remote/: the single-use links that answer an ask
	// from another device (backend/gate/remote). A link is its own
	// credential, so these paths need no sign-in; the Host and Origin
	// checks still apply.
	Remote http.Handler
}

// Server is the HTTP face of a Service.
type Server struct {
	opts  Options
	hosts map[string]bool
	mux   *http.ServeMux

	mu       sync.Mutex
	code     string              // the one-time sign-in code; "" once exchanged
	sessions map[string]struct{} // session secrets handed out as cookies
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
	code, err := NewToken()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, hosts: map[string]bool{}, mux: http.NewServeMux(), code: code, sessions: map[string]struct{}{}}
	for _, h := range opts.Hosts {
		s.hosts[strings.ToLower(h)] = true
	}
	s.mux.HandleFunc("POST /api/auth", s.exchange)
	s.mux.HandleFunc("POST /api/{method}", s.api)
	s.mux.HandleFunc("GET /api/ws", s.ws)
	if opts.Remote != nil {
		s.mux.Handle("/remote/", opts.Remote)
	}
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
	w.Header().Set("Content-Security-Policy", ContentSecurityPolicy)
	w.Header().Set("X-Frame-Options", "DENY")
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
	// The API needs a signed-in caller, except the exchange that signs in;
	// the frontend's files are public.
	if strings.HasPrefix(r.URL.Path, "/api/") {
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path != "/api/auth" && !s.signedIn(r) {
			writeError(w, http.StatusUnauthorized, "not signed in: open the URL warden serve printed (its one-time code signs this browser in)")
			return
		}
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

// signedIn accepts the bearer token header or a session cookie. Nothing
// in the URL counts: a URL ends up in histories and logs.
func (s *Server) signedIn(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); a != "" {
		t, ok := strings.CutPrefix(a, "Bearer ")
		return ok && subtle.ConstantTimeCompare([]byte(t), []byte(s.opts.Token)) == 1
	}
	c, err := r.Cookie(cookieName(r))
	if err != nil || c.Value == "" {
		return false
	}
	s.mu.Lock()
	_, ok := s.sessions[c.Value]
	s.mu.Unlock()
	return ok
}

// exchange trades the one-time code for a session cookie, once.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code string `json:"code"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || in.Code == "" {
		writeError(w, http.StatusBadRequest, `the body must be {"code": "<the code from the printed URL>"}`)
		return
	}
	secret, err := NewToken()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.mu.Lock()
	switch {
	case s.code == "":
		s.mu.Unlock()
		writeError(w, http.StatusUnauthorized, "this sign-in code was already used: the browser that used it stays signed in; "+
			"for another browser restart warden serve, which prints a new URL")
		return
	case subtle.ConstantTimeCompare([]byte(in.Code), []byte(s.code)) != 1:
		s.mu.Unlock()
		writeError(w, http.StatusUnauthorized, "wrong sign-in code: open the URL warden serve printed")
		return
	}
	s.code = "" // dead from now on
	s.sessions[secret] = struct{}{}
	s.mu.Unlock()
	// No Secure flag: the server speaks plain HTTP on loopback. No expiry:
	// the cookie ends with the browser session, the secret with the server.
	http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: secret, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
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
// one-time sign-in code.
func (s *Server) URL(ln net.Listener) string {
	host := "127.0.0.1"
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.To4() == nil && a.IP.IsLoopback() {
		host = "[::1]"
	}
	s.mu.Lock()
	code := s.code
	s.mu.Unlock()
	return fmt.Sprintf("http://%s:%s/?code=%s", host, port, code)
}

// Base is the listener's loopback origin (no sign-in code): where its
// remote links are served.
func (s *Server) Base(ln net.Listener) string {
	u, _, _ := strings.Cut(s.URL(ln), "/?code=")
	return u
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
