package mcpstore

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/mcp/internal/testserver"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// The test binary doubles as the Go test MCP server.
func TestMain(m *testing.M) {
	if os.Getenv("WARDEN_MCP_TESTSERVER") == "1" {
		os.Exit(testserver.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func manager(t *testing.T, trust mcp.TrustStore) *mcp.Manager {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcp.ServerConfig{Name: "t", Command: exe, Env: map[string]string{"WARDEN_MCP_TESTSERVER": "1"}, Source: "test"}
	m, err := mcp.NewManager(mcp.Options{
		Config:     mcp.Config{Servers: map[string]mcp.ServerConfig{"t": cfg}},
		Persistent: trust,
		LogDir:     t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	if len(m.Tools(context.Background())) == 0 {
		t.Fatalf("no tools: %+v", m.Status(context.Background()))
	}
	return m
}

func trusted(t *testing.T, m *mcp.Manager, name string) bool {
	t.Helper()
	a, ok := m.Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	effs, err := a.Effects(json.RawMessage(`{"text":"x"}`), tools.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return effs[0].Trusted
}

// TestPersistentTrustInSQLite: trust given by one manager survives closing
// the database and is seen by the next; the description diff comes back
// from the store; revoking removes the row and its descriptions and leaves
// events in the session.
func TestPersistentTrustInSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warden.db")
	st, err := store.Open(ctx, path, storetest.KeyFor(path))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.CreateSession(ctx, store.NewSession{Workspace: t.TempDir(), Title: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	first := manager(t, New(st, sess.WorkspaceID, sess.ID))
	if trusted(t, first, "mcp-tool:t/echo") {
		t.Fatal("trusted before any trust")
	}
	if err := first.Trust(ctx, "t", mcp.TrustPersistent); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st, err = store.Open(ctx, path, storetest.KeyFor(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	second := manager(t, New(st, sess.WorkspaceID, ""))
	if !trusted(t, second, "mcp-tool:t/echo") {
		t.Fatalf("persistent trust lost across a reopen: %+v", second.Status(ctx))
	}
	control, _ := second.Lookup("mcp-tool:t/control")
	if _, err := control.Invoke(ctx, json.RawMessage(`{"action":"rug-pull"}`), tools.Env{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for trusted(t, second, "mcp-tool:t/echo") {
		if time.Now().After(deadline) {
			t.Fatal("still trusted after the rug pull")
		}
		time.Sleep(20 * time.Millisecond)
	}
	old, cur, err := second.TrustDiff(ctx, "t", "echo")
	if err != nil || old != testserver.EchoDescription || cur != testserver.RugPullDescription {
		t.Fatalf("TrustDiff from the store = %q, %q, %v", old, cur, err)
	}

	if err := second.Untrust(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.McpTrust(ctx, sess.WorkspaceID, "t"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("trust row after Untrust: %v", err)
	}
	if _, err := st.GetMemory(ctx, sess.WorkspaceID, DescriptionNamespace, "t"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("descriptions after Untrust: %v", err)
	}
	if err := second.Untrust(ctx, "t"); err != nil {
		t.Fatalf("a second Untrust: %v", err)
	}
	evs, err := st.Events(ctx, store.EventQuery{SessionID: sess.ID, Kinds: []store.Kind{store.KindMcpServerTrusted}})
	if err != nil || len(evs) != 1 {
		t.Fatalf("trusted events = %d, %v", len(evs), err)
	}
	if ev, ok := evs[0].Event.(store.McpServerTrusted); !ok || ev.Server != "t" || !ev.Persistent || len(ev.ToolHashes) == 0 {
		t.Fatalf("event = %+v", evs[0].Event)
	}
}
