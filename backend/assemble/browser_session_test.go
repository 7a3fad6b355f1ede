package assemble

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

const formPage = `<!doctype html><title>Sign up</title>
<form action="/done" method="get"><input id="name" name="name"><button id="submit">Send</button></form>`

// A session asks the model to open a local page, fill a form, submit it and
// screenshot the result: the loopback page runs without a prompt, an outside
// origin is refused by the sandbox with its remedy, and the screenshot is an
// image in the stored result the chat renders.
func TestBrowserSessionEndToEnd(t *testing.T) {
	isolate(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/done" {
			fmt.Fprintf(w, "<!doctype html><title>Done</title><h1>Thanks, %s</h1>", strings.ReplaceAll(r.URL.Query().Get("name"), "<", ""))
			return
		}
		fmt.Fprint(w, formPage)
	}))
	defer site.Close()

	call := func(id string, args map[string]any) map[string]any {
		return map[string]any{"tool_calls": []any{map[string]any{"id": id, "name": "browser.action", "args": args}}}
	}
	turns := []any{
		call("nav", map[string]any{"action": "navigate", "url": site.URL + "/"}),
		call("fill", map[string]any{"action": "fill", "selector": "#name", "value": "Ada"}),
		call("click", map[string]any{"action": "click", "selector": "#submit"}),
		call("wait", map[string]any{"action": "wait_for", "text": "Thanks, Ada"}),
		call("shot", map[string]any{"action": "screenshot"}),
		call("away", map[string]any{"action": "navigate", "url": "https://example.com/"}),
		map[string]any{"text": "Submitted the form and took a screenshot."},
	}
	scriptJSON, _ := json.Marshal(map[string]any{"version": 1, "turns": turns})
	scriptPath := filepath.Join(t.TempDir(), "browser.json")
	if err := os.WriteFile(scriptPath, scriptJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Model: "script:" + scriptPath, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	s, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: t.TempDir(), Title: "browser"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Service.Run(ctx, s.ID, "open the local sign-up page, submit the form as Ada and show me the result"); err != nil {
		t.Fatal(err)
	}
	evs, err := g.Store.Events(ctx, store.EventQuery{SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	completed := map[string]json.RawMessage{}
	var denied []string
	for _, e := range evs {
		switch ev := e.Event.(type) {
		case store.ToolInvocationCompleted:
			completed[ev.CallID] = ev.Result
		case store.PermissionDenied:
			denied = append(denied, fmt.Sprintf("%s %s %s", ev.CallID, ev.Reason, ev.Remedy))
		}
	}
	for _, id := range []string{"nav", "fill", "click", "wait", "shot"} {
		if _, ok := completed[id]; !ok {
			for _, e := range evs {
				t.Logf("%s %.300s", e.Kind, e.Payload)
			}
			t.Fatalf("call %s did not complete; completed %v, denied %v", id, keys(completed), denied)
		}
	}
	var shot struct {
		Content []struct {
			Type string
			Data []byte
		}
	}
	if err := json.Unmarshal(completed["shot"], &shot); err != nil {
		t.Fatal(err)
	}
	var img []byte
	for _, c := range shot.Content {
		if c.Type == "image" {
			img = c.Data
		}
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil || cfg.Width < 100 || cfg.Height < 100 {
		t.Fatalf("screenshot is not a page-sized PNG: %v %+v", err, cfg)
	}
	if len(denied) != 1 || !strings.HasPrefix(denied[0], "away sandbox-rejected") || !strings.Contains(strings.ToLower(denied[0]), "network") {
		t.Fatalf("the outside origin should be refused by the sandbox with a network remedy; denied = %q", denied)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
