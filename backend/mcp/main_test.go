package mcp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/mcp/internal/testserver"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// The test binary doubles as the Go test MCP server: run with
// WARDEN_MCP_TESTSERVER=1 it serves MCP on stdin/stdout instead of testing.
func TestMain(m *testing.M) {
	if os.Getenv("WARDEN_MCP_TESTSERVER") == "1" {
		os.Exit(testserver.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// goServer configures the test server under name with the given flags.
func goServer(t *testing.T, name string, flags ...string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Name: name, Command: exe, Args: flags, Env: map[string]string{"WARDEN_MCP_TESTSERVER": "1"}, Source: "test"}
}

// fakeClock is a settable clock for backoff tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newTestManager(t *testing.T, opts Options, servers ...ServerConfig) *Manager {
	t.Helper()
	opts.Config.Servers = map[string]ServerConfig{}
	for _, s := range servers {
		opts.Config.Servers[s.Name] = s
	}
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	m, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func lookup(t *testing.T, m *Manager, name string) *ToolAdapter {
	t.Helper()
	a, ok := m.Lookup(name)
	if !ok {
		t.Fatalf("tool %s not found", name)
	}
	return a
}

func invoke(t *testing.T, a *ToolAdapter, args string) tools.Result {
	t.Helper()
	res, err := a.Invoke(context.Background(), json.RawMessage(args), tools.Env{})
	if err != nil {
		t.Fatalf("%s: Invoke error: %v", a.Name(), err)
	}
	return res
}

func resultText(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func effect(t *testing.T, a *ToolAdapter, args string) policy.Effect {
	t.Helper()
	effs, err := a.Effects(json.RawMessage(args), tools.Env{})
	if err != nil {
		t.Fatalf("%s: Effects: %v", a.Name(), err)
	}
	if len(effs) != 1 || effs[0].Kind != policy.EffectMcp {
		t.Fatalf("%s: effects = %+v, want one mcp effect", a.Name(), effs)
	}
	return effs[0]
}

// waitFor polls cond for up to 10s: list_changed is asynchronous.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func toolStatus(m *Manager, server, tool string) (ToolStatus, bool) {
	for _, s := range m.Status(context.Background()) {
		if s.Name != server {
			continue
		}
		for _, ts := range s.Tools {
			if ts.Name == tool {
				return ts, true
			}
		}
	}
	return ToolStatus{}, false
}

// resultView summarises a result's parts for assertions.
type resultView struct {
	images     int
	imageMime  string
	imageBytes int
	imageHead  []byte
	structured json.RawMessage
}

func view(r tools.Result) resultView {
	v := resultView{structured: r.Structured}
	for _, c := range r.Content {
		if c.Type == "image" {
			v.images++
			v.imageMime, v.imageBytes = c.MimeType, len(c.Data)
			v.imageHead = c.Data[:min(8, len(c.Data))]
		}
	}
	return v
}

// waitCh closes after 10s.
func waitCh(t *testing.T) <-chan time.Time {
	t.Helper()
	return time.After(10 * time.Second)
}
