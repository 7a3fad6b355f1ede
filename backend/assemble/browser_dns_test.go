package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/cage/netproxy/dnstest"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// The browser's egress decides a name before anything resolves it: a real
// Chromium loads a loopback page that pulls in resources from a host the
// [network] deny list refuses, from one whose ask nobody answers
// (headless) and from one listed exactly. A DNS server on loopback, the
// only resolver Warden's proxy uses here, sees a query for the listed one
// only; the others are refused by name and never looked up.
func TestBrowserDecidesNamesBeforeResolving(t *testing.T) {
	isolate(t)
	port, hits := counted(t, "resource")
	dns := dnstest.Start(t, map[string]string{
		"denied.example": "127.0.0.1", "nobody.example": "127.0.0.1", "allowed.example": "127.0.0.1",
	})
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>names</title><h1>three hosts</h1>
<img src="http://denied.example:%[1]d/a.png"><img src="http://nobody.example:%[1]d/b.png"><img src="http://allowed.example:%[1]d/c.png">`, port)
	}))
	defer page.Close()
	call := map[string]any{"tool_calls": []any{map[string]any{"id": "nav", "name": "browser.action",
		"args": map[string]any{"action": "navigate", "url": page.URL + "/"}}}}
	scriptJSON, _ := json.Marshal(map[string]any{"version": 1, "turns": []any{call, map[string]any{"text": "Loaded."}}})
	scriptPath := filepath.Join(t.TempDir(), "names.json")
	if err := os.WriteFile(scriptPath, scriptJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	allowed, err := policy.ParseHostPattern(fmt.Sprintf("allowed.example:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Model: "script:" + scriptPath, Headless: true,
		AllowHosts: []policy.HostPattern{allowed}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	rules, err := policy.ParseHostRules([]string{allowed.String()}, []string{"denied.example"})
	if err != nil {
		t.Fatal(err)
	}
	g.Service.SetNetwork(gate.NetworkConfig{Rules: rules, Resolve: dns.Resolve})
	onRequest := policy.OnRequest
	s, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: t.TempDir(), Title: "names",
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
				state = "allowed"
			}
			conns = append(conns, ev.Host+" "+state)
		case store.ToolInvocationCompleted:
			result = string(ev.Result)
		}
	}
	if !strings.Contains(result, "HTTP 200") {
		t.Fatalf("the page did not load: %s", result)
	}
	for _, name := range []string{"denied.example", "nobody.example"} {
		if dns.Asked(name) {
			t.Errorf("the DNS listener saw a query for %s (queries %v; connections %v)", name, dns.Queries(), conns)
		}
	}
	if !dns.Asked("allowed.example") {
		t.Errorf("the listed host was never looked up: the test's resolver is not the one in use (queries %v; connections %v)", dns.Queries(), conns)
	}
	if hits.Load() != 1 {
		t.Errorf("the resource server saw %d requests, want the listed host's one (connections %v)", hits.Load(), conns)
	}
	for _, want := range []string{"denied.example refused:host-denied", "nobody.example refused:no-approver", "allowed.example allowed"} {
		found := false
		for _, c := range conns {
			found = found || c == want
		}
		if !found {
			t.Errorf("no connection event %q in %v", want, conns)
		}
	}
}
