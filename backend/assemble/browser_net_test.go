package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// lanAddr is an address of this machine that is not loopback: Chromium
// sends requests for it through the session's proxy, which sees a private
// address.
func lanAddr(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			return ipn.IP.String()
		}
	}
	// Without one, the browser's proxy path cannot be shown here; a
	// security test that quietly passes would be worse than a red one.
	t.Fatal("this machine has no non-loopback IPv4 address: the test needs one to reach through the browser's proxy")
	return ""
}

// counted is an HTTP server on every address of the machine counting the
// requests it served.
func counted(t *testing.T, body string) (port int, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port, hits
}

// The browser tool's pages reach the network host by host, decided like a
// caged command's connections: headless under On request, a page on
// loopback (loaded directly, not asked) pulls in one resource from a host
// listed with --allow-host and one from a host nobody listed, which would
// be asked and so is refused with nobody to ask. The listed one is served;
// the other sees no request at all; each is a network_connection event of
// the browser call.
func TestBrowserPageNetworkByHost(t *testing.T) {
	isolate(t)
	ip := lanAddr(t)
	allowedPort, allowedHits := counted(t, "allowed resource")
	otherPort, otherHits := counted(t, "must not be reached")
	allowed := fmt.Sprintf("%s:%d", ip, allowedPort)
	other := fmt.Sprintf("%s:%d", ip, otherPort)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>by host</title><h1 id=msg>page with two resources</h1>
<script src="http://%s/a.js"></script><script src="http://%s/b.js"></script>`, allowed, other)
	}))
	defer page.Close()

	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"tool_calls": []any{map[string]any{"id": id, "name": name, "args": args}}}
	}
	turns := []any{
		call("nav", "browser.action", map[string]any{"action": "navigate", "url": page.URL + "/"}),
		map[string]any{"text": "Loaded."},
	}
	scriptJSON, _ := json.Marshal(map[string]any{"version": 1, "turns": turns})
	scriptPath := filepath.Join(t.TempDir(), "bynet.json")
	if err := os.WriteFile(scriptPath, scriptJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	pattern, err := policy.ParseHostPattern(allowed)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Model: "script:" + scriptPath, Headless: true,
		AllowHosts: []policy.HostPattern{pattern}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	onRequest := policy.OnRequest
	s, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: t.TempDir(), Title: "by host",
		Approval: &onRequest, Sandbox: &runtime.Sandbox{Kind: policy.WorkspaceWrite, NetworkAccess: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Service.Run(ctx, s.ID, "open the page"); err != nil {
		t.Fatal(err)
	}
	evs, err := g.Store.Events(ctx, store.EventQuery{SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	var conns []string
	var result string
	for _, e := range evs {
		switch ev := e.Event.(type) {
		case store.NetworkConnection:
			state := "refused:" + ev.Reason
			if ev.Allowed {
				state = "allowed:" + ev.AllowedBy
			}
			conns = append(conns, fmt.Sprintf("%s %s:%d %s", ev.CallID, ev.Host, ev.Port, state))
		case store.ToolInvocationCompleted:
			result = string(ev.Result)
		}
	}
	if !strings.Contains(result, "HTTP 200") {
		t.Fatalf("the page did not load: %s", result)
	}
	if !strings.Contains(result, "network: "+other+" refused (no-approver)") || !strings.Contains(result, "To allow it") {
		t.Errorf("the model is not told which host was refused and how to allow it: %s", result)
	}
	if n := allowedHits.Load(); n < 1 {
		t.Errorf("the listed host saw %d requests, want the page's one (connections %v)", n, conns)
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the unlisted host saw %d requests from the browser", n)
	}
	want := []string{"nav " + allowed + " allowed:network-allow:" + allowed, "nav " + other + " refused:no-approver"}
	for _, w := range want {
		found := false
		for _, c := range conns {
			found = found || c == w
		}
		if !found {
			t.Errorf("no connection event %q in %v", w, conns)
		}
	}
}
