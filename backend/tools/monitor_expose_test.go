package tools

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/store"
)

// A dev server started as a monitor inside the cage is opened from the host
// through the URL monitor.start reports for its exposed port.
func TestMonitorExposesItsPort(t *testing.T) {
	mons := NewMonitors(testCage(t))
	t.Cleanup(mons.Close)
	env := testEnv(t)
	if err := os.WriteFile(filepath.Join(env.Workspace, "index.html"), []byte("dev-server-in-the-cage"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := invoke(t, NewMonitorStart(mons), env, `{"command":"python3 -m http.server 5173 --bind 127.0.0.1","expose":[5173]}`)
	if r.IsError {
		t.Fatal(text(r))
	}
	var info MonitorInfo
	if err := json.Unmarshal(r.Structured, &info); err != nil || len(info.Exposed) != 1 {
		t.Fatalf("info %+v %v", info, err)
	}
	url := info.Exposed[0].URL
	if !strings.Contains(text(r), "port 5173 of the cage is reachable at "+url) || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("the result names the URL: %s", text(r))
	}
	var body string
	eventually(t, "the dev server answers on the exposed URL", func() bool {
		c := &http.Client{Timeout: 2 * time.Second}
		resp, err := c.Get(url + "index.html")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return resp.StatusCode == 200
	})
	if body != "dev-server-in-the-cage" {
		t.Fatalf("body %q", body)
	}
	if r := invoke(t, NewMonitorStop(mons), env, `{"id":"`+info.ID+`"}`); r.IsError {
		t.Fatal(text(r))
	}
}

// A dev server whose port the model did not name: the cage finds the
// listener, the host gets a URL for it, the log records it after the
// monitor's start, and monitor.read shows it.
func TestMonitorDetectsItsPort(t *testing.T) {
	mons := NewMonitors(testCage(t))
	t.Cleanup(mons.Close)
	env := testEnv(t)
	if err := os.WriteFile(filepath.Join(env.Workspace, "index.html"), []byte("found-in-the-cage"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logged []store.Event
	env.Log = func(e store.Event) {
		mu.Lock()
		logged = append(logged, e)
		mu.Unlock()
	}
	r := invoke(t, NewMonitorStart(mons), env, `{"command":"python3 -m http.server 5182 --bind 127.0.0.1"}`)
	if r.IsError {
		t.Fatal(text(r))
	}
	var info MonitorInfo
	if err := json.Unmarshal(r.Structured, &info); err != nil {
		t.Fatal(err)
	}
	var ex store.MonitorPortExposed
	eventually(t, "the listening port is detected and recorded", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for i, e := range logged {
			if p, ok := e.(store.MonitorPortExposed); ok {
				if _, first := logged[0].(store.MonitorStarted); !first || i == 0 {
					t.Fatalf("recorded before the monitor's start: %#v", logged)
				}
				ex = p
				return true
			}
		}
		return false
	})
	if ex.MonitorID != info.ID || ex.Port != 5182 || !ex.Detected || !strings.HasPrefix(ex.URL, "http://127.0.0.1:") {
		t.Fatalf("event %+v", ex)
	}
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(ex.URL + "index.html")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "found-in-the-cage" {
		t.Fatalf("body %q", b)
	}
	lines, err := mons.Read(context.Background(), env.SessionID, info.ID, 1, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines.Info.Exposed) != 1 || lines.Info.Exposed[0].URL != ex.URL ||
		!strings.Contains(strings.Join(lines.Lines, "\n"), "listening on port 5182, reachable from the host at "+ex.URL) {
		t.Fatalf("monitor.read: %+v", lines)
	}
	if r := invoke(t, NewMonitorStop(mons), env, `{"id":"`+info.ID+`"}`); r.IsError {
		t.Fatal(text(r))
	}
}
