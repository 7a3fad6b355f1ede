package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

const testToken = "0123456789abcdef0123456789abcdef"

type fixture struct {
	s    *Server
	srv  *httptest.Server
	host string // 127.0.0.1:port
	ws   string // a workspace
}

func newFixture(t *testing.T, static staticFS) *fixture {
	t.Helper()
	dbPath := filepath.Join(t.TempDir(), "w.db")
	st, err := store.Open(context.Background(), dbPath, storetest.KeyFor(dbPath))
	if err != nil {
		t.Fatal(err)
	}
	cage := sandbox.New(sandbox.Config{})
	cage.Detect(context.Background())
	reg, err := tools.Builtins(cage, tools.NewMonitors(cage), "")
	if err != nil {
		t.Fatal(err)
	}
	g, err := gate.New(gate.Config{Decider: policy.New(policy.Config{}), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.New(context.Background(), runtime.Config{Store: st, Gate: g, Tools: reg,
		Caged: cage.Caged, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Service: svc, Token: testToken}
	if static != nil {
		opts.Static = static
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	u, _ := url.Parse(hs.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	s.AllowPort(port)
	t.Cleanup(func() {
		hs.Close()
		_ = svc.Close()
		_ = st.Close()
		_ = cage.Close()
	})
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &fixture{s: s, srv: hs, host: u.Host, ws: ws}
}

type staticFS = *fstest.MapFS

// call posts to an API method with the token header and decodes the reply.
func (f *fixture) call(t *testing.T, method string, in any, out any) int {
	t.Helper()
	body, _ := json.Marshal(in)
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/api/"+method, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v: %s", method, err, raw)
		}
	}
	return res.StatusCode
}

// TestRefusals proves each check refuses what it must, and lets the
// legitimate request through.
func TestRefusals(t *testing.T) {
	f := newFixture(t, nil)
	session := f.signIn(t)
	cases := []struct {
		name   string
		prep   func(r *http.Request)
		status int
	}{
		{name: "no token", prep: func(r *http.Request) {}, status: http.StatusUnauthorized},
		{name: "wrong token", prep: func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("x", 64)) }, status: http.StatusUnauthorized},
		{name: "token header", prep: func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testToken) }, status: http.StatusOK},
		{name: "token in the query is not a credential", prep: func(r *http.Request) { r.URL.RawQuery = "token=" + testToken }, status: http.StatusUnauthorized},
		{name: "token as the cookie is not a session", prep: func(r *http.Request) { r.AddCookie(&http.Cookie{Name: f.cookie(), Value: testToken}) }, status: http.StatusUnauthorized},
		{name: "bearer without the scheme", prep: func(r *http.Request) { r.Header.Set("Authorization", testToken) }, status: http.StatusUnauthorized},
		{name: "session cookie", prep: func(r *http.Request) { r.AddCookie(session) }, status: http.StatusOK},
		{name: "DNS rebinding host", prep: func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Host = "evil.example:" + strings.Split(f.host, ":")[1]
		}, status: http.StatusForbidden},
		{name: "host on another port", prep: func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Host = "127.0.0.1:1"
		}, status: http.StatusForbidden},
		{name: "cross-site origin", prep: func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Header.Set("Origin", "http://evil.example")
		}, status: http.StatusForbidden},
		{name: "null origin", prep: func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Header.Set("Origin", "null")
		}, status: http.StatusForbidden},
		{name: "own origin", prep: func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Header.Set("Origin", "http://"+f.host)
		}, status: http.StatusOK},
		{name: "localhost origin and host", prep: func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Host = "localhost:" + strings.Split(f.host, ":")[1]
			r.Header.Set("Origin", "http://"+r.Host)
		}, status: http.StatusOK},
		{name: "sec-fetch-site cross-site", prep: func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		}, status: http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/api/Info", strings.NewReader("{}"))
			c.prep(req)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d", res.StatusCode, c.status)
			}
			if len(res.Cookies()) != 0 {
				t.Fatalf("an API call set cookies: %v", res.Cookies())
			}
		})
	}
}

func TestWebSocketRefusalsAndPushes(t *testing.T) {
	f := newFixture(t, nil)
	wsURL := "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/api/ws"
	cookie := f.signIn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	refused := []struct {
		name   string
		url    string
		header http.Header
		status int
	}{
		{name: "no token", url: wsURL, status: http.StatusUnauthorized},
		{name: "token in the query", url: wsURL + "?token=" + testToken, status: http.StatusUnauthorized},
		{name: "cross-site origin", url: wsURL, header: http.Header{"Origin": {"http://evil.example"}, "Cookie": {cookie.String()}}, status: http.StatusForbidden},
		{name: "rebinding host", url: wsURL, header: http.Header{"Host": {"evil.example"}, "Cookie": {cookie.String()}}, status: http.StatusForbidden},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			opts := &websocket.DialOptions{HTTPHeader: c.header}
			if h := c.header.Get("Host"); h != "" {
				opts.Host = h
			}
			_, res, err := websocket.Dial(ctx, c.url, opts)
			if err == nil {
				t.Fatal("dialled")
			}
			if res == nil || res.StatusCode != c.status {
				t.Fatalf("response %v, want %d", res, c.status)
			}
		})
	}
	// The browser's way in: the session cookie on the handshake.
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://" + f.host}, "Cookie": {cookie.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	// Subscribing happens in the handler; give it a moment to attach by
	// creating sessions until a push arrives.
	var sess runtime.Session
	got := make(chan runtime.Push, 16)
	go func() {
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				close(got)
				return
			}
			var p runtime.Push
			if json.Unmarshal(data, &p) == nil {
				got <- p
			}
		}
	}()
	if st := f.call(t, "CreateSession", map[string]any{"workspace": f.ws, "title": "ws"}, &sess); st != http.StatusOK {
		t.Fatalf("create: %d", st)
	}
	for {
		select {
		case p, ok := <-got:
			if !ok {
				t.Fatal("socket closed")
			}
			if p.Type == runtime.PushEvent && p.Event.SessionID == sess.ID && p.Event.Kind == store.KindSessionCreated {
				return
			}
		case <-ctx.Done():
			t.Fatal("no SessionCreated push")
		}
	}
}

// TestAPIFlow runs an ask through HTTP: "!rm -rf build" asks, the answer
// runs it, a second answer to another id is refused.
func TestAPIFlow(t *testing.T) {
	f := newFixture(t, nil)
	var sess runtime.Session
	if st := f.call(t, "CreateSession", map[string]any{"workspace": f.ws, "approval": "on-request",
		"sandbox": map[string]any{"kind": "workspace-write"}}, &sess); st != http.StatusOK {
		t.Fatalf("create: %d", st)
	}
	if sess.Sandbox.Kind != policy.WorkspaceWrite || sess.Sandbox.WritableRoots == nil {
		t.Fatalf("session: %+v", sess)
	}
	if st := f.call(t, "SendMessage", map[string]any{"session_id": sess.ID, "text": "!rm -rf build"}, nil); st != http.StatusOK {
		t.Fatalf("send: %d", st)
	}
	var asks []runtime.Approval
	deadline := time.Now().Add(20 * time.Second)
	for len(asks) == 0 && time.Now().Before(deadline) {
		f.call(t, "PendingApprovals", map[string]any{"session_id": sess.ID}, &asks)
		time.Sleep(10 * time.Millisecond)
	}
	if len(asks) != 1 || asks[0].Signature != "shell=rm -rf build" {
		t.Fatalf("asks: %+v", asks)
	}
	cases := []struct {
		name   string
		method string
		args   any
		status int
	}{
		{name: "unknown method", method: "Nope", args: map[string]any{}, status: http.StatusNotFound},
		{name: "unknown field", method: "Answer", args: map[string]any{"request_id": asks[0].RequestID, "answer": "once", "bogus": 1}, status: http.StatusBadRequest},
		{name: "unknown request", method: "Answer", args: map[string]any{"request_id": "nope", "answer": "once"}, status: http.StatusConflict},
		{name: "unknown session", method: "SessionEvents", args: map[string]any{"session_id": "nope"}, status: http.StatusNotFound},
		{name: "bad approval", method: "SetApprovalPolicy", args: map[string]any{"session_id": sess.ID, "approval": "sometimes"}, status: http.StatusBadRequest},
		{name: "answer", method: "Answer", args: map[string]any{"request_id": asks[0].RequestID, "answer": "once"}, status: http.StatusOK},
		{name: "same answer again", method: "Answer", args: map[string]any{"request_id": asks[0].RequestID, "answer": "once"}, status: http.StatusOK},
		{name: "no model", method: "SendMessage", args: map[string]any{"session_id": sess.ID, "text": "hello"}, status: http.StatusPreconditionFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if st := f.call(t, c.method, c.args, nil); st != c.status {
				t.Fatalf("status %d, want %d", st, c.status)
			}
		})
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(f.ws, "build")); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("build was not removed after the answer")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var audit []runtime.Event
	if st := f.call(t, "AuditLog", map[string]any{"session_id": sess.ID}, &audit); st != http.StatusOK || len(audit) < 2 {
		t.Fatalf("audit %d: %d events", st, len(audit))
	}
	var exp runtime.Export
	if st := f.call(t, "ExportAudit", map[string]any{"session_id": sess.ID, "format": "csv"}, &exp); st != http.StatusOK ||
		!strings.Contains(exp.Content, "human:once") {
		t.Fatalf("export %d: %+v", st, exp)
	}
}

func TestStatic(t *testing.T) {
	cases := []struct {
		name   string
		static staticFS
		path   string
		status int
		body   string
	}{
		{name: "missing frontend", path: "/", status: http.StatusServiceUnavailable, body: "make"},
		{name: "index", static: &fstest.MapFS{"index.html": {Data: []byte("<h1>Warden</h1>")}}, path: "/", status: http.StatusOK, body: "Warden"},
		{name: "asset", static: &fstest.MapFS{"index.html": {Data: []byte("x")}, "app.js": {Data: []byte("console.log(1)")}}, path: "/app.js", status: http.StatusOK, body: "console"},
		{name: "client route", static: &fstest.MapFS{"index.html": {Data: []byte("<h1>Warden</h1>")}}, path: "/sessions/42", status: http.StatusOK, body: "Warden"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.static)
			res, err := http.Get(f.srv.URL + c.path) // the frontend's files need no sign-in
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status || !strings.Contains(string(b), c.body) {
				t.Fatalf("%d %q", res.StatusCode, b)
			}
		})
	}
}

func TestListen(t *testing.T) {
	cases := []struct {
		addr     string
		insecure bool
		ok       bool
	}{
		{addr: "127.0.0.1:0", ok: true},
		{addr: "localhost:0", ok: true},
		{addr: "0.0.0.0:0"},
		{addr: ":0"},
		{addr: "192.0.2.1:0"},
		{addr: "not an address"},
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			ln, err := Listen(c.addr, c.insecure)
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want ok %v", err, c.ok)
			}
			if ln != nil {
				ln.Close()
			}
		})
	}
}

func TestNewRefusesAShortToken(t *testing.T) {
	if _, err := New(Options{Service: &runtime.Service{}, Token: "short"}); err == nil {
		t.Fatal("accepted a short token")
	}
	tok, err := NewToken()
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q %v", tok, err)
	}
}
