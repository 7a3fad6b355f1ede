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
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// The model starts a dev server as a monitor in the cage, on a port it does
// not name (python picks one); Warden finds the listener in the cage and
// exposes it on a host loopback port (monitor_port_exposed), and the browser
// tool, a real Chromium on the host, opens that URL and reads the page the
// cage serves. Meanwhile a caged command, with network on and approval
// never, cannot reach a service on the host's loopback: not directly (the
// cage's loopback is its own) and not through the proxy (a private address
// nobody listed); the service sees no request at all.
//
// A scripted model cannot know the exposed URL in advance, so its navigate
// goes to a loopback page of this test that redirects to the URL Warden
// recorded, as a model would read it from the notice it is given.
func TestCagedDevServerInTheBrowser(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	const page = "served from inside the cage"
	if err := os.WriteFile(filepath.Join(ws, "index.html"),
		[]byte("<!doctype html><title>Cage dev</title><h1 id=msg>"+page+"</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	var hostHits atomic.Int32
	hostSvc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hostHits.Add(1)
		fmt.Fprint(w, "host-only service")
	}))
	defer hostSvc.Close()
	hostPort := hostSvc.Listener.Addr().(*net.TCPAddr).Port

	var g *Graph
	var sessionID atomic.Value
	exposed := func(ctx context.Context) (store.MonitorPortExposed, bool) {
		id, _ := sessionID.Load().(string)
		evs, err := g.Store.Events(ctx, store.EventQuery{SessionID: id})
		if err != nil {
			return store.MonitorPortExposed{}, false
		}
		for _, e := range evs {
			if ev, ok := e.Event.(store.MonitorPortExposed); ok && ev.Detected {
				return ev, true
			}
		}
		return store.MonitorPortExposed{}, false
	}
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deadline := time.Now().Add(50 * time.Second)
		for time.Now().Before(deadline) {
			if ev, ok := exposed(r.Context()); ok {
				http.Redirect(w, r, ev.URL, http.StatusFound)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		http.Error(w, "no port of the dev server was exposed", http.StatusGatewayTimeout)
	}))
	defer redirector.Close()

	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"tool_calls": []any{map[string]any{"id": id, "name": name, "args": args}}}
	}
	probe := fmt.Sprintf(`curl -sS --max-time 5 http://127.0.0.1:%[1]d/ >/dev/null 2>&1 && echo "direct: reached" || echo "direct: refused"
curl -sS --max-time 5 --noproxy '' -o /dev/null -w 'via proxy: %%{http_code}\n' http://127.0.0.1:%[1]d/`, hostPort)
	turns := []any{
		call("dev", "monitor.start", map[string]any{"command": "exec python3 -m http.server 0 --bind 127.0.0.1"}),
		call("probe", "shell.exec", map[string]any{"command": probe}),
		call("nav", "browser.action", map[string]any{"action": "navigate", "url": redirector.URL + "/dev", "timeout_ms": 60000}),
		call("read", "browser.action", map[string]any{"action": "get_text", "selector": "#msg"}),
		map[string]any{"text": "The dev server is up."},
	}
	scriptJSON, _ := json.Marshal(map[string]any{"version": 1, "turns": turns})
	scriptPath := filepath.Join(t.TempDir(), "devserver.json")
	if err := os.WriteFile(scriptPath, scriptJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var err error
	g, err = Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Model: "script:" + scriptPath, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.Cage.Proxied(policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}) {
		// The cage is a required part here (make deps installs bwrap), as in
		// every other cage test: never a quiet pass.
		t.Fatal("no bwrap cage with its own network here: " + g.CageStatus.Reason)
	}
	never := policy.Never
	s, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: ws, Title: "dev server",
		Approval: &never, Sandbox: &runtime.Sandbox{Kind: policy.WorkspaceWrite, NetworkAccess: true}})
	if err != nil {
		t.Fatal(err)
	}
	sessionID.Store(s.ID)
	if err := g.Service.Run(ctx, s.ID, "start the dev server and show me its page"); err != nil {
		t.Fatal(err)
	}
	evs, err := g.Store.Events(ctx, store.EventQuery{SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, e := range evs {
		if ev, ok := e.Event.(store.ToolInvocationCompleted); ok {
			results[ev.CallID] = string(ev.Result)
		}
	}
	dump := func() {
		for _, e := range evs {
			t.Logf("%s %.400s", e.Kind, e.Payload)
		}
	}
	for _, id := range []string{"dev", "probe", "nav", "read"} {
		if _, ok := results[id]; !ok {
			dump()
			t.Fatalf("call %s did not complete", id)
		}
	}
	t.Logf("probe: %.300s\nnav: %.300s\nread: %.300s", results["probe"], results["nav"], results["read"])
	ev, ok := exposed(ctx)
	if !ok || ev.Port == 0 || !strings.HasPrefix(ev.URL, "http://127.0.0.1:") {
		dump()
		t.Fatalf("no detected port was exposed: %+v", ev)
	}
	if !strings.Contains(results["nav"], strings.TrimSuffix(strings.TrimPrefix(ev.URL, "http://"), "/")) {
		t.Errorf("the browser did not end on the exposed URL %s: %s", ev.URL, results["nav"])
	}
	if !strings.Contains(results["read"], page) {
		t.Errorf("the browser did not read the cage's page: %s", results["read"])
	}
	if !strings.Contains(results["probe"], "direct: refused") || !strings.Contains(results["probe"], "via proxy: 403") {
		t.Errorf("the caged command reached the host's loopback service: %s", results["probe"])
	}
	if n := hostHits.Load(); n != 0 {
		t.Errorf("the host's loopback service saw %d requests from the cage", n)
	}
}
