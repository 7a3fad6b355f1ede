package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// newSite serves testdata pages plus /submit (echoes the form) and /slow.
func newSite(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata")))
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>Thanks</title><p id=result>Thanks, %s: %s</p>",
			html.EscapeString(r.FormValue("name")), html.EscapeString(r.FormValue("colour")))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// newManager starts nothing; the first action launches chromium.
func newManager(t testing.TB) *Manager {
	t.Helper()
	m := NewManager(Options{DriverDir: sharedDriverDir, ActionTimeout: 2 * time.Second})
	t.Cleanup(func() {
		if err := m.Shutdown(); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return m
}

var sharedDriverDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "warden-driver-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDriverDir = dir + "/driver"
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var offline = tools.Env{SessionID: "s1", Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}}

// call runs one browser.action and fails the test on a Go error.
func call(t testing.TB, tool tools.Tool, env tools.Env, args string) tools.Result {
	t.Helper()
	res, err := tool.Invoke(context.Background(), json.RawMessage(args), env)
	if err != nil {
		t.Fatalf("%s %s: %v", tool.Name(), args, err)
	}
	return res
}

func text(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func mustOK(t testing.TB, r tools.Result) {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error result: %s", text(r))
	}
}

func TestFormFlow(t *testing.T) {
	site := newSite(t)
	act := NewActionTool(newManager(t))
	steps := []struct{ name, args, want string }{
		{"navigate", `{"action": "navigate", "url": "` + site.URL + `/form.html"}`, "HTTP 200"},
		{"read heading", `{"action": "get_text", "selector": "h1"}`, "Order"},
		{"fill name", `{"action": "fill", "selector": "#name", "value": "Ann"}`, "filled #name"},
		{"select colour", `{"action": "select", "selector": "#colour", "value": "blue"}`, "blue"},
		{"hover", `{"action": "hover", "selector": "#hover-target"}`, "hovering"},
		{"hover took effect", `{"action": "get_text", "selector": "#hover-target"}`, "hovered"},
		{"press into field", `{"action": "press", "selector": "#keys", "key": "Enter"}`, "pressed Enter"},
		{"submit", `{"action": "click", "selector": "#send"}`, "clicked #send"},
		{"wait for result", `{"action": "wait_for", "text": "Thanks, Ann"}`, "is visible"},
		{"read result", `{"action": "get_text", "selector": "#result"}`, "Thanks, Ann: blue"},
		{"whole page text", `{"action": "get_text"}`, "Thanks, Ann: blue"},
	}
	for _, s := range steps {
		res := call(t, act, offline, s.args)
		mustOK(t, res)
		if !strings.Contains(text(res), s.want) {
			t.Fatalf("%s: result %q does not contain %q", s.name, text(res), s.want)
		}
	}
	if !strings.Contains(text(call(t, act, offline, `{"action": "get_text"}`)), `title "Thanks"`) {
		t.Errorf("results should name the page title")
	}
}

func TestScreenshot(t *testing.T) {
	site := newSite(t)
	act := NewActionTool(newManager(t))
	mustOK(t, call(t, act, offline, `{"action": "navigate", "url": "`+site.URL+`/tall.html"}`))
	cases := []struct {
		name          string
		args          string
		width, height int
	}{
		{"viewport", `{"action": "screenshot"}`, 1280, 720},
		{"full page", `{"action": "screenshot", "full_page": true}`, 1280, 3000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, act, offline, c.args)
			mustOK(t, res)
			if len(res.Content) != 2 || res.Content[1].Type != "image" || res.Content[1].MimeType != "image/png" {
				t.Fatalf("want a text and a PNG image part, got %+v", res.Content)
			}
			img, err := png.Decode(bytes.NewReader(res.Content[1].Data))
			if err != nil {
				t.Fatalf("screenshot is not a PNG: %v", err)
			}
			if b := img.Bounds(); b.Dx() != c.width || b.Dy() != c.height {
				t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), c.width, c.height)
			}
			// The gradient ends in blue: the page really was rendered.
			if c.height == 3000 {
				r, g, b, _ := img.At(10, 2990).RGBA()
				if b>>8 < 200 || r>>8 > 50 || g>>8 > 50 {
					t.Errorf("bottom of the page is %d,%d,%d, want blue", r>>8, g>>8, b>>8)
				}
			}
		})
	}
}
