//go:build !wardenslim

package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolRunsEveryRuntimeTool: `warden tool` opens the same graph as the
// runtime, so the browser (a real Chromium) and an MCP server (the real
// server-everything) are tools it can run, not "unknown tool".
func TestToolRunsEveryRuntimeTool(t *testing.T) {
	everything, err := filepath.Abs(filepath.Join("..", "..", "testdeps", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(everything); err != nil {
		t.Fatalf("server-everything is not installed: run `npm ci --prefix testdeps` (%v)", err)
	}
	isolateHome(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "w.db")
	mcpJSON := fmt.Sprintf(`{"mcpServers":{"everything":{"command":%q,"args":["stdio"]}}}`, everything)
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(mcpJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Parity</title><h1 id="greeting">hello from the local site</h1>`)
	}))
	defer site.Close()

	// A workspace server runs only once trusted.
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"mcp", "trust", "everything", "--workspace", ws, "--db", db},
		stdio{in: strings.NewReader(""), out: &out, err: &errb}); code != 0 {
		t.Fatalf("mcp trust: exit %d %s", code, errb.String())
	}
	cases := []struct {
		name, tool, args, text string
	}{
		{"browser.batch on a loopback page", "browser.batch",
			`{"actions":[{"action":"navigate","url":"` + site.URL + `/"},{"action":"get_text","selector":"#greeting"}]}`, "hello from the local site"},
		{"browser.action", "browser.action", `{"action":"navigate","url":"` + site.URL + `/"}`, "Parity"},
		{"a trusted MCP tool by its tool name", "mcp-tool:everything/echo", `{"message":"hi from warden tool"}`, "hi from warden tool"},
		{"a trusted MCP tool by the model's name", "mcp__everything__get-sum", `{"a":2,"b":3}`, "5"},
		{"a planning tool of the runtime", "write_plan", `{"plan":"1. look"}`, "Plan saved"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runToolCLI(t, tc.tool, "--workspace", ws, "--db", db, "--args", tc.args)
			if r.code != 0 || r.out.Decision == nil || r.out.Decision.Verdict != "allow" {
				t.Fatalf("exit %d, stderr %q, decision %+v, result %+v", r.code, r.stderr, r.out.Decision, r.out.Result)
			}
			var text strings.Builder
			for _, c := range r.out.Result.Content {
				text.WriteString(c.Text)
			}
			if !strings.Contains(text.String(), tc.text) {
				t.Errorf("result %q, want it to contain %q", text.String(), tc.text)
			}
			if got := toolEventKinds(t, db, r.out.SessionID); !strings.HasSuffix(got, "tool_invocation_completed") {
				t.Errorf("events %s", got)
			}
		})
	}
}
