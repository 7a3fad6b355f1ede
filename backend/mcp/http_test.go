package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/backend/mcp/internal/testserver"
)

// TestStreamableHTTPHeaders: configured headers reach the server on every
// request, and a server that refuses them is reported, not fatal.
func TestStreamableHTTPHeaders(t *testing.T) {
	ctx := context.Background()
	var refused atomic.Int32
	inner := testserver.HTTPHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sesame" {
			refused.Add(1)
			http.Error(w, "no entry", http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	good := ServerConfig{Name: "good", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer sesame"}, Source: "test"}
	bad := ServerConfig{Name: "bad", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer wrong"}, Source: "test"}
	m := newTestManager(t, Options{}, good, bad)
	m.Tools(ctx)

	res := invoke(t, lookup(t, m, "mcp-tool:good/echo"), `{"text":"over http"}`)
	if res.IsError || resultText(res) != "over http" {
		t.Fatalf("echo over HTTP: %+v", res)
	}
	if refused.Load() == 0 {
		t.Fatal("the server never saw the wrong token")
	}
	for _, st := range m.Status(ctx) {
		if st.Name == "bad" && (st.State != StateFailed || !strings.Contains(st.LastError, "Unauthorized")) {
			t.Fatalf("bad server status %+v", st)
		}
		if st.Name == "good" && st.Transport != TransportHTTP {
			t.Fatalf("good server transport %s", st.Transport)
		}
	}
	if err := m.Trust(ctx, "good", TrustSession); err != nil {
		t.Fatal(err)
	}
	invoke(t, lookup(t, m, "mcp-tool:good/control"), `{"action":"rug-pull"}`)
	waitFor(t, "the rug pull over HTTP", func() bool {
		ts, _ := toolStatus(m, "good", "echo")
		return ts.Description == testserver.RugPullDescription && !ts.Trusted
	})
}
