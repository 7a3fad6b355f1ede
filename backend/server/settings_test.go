package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/assemble"
)

// settingsServer serves a whole graph, Settings included, on a temp config
// whose file holds a key.
func settingsServer(t *testing.T) *httptest.Server {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	path := filepath.Join(cfg, "warden", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	text := "[model]\nspec = \"anthropic:claude-sonnet-4-5\"\napi_key = \"sk-ant-server-secret-9Zz9\"\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := assemble.Open(context.Background(), assemble.Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Service: g.Service, Settings: g.Settings, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	u, _ := url.Parse(hs.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	s.AllowPort(port)
	t.Cleanup(func() {
		hs.Close()
		_ = g.Close()
	})
	return hs
}

func postRaw(t *testing.T, base, method, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/"+method, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

func TestSettingsRoutes(t *testing.T) {
	hs := settingsServer(t)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	cases := []struct {
		name, method, body string
		code               int
		contains           string
	}{
		{name: "settings without the key", method: "GetSettings", code: 200, contains: `"api_key_hint":"…9Zz9"`},
		{name: "bad JSON", method: "SaveModelSettings", body: `{"provider":`, code: 400, contains: "bad arguments"},
		{name: "unknown field", method: "SaveModelSettings", body: `{"provider":"demo","colour":"red"}`, code: 400, contains: "colour"},
		{name: "unknown provider", method: "SaveModelSettings", body: `{"provider":"gemini","model":"pro"}`, code: 400, contains: "unknown provider"},
		{name: "switch to the demo", method: "SaveModelSettings", body: `{"provider":"demo","model":"","base_url":""}`, code: 200, contains: `"active_model":"script:demo"`},
		{name: "defaults", method: "SaveDefaults", body: `{"approval":"always","sandbox":{"kind":"read-only","network_access":false,"writable_roots":[]}}`,
			code: 200, contains: `"approval":"always"`},
		{name: "bad approval", method: "SaveDefaults", body: `{"approval":"sometimes","sandbox":{"kind":"read-only"}}`, code: 400, contains: "sometimes"},
		{name: "demo models", method: "ListModels", body: `{"provider":"demo","base_url":""}`, code: 200, contains: `"id":"demo"`},
		{name: "unreachable host is a result", method: "TestConnection", body: `{"provider":"openai","base_url":"` + closed + `/v1","api_key":"sk-x"}`,
			code: 200, contains: "connection refused"},
		{name: "no MCP servers is an empty list", method: "McpServers", code: 200, contains: "[]"},
		{name: "unknown MCP server", method: "McpLog", body: `{"server":"nope"}`, code: 404, contains: "nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := postRaw(t, hs.URL, tc.method, tc.body)
			if code != tc.code || !strings.Contains(body, tc.contains) {
				t.Fatalf("%s: %d %s; want %d containing %q", tc.method, code, body, tc.code, tc.contains)
			}
			if strings.Contains(body, "server-secret") {
				t.Fatalf("the key left Go: %s", body)
			}
		})
	}
}

func TestSettingsRoutesWithoutSettings(t *testing.T) {
	f := newFixture(t, nil)
	if code := f.call(t, "GetSettings", nil, nil); code != http.StatusServiceUnavailable {
		t.Errorf("GetSettings without settings: %d, want 503", code)
	}
}
