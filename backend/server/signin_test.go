package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"
)

// cookie is the session cookie's name on the fixture's port.
func (f *fixture) cookie() string { return CookieName + "_" + strings.Split(f.host, ":")[1] }

// printedCode is the one-time code in the URL the server would print.
func (f *fixture) printedCode(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(f.s.URL(f.srv.Listener))
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("code")
}

// exchange posts code to /api/auth as the page does.
func (f *fixture) exchange(t *testing.T, code string, hdr http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/api/auth", strings.NewReader(`{"code":"`+code+`"}`))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// signIn exchanges the fixture's code and returns the session cookie.
func (f *fixture) signIn(t *testing.T) *http.Cookie {
	t.Helper()
	res := f.exchange(t, f.printedCode(t), nil)
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("exchange: status %d", res.StatusCode)
	}
	for _, c := range res.Cookies() {
		if c.Name == f.cookie() {
			return &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	t.Fatal("exchange set no session cookie")
	return nil
}

func (f *fixture) get(t *testing.T, path string, cookie *http.Cookie) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+path, strings.NewReader("{}"))
	if cookie != nil {
		req.AddCookie(cookie)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// The printed URL opens the app once: its code buys one HttpOnly,
// SameSite=Strict session cookie and is dead afterwards, so the URL kept
// in a browser's history or a terminal opens nothing.
func TestSignInWithTheOneTimeCode(t *testing.T) {
	f := newFixture(t, nil)
	printed := f.s.URL(f.srv.Listener)
	code := f.printedCode(t)
	if len(code) < 32 || strings.Contains(printed, testToken) || strings.Contains(printed, "token=") {
		t.Fatalf("printed URL %q: want a one-time code and no token", printed)
	}
	if st := f.get(t, "/api/Info?code="+code, nil); st != http.StatusUnauthorized {
		t.Errorf("the code itself is not a credential: status %d", st)
	}
	if res := f.exchange(t, strings.Repeat("0", len(code)), nil); res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 {
		t.Errorf("wrong code: status %d, cookies %v", res.StatusCode, res.Cookies())
	}
	if res := f.exchange(t, code, http.Header{"Origin": {"http://evil.example"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("exchange from another origin: status %d", res.StatusCode)
	}

	res := f.exchange(t, code, http.Header{"Origin": {"http://" + f.host}})
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("exchange: status %d", res.StatusCode)
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == f.cookie() {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatalf("no %s cookie in %v", f.cookie(), res.Header["Set-Cookie"])
	}
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" || cookie.MaxAge != 0 || !cookie.Expires.IsZero() {
		t.Errorf("cookie %q: want HttpOnly, SameSite=Strict, Path=/, ending with the browser session", res.Header.Get("Set-Cookie"))
	}
	if cookie.Value == code || cookie.Value == testToken || len(cookie.Value) < 32 {
		t.Errorf("cookie value %q is not a fresh secret", cookie.Value)
	}
	session := &http.Cookie{Name: f.cookie(), Value: cookie.Value}

	cases := []struct {
		name   string
		path   string
		cookie *http.Cookie
		want   int
	}{
		{"API with the cookie", "/api/Info", session, http.StatusOK},
		{"the used code in the URL", "/api/Info?code=" + code, nil, http.StatusUnauthorized},
		{"the token in the URL", "/api/Info?token=" + testToken, nil, http.StatusUnauthorized},
		{"a made-up session", "/api/Info", &http.Cookie{Name: f.cookie(), Value: strings.Repeat("a", 64)}, http.StatusUnauthorized},
		{"the code as the cookie", "/api/Info", &http.Cookie{Name: f.cookie(), Value: code}, http.StatusUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if st := f.get(t, c.path, c.cookie); st != c.want {
				t.Errorf("status %d, want %d", st, c.want)
			}
		})
	}

	t.Run("replay of the code", func(t *testing.T) {
		res := f.exchange(t, code, nil)
		if res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 {
			t.Errorf("second exchange: status %d, cookies %v", res.StatusCode, res.Cookies())
		}
		if u := f.s.URL(f.srv.Listener); strings.Contains(u, code) {
			t.Errorf("the URL still offers the used code: %s", u)
		}
	})

	t.Run("WebSocket with the cookie", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ws := "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/api/ws"
		c, _, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {session.String()}}})
		if err != nil {
			t.Fatalf("dial with the session cookie: %v", err)
		}
		c.CloseNow()
		if _, res, err := websocket.Dial(ctx, ws+"?code="+code, nil); err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
			t.Errorf("dial with the used code: %v %v", res, err)
		}
	})
}

// Of many exchanges racing with the right code exactly one wins.
func TestCodeIsExchangedOnce(t *testing.T) {
	f := newFixture(t, nil)
	code := f.printedCode(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if f.exchange(t, code, nil).StatusCode == http.StatusNoContent {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d exchanges won, want 1", won)
	}
}

func TestExchangeRefusesBadBodies(t *testing.T) {
	f := newFixture(t, nil)
	for name, body := range map[string]string{
		"empty": "", "not json": "code=x", "no code": "{}", "extra field": `{"code":"x","token":"y"}`,
		"too big": `{"code":"` + strings.Repeat("x", 8192) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			res, err := http.Post(f.srv.URL+"/api/auth", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("status %d, want 400", res.StatusCode)
			}
		})
	}
	// The code survives bad attempts.
	f.signIn(t)
}

// Every response, page or API, carries the policy: scripts, styles and
// connections from this origin only, images also from data: URLs.
func TestContentSecurityPolicy(t *testing.T) {
	f := newFixture(t, &fstestIndex)
	for _, path := range []string{"/", "/assets/app.js", "/sessions/42", "/api/Info"} {
		t.Run(path, func(t *testing.T) {
			method := http.MethodGet
			if strings.HasPrefix(path, "/api/") {
				method = http.MethodPost
			}
			req, _ := http.NewRequest(method, f.srv.URL+path, strings.NewReader("{}"))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			csp := res.Header.Get("Content-Security-Policy")
			directives := map[string]string{}
			for _, d := range strings.Split(csp, ";") {
				name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
				directives[name] = value
			}
			for name, want := range map[string]string{
				"default-src": "'self'", "script-src": "'self'", "connect-src": "'self'", "img-src": "'self' data:",
				"object-src": "'none'", "frame-ancestors": "'none'", "base-uri": "'none'",
			} {
				if directives[name] != want {
					t.Errorf("%s = %q, want %q (policy %q)", name, directives[name], want, csp)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("policy allows inline or eval'd code: %q", csp)
			}
		})
	}
}

var fstestIndex = fstest.MapFS{"index.html": {Data: []byte("<h1>Warden</h1>")}, "assets/app.js": {Data: []byte("1")}}
