package browser

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// linksServer serves testdata/links.html with its second link pointed at
// other, a different loopback origin.
func linksServer(t *testing.T, other string) *httptest.Server {
	page, err := os.ReadFile("testdata/links.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.ReplaceAll(string(page), "OTHER_ORIGIN", other)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFailures(t *testing.T) {
	site := newSite(t)
	m := newManager(t)
	act, batch := NewActionTool(m), NewBatchTool(m)
	nav := `{"action": "navigate", "url": "` + site.URL + `/form.html"}`

	t.Run("selector not found names the page", func(t *testing.T) {
		mustOK(t, call(t, act, offline, nav))
		res := call(t, act, offline, `{"action": "click", "selector": "#missing", "timeout_ms": 300}`)
		got := text(res)
		if !res.IsError || !strings.Contains(got, `"#missing"`) || !strings.Contains(got, site.URL+"/form.html") || !strings.Contains(got, `"Order form"`) {
			t.Errorf("want an error result naming the selector, URL and title, got %v %q", res.IsError, got)
		}
	})
	t.Run("ambiguous selector is reported", func(t *testing.T) {
		res := call(t, act, offline, `{"action": "click", "selector": "option"}`)
		if !res.IsError || !strings.Contains(text(res), "strict mode violation") {
			t.Errorf("want a strict-mode error, got %q", text(res))
		}
	})
	t.Run("unknown key is reported", func(t *testing.T) {
		res := call(t, act, offline, `{"action": "press", "key": "NoSuchKey"}`)
		if !res.IsError || !strings.Contains(text(res), "NoSuchKey") {
			t.Errorf("want an unknown-key error, got %q", text(res))
		}
	})
	t.Run("navigation timeout", func(t *testing.T) {
		res := call(t, act, offline, `{"action": "navigate", "url": "`+site.URL+`/slow", "timeout_ms": 400}`)
		if !res.IsError || !strings.Contains(text(res), "timed out after 400ms") {
			t.Errorf("want a navigation timeout, got %q", text(res))
		}
	})
	t.Run("refused schemes never reach the browser", func(t *testing.T) {
		for _, u := range []string{"file:///etc/passwd", "chrome://crash", "javascript:alert(1)", "data:text/html,x", "about:blank", "not a url"} {
			args := json.RawMessage(`{"action": "navigate", "url": "` + u + `"}`)
			if _, err := act.Effects(args, offline); err == nil {
				t.Errorf("Effects accepted %q", u)
			}
			if res := call(t, act, offline, string(args)); !res.IsError {
				t.Errorf("Invoke accepted %q: %q", u, text(res))
			}
		}
	})
	t.Run("non-loopback host is blocked without network", func(t *testing.T) {
		res := call(t, act, offline, `{"action": "navigate", "url": "http://192.0.2.1/", "timeout_ms": 3000}`)
		if !res.IsError || !strings.Contains(text(res), "no network access") {
			t.Errorf("want a blocked navigation, got %q", text(res))
		}
	})
	t.Run("non-loopback host passes the filter with network, and the proxy decides", func(t *testing.T) {
		online := offline
		online.Sandbox.NetworkAccess = true
		// Past the request filter the session's proxy decides each host
		// for the gate's call in flight; a call made without the gate
		// has none, so the proxy refuses (its 403 is the page).
		res := call(t, act, online, `{"action": "navigate", "url": "http://192.0.2.1/", "timeout_ms": 3000}`)
		if got := text(res); strings.Contains(got, "no network access") || !strings.Contains(got, "HTTP 403") {
			t.Errorf("want the proxy's refusal past the filter, got %q", got)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		res := call(t, act, offline, `{"action": "navigate", "url": "`+dead.URL+`/"}`)
		if !res.IsError || !strings.Contains(text(res), "ERR_CONNECTION_REFUSED") {
			t.Errorf("want connection refused, got %q", text(res))
		}
	})
	t.Run("crashed page is replaced", func(t *testing.T) {
		mustOK(t, call(t, act, offline, nav))
		s, err := m.session(offline.SessionID, false)
		if err != nil {
			t.Fatal(err)
		}
		// chrome://crash is refused to the model; the test drives the page
		// there directly to kill its renderer for real.
		_, _ = s.current().Goto("chrome://crash")
		// The renderer dies asynchronously; wait for the crash event so the
		// next action meets a dead page, not a dying one.
		deadline := time.Now().Add(10 * time.Second)
		for !s.crashed.Load() {
			if time.Now().After(deadline) {
				t.Fatal("chrome://crash did not crash the page")
			}
			time.Sleep(20 * time.Millisecond)
		}
		res := call(t, act, offline, `{"action": "get_text"}`)
		if !res.IsError || !strings.Contains(text(res), "crashed") {
			t.Fatalf("want a crash report, got %q", text(res))
		}
		mustOK(t, call(t, act, offline, nav))
		mustOK(t, call(t, act, offline, `{"action": "get_text", "selector": "h1"}`))
	})
	t.Run("closed page is replaced", func(t *testing.T) {
		s, err := m.session(offline.SessionID, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.current().Close(); err != nil {
			t.Fatal(err)
		}
		res := call(t, act, offline, `{"action": "get_text"}`)
		if !res.IsError || !strings.Contains(text(res), "closed") {
			t.Fatalf("want a closed-page report, got %q", text(res))
		}
		mustOK(t, call(t, act, offline, nav))
	})
	t.Run("batch stops at the first failure", func(t *testing.T) {
		res := call(t, batch, offline, `{"actions": [`+nav+`,
			{"action": "fill", "selector": "#name", "value": "Bo"},
			{"action": "click", "selector": "#nope", "timeout_ms": 300},
			{"action": "click", "selector": "#send"}]}`)
		if !res.IsError || !strings.Contains(text(res), "step 3 of 4 (click #nope) failed") || !strings.Contains(text(res), "steps 4 to 4 were not run") {
			t.Fatalf("want step 3 reported, got %q", text(res))
		}
		var st struct{ Steps []stepResult }
		if err := json.Unmarshal(res.Structured, &st); err != nil || len(st.Steps) != 3 || !st.Steps[1].OK || st.Steps[2].OK {
			t.Fatalf("structured steps = %+v, %v", st.Steps, err)
		}
		// Step 4 never ran: the form was not submitted.
		if got := text(call(t, act, offline, `{"action": "get_text", "selector": "h1"}`)); !strings.Contains(got, "Order") {
			t.Errorf("the page moved on after the failed step: %q", got)
		}
	})
	t.Run("batch stops when a step leaves its approved origin", func(t *testing.T) {
		links := linksServer(t, site.URL)
		res := call(t, batch, offline, `{"actions": [
			{"action": "navigate", "url": "`+links.URL+`/"},
			{"action": "click", "selector": "#other"},
			{"action": "fill", "selector": "#name", "value": "x"}]}`)
		if !res.IsError || !strings.Contains(text(res), "step 3 of 3") || !strings.Contains(text(res), "approved for "+OriginOf(links.URL)) {
			t.Fatalf("want step 3 refused for leaving the origin, got %q", text(res))
		}
	})
	t.Run("a cancelled call abandons its action", func(t *testing.T) {
		mustOK(t, call(t, act, offline, nav))
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(300 * time.Millisecond)
			cancel()
		}()
		_, err := act.Invoke(ctx, json.RawMessage(`{"action": "navigate", "url": "`+site.URL+`/slow", "timeout_ms": 60000}`), offline)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Invoke returned %v, want context.Canceled", err)
		}
		// The abandoned page was closed and replaced by a blank one; the
		// session carries on.
		if u := m.CurrentURL(offline.SessionID); strings.Contains(u, "/slow") {
			t.Errorf("the session still points at the abandoned page %s", u)
		}
		mustOK(t, call(t, act, offline, nav))
	})
	t.Run("manager refuses work after shutdown", func(t *testing.T) {
		m2 := NewManager(Options{DriverDir: sharedDriverDir})
		if err := m2.Shutdown(); err != nil {
			t.Fatal(err)
		}
		res := call(t, NewActionTool(m2), offline, nav)
		if !res.IsError || !strings.Contains(text(res), "shut down") {
			t.Errorf("got %q", text(res))
		}
	})
}

func TestMissingPieces(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"no node", Options{NodePath: "/nonexistent/node"}, "node not found"},
		{"no playwright-core", Options{CorePackageDir: t.TempDir()}, "npm ci --prefix backend/tools/browser/driver"},
		{"wrong playwright-core", Options{CorePackageDir: "testdata"}, "playwright-core not found"},
		{"no chromium", Options{ChromiumPath: "/nonexistent/chromium"}, "chromium not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.DriverDir = sharedDriverDir
			m := NewManager(c.opts)
			defer m.Shutdown()
			res := call(t, NewActionTool(m), offline, `{"action": "navigate", "url": "http://localhost:1/"}`)
			if !res.IsError || !strings.Contains(text(res), c.want) || !strings.Contains(text(res), ErrUnavailable.Error()) {
				t.Errorf("want %q, got %q", c.want, text(res))
			}
			if _, err := m.session("x", false); !errors.Is(err, ErrUnavailable) {
				t.Errorf("session error %v is not ErrUnavailable", err)
			}
		})
	}
}

func TestEffects(t *testing.T) {
	site := newSite(t)
	m := newManager(t)
	act, batch := NewActionTool(m), NewBatchTool(m)
	env := tools.Env{SessionID: "effects"}
	origin := OriginOf(site.URL)

	effects := func(tool tools.Tool, args string) ([]policy.Effect, error) {
		return tool.Effects(json.RawMessage(args), env)
	}
	if _, err := effects(act, `{"action": "click", "selector": "a"}`); err == nil || !strings.Contains(err.Error(), "navigate") {
		t.Errorf("a click with no page open should ask for a navigate first, got %v", err)
	}
	cases := []struct {
		name string
		tool tools.Tool
		args string
		want []policy.Effect
	}{
		{"navigate loopback carries its origin", act, `{"action": "navigate", "url": "` + site.URL + `/form.html"}`,
			[]policy.Effect{{Kind: policy.EffectBrowser, Action: "navigate", Origin: origin}}},
		{"navigate elsewhere carries that origin", act, `{"action": "navigate", "url": "https://example.com/a"}`,
			[]policy.Effect{{Kind: policy.EffectBrowser, Action: "navigate", Origin: "https://example.com:443"}}},
		{"batch follows its navigates", batch, `{"actions": [{"action": "navigate", "url": "https://example.com/"}, {"action": "click", "selector": "a"}, {"action": "click", "selector": "b"}]}`,
			[]policy.Effect{{Kind: policy.EffectBrowser, Action: "navigate", Origin: "https://example.com:443"}, {Kind: policy.EffectBrowser, Action: "click", Origin: "https://example.com:443"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := effects(c.tool, c.args)
			if err != nil || !sameEffects(got, c.want) {
				t.Errorf("Effects = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	mustOK(t, call(t, act, env, `{"action": "navigate", "url": "`+site.URL+`/form.html"}`))
	for _, verb := range []string{`{"action": "click", "selector": "#send"}`, `{"action": "screenshot"}`, `{"action": "get_text"}`} {
		got, err := effects(act, verb)
		if err != nil || len(got) != 1 || got[0].Origin != origin || got[0].Kind != policy.EffectBrowser {
			t.Errorf("%s: Effects = %+v, %v; want the current page's origin %s", verb, got, err, origin)
		}
	}
	if got, _ := effects(act, `{"action": "get_text"}`); got[0].Action != "get_text" {
		t.Errorf("the effect should carry the verb, got %q", got[0].Action)
	}
	if _, err := effects(act, `{"action": "navigate", "url": "file:///etc/passwd"}`); err == nil {
		t.Errorf("file:// must be refused in Effects")
	}
	// Sessions do not share pages.
	if other, err := effects(act, `{"action": "click", "selector": "a"}`); err != nil || other[0].Origin != origin {
		t.Fatalf("same session lost its page: %v %v", other, err)
	}
	if _, err := act.Effects(json.RawMessage(`{"action": "click", "selector": "a"}`), tools.Env{SessionID: "another"}); err == nil {
		t.Errorf("another session sees this session's page")
	}
	if err := m.Close(env.SessionID); err != nil {
		t.Fatal(err)
	}
	if m.CurrentURL(env.SessionID) != "" {
		t.Errorf("Close kept the session's page")
	}
	if err := m.Close("never-used"); err != nil {
		t.Errorf("closing an unused session: %v", err)
	}
}

func sameEffects(a, b []policy.Effect) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestNetworkAllowedFollowsSandbox(t *testing.T) {
	cases := []struct {
		name string
		sb   policy.SandboxPolicy
		want bool
	}{
		{"workspace-write without network", policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, false},
		{"workspace-write with network", policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}, true},
		{"read-only", policy.SandboxPolicy{Kind: policy.ReadOnly, NetworkAccess: true}, false},
		{"full access", policy.SandboxPolicy{Kind: policy.DangerFullAccess}, true},
	}
	for _, c := range cases {
		if got := networkAllowed(c.sb); got != c.want {
			t.Errorf("%s: networkAllowed = %v, want %v", c.name, got, c.want)
		}
	}
}
