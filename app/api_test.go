package app

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
)

// recorder collects what the app would push to the window.
type recorder struct {
	mu     sync.Mutex
	pushes []runtime.Push
}

func (r *recorder) emit(_ context.Context, name string, data ...interface{}) {
	if name != PushEvent || len(data) != 1 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pushes = append(r.pushes, data[0].(runtime.Push))
}

func (r *recorder) waitKind(t *testing.T, kind string) runtime.Event {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		for _, p := range r.pushes {
			if p.Event != nil && string(p.Event.Kind) == kind {
				r.mu.Unlock()
				return *p.Event
			}
		}
		r.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range r.pushes {
		if p.Event != nil {
			t.Logf("pushed %s %s", p.Event.Kind, p.Event.Data)
		}
	}
	t.Fatalf("no %s event pushed to the window", kind)
	return runtime.Event{}
}

// The window's API is the runtime's: a session made through the bound
// methods runs a `!` command through the gate and the cage, and every event
// reaches the window as a push.
func TestBoundAPIDrivesTheRuntime(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := assemble.Open(ctx, assemble.Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	rec := &recorder{}
	a := New(Options{Version: "9.9.9", Service: g.Service})
	a.emit = rec.emit
	Attach(ctx, a)

	info, err := a.Info()
	if err != nil || info.Version != "9.9.9" || !info.Demo {
		t.Fatalf("Info = %+v, %v; want version 9.9.9 on the demo model", info, err)
	}
	ws := t.TempDir()
	s, err := a.CreateSession(runtime.CreateSessionArgs{Workspace: ws, Title: "bound"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SendMessage(SendMessageArgs{SessionID: s.ID, Text: "!echo bound-api-works > out.txt && cat out.txt"}); err != nil {
		t.Fatal(err)
	}
	done := rec.waitKind(t, "tool_invocation_completed")
	if !strings.Contains(string(done.Data), "bound-api-works") {
		t.Fatalf("completed event lacks the output: %s", done.Data)
	}
	granted := rec.waitKind(t, "permission_granted")
	var g1 struct{ Source string }
	_ = json.Unmarshal(granted.Data, &g1)
	if g1.Source != "sandbox+policy" {
		t.Fatalf("source = %q, want sandbox+policy", g1.Source)
	}

	ro := runtime.Sandbox{Kind: policy.ReadOnly, WritableRoots: []string{}}
	s2, err := a.SetSandboxPolicy(SetSandboxArgs{SessionID: s.ID, Sandbox: ro})
	if err != nil || s2.Sandbox.Kind != policy.ReadOnly {
		t.Fatalf("SetSandboxPolicy = %+v, %v", s2, err)
	}
	rec.waitKind(t, "sandbox_policy_changed")
	evs, err := a.AuditLog(AuditLogArgs{SessionID: s.ID})
	if err != nil || len(evs) == 0 {
		t.Fatalf("AuditLog = %d events, %v", len(evs), err)
	}
}

func TestUnconnectedAppSaysSo(t *testing.T) {
	a := New(Options{Version: "1"})
	if _, err := a.ListSessions(); err != ErrNotConnected {
		t.Fatalf("ListSessions err = %v, want ErrNotConnected", err)
	}
	if err := a.SendMessage(SendMessageArgs{SessionID: "x", Text: "hi"}); err != ErrNotConnected {
		t.Fatalf("SendMessage err = %v, want ErrNotConnected", err)
	}
}

// The Settings screen's bound methods reach settings.Service: a save
// through the window switches the model Info reports.
func TestBoundSettingsMethods(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	g, err := assemble.Open(context.Background(), assemble.Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	a := New(Options{Version: "1", Service: g.Service, Settings: g.Settings})
	got, err := a.SaveModelSettings(settings.ModelArgs{Provider: "openai", Model: "qwen2.5-coder", BaseURL: "http://127.0.0.1:11434/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if got.ConfigPath != filepath.Join(cfg, "warden", "config.toml") || got.Model.Provider != "openai" {
		t.Errorf("settings %+v", got)
	}
	info, err := a.Info()
	if err != nil || info.Model != "openai:qwen2.5-coder" || info.Demo {
		t.Errorf("Info after the save: %+v %v", info, err)
	}
	if _, err := a.SaveModelSettings(settings.ModelArgs{Provider: "gemini"}); !errors.Is(err, settings.ErrInvalid) {
		t.Errorf("bad provider: %v", err)
	}
	if _, err := New(Options{}).GetSettings(); !errors.Is(err, ErrNotConnected) {
		t.Errorf("unconnected GetSettings: %v", err)
	}
}
