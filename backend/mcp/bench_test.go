package mcp

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/warden-dev/warden/backend/tools"
)

// BenchmarkEffects is the gate's cost per MCP call: schema validation plus
// the trust lookup.
func BenchmarkEffects(b *testing.B) {
	m := newBenchManager(b)
	if err := m.Trust(context.Background(), "t", TrustSession); err != nil {
		b.Fatal(err)
	}
	a, _ := m.Lookup("mcp-tool:t/echo")
	args := json.RawMessage(`{"text":"hello"}`)
	b.ResetTimer()
	for b.Loop() {
		if effs, err := a.Effects(args, tools.Env{}); err != nil || !effs[0].Trusted {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallEcho is one tools/call round trip to a stdio server.
func BenchmarkCallEcho(b *testing.B) {
	m := newBenchManager(b)
	a, _ := m.Lookup("mcp-tool:t/echo")
	args := json.RawMessage(`{"text":"hello"}`)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if r, err := a.Invoke(ctx, args, tools.Env{}); err != nil || r.IsError {
			b.Fatal(err, r)
		}
	}
}

func newBenchManager(b *testing.B) *Manager {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cfg := ServerConfig{Name: "t", Command: exe, Env: map[string]string{"WARDEN_MCP_TESTSERVER": "1"}, Source: "bench"}
	m, err := NewManager(Options{Config: Config{Servers: map[string]ServerConfig{"t": cfg}}, LogDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Close() })
	if err := m.Start(context.Background(), "t"); err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkOffered is the per-turn cost of building one session's MCP tool
// list from a running, trusted server (trust lookups and rug-pull checks
// for every tool), no call in flight.
func BenchmarkOffered(b *testing.B) {
	m := newBenchManager(b)
	ctx := context.Background()
	if err := m.TrustFor(ctx, "S", "t", TrustSession); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if len(m.Offered(ctx, "S")) == 0 {
			b.Fatal("nothing offered")
		}
	}
}
