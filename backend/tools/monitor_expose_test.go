package tools

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
