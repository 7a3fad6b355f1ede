package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/mcp/mcpstore"
	"github.com/warden-dev/warden/backend/mcp/mcptest"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/store"
)

// The test binary doubles as the test MCP server (mcptest) and as the
// service process the crash test kills (crash_test.go).
func TestMain(m *testing.M) {
	if mcptest.Serving() {
		os.Exit(mcptest.Main(os.Args[1:]))
	}
	if os.Getenv(crashEnv) != "" {
		os.Exit(crashMain())
	}
	os.Exit(m.Run())
}

// recorder wraps the script model and keeps the tool names each request
// offered.
type recorder struct {
	model.Provider
	mu      sync.Mutex
	offered [][]string
}

func (r *recorder) Stream(ctx context.Context, req model.Request) (model.Stream, error) {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	r.mu.Lock()
	r.offered = append(r.offered, names)
	r.mu.Unlock()
	return r.Provider.Stream(ctx, req)
}

func (r *recorder) request(i int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i >= len(r.offered) {
		return nil
	}
	return r.offered[i]
}

func scripted(t *testing.T, turns ...script.Turn) *recorder {
	t.Helper()
	return &recorder{Provider: script.New(&script.Script{Version: 1, Turns: turns, OnEnd: "done"}, script.Options{NoDelay: true})}
}

var callSeq atomic.Int64

func call(name, args string) script.Turn {
	id := fmt.Sprintf("mcp_call_%d", callSeq.Add(1))
	return script.Turn{ToolCalls: []script.Call{{ID: id, Name: name, Args: json.RawMessage(args)}}}
}

// writeMCPJSON puts the test server into a workspace's .mcp.json as "t".
func writeMCPJSON(t *testing.T, ws string, extraEnv string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := `{"` + mcptest.EnvVar + `":"1"` + extraEnv + `}`
	body := `{"mcpServers":{"t":{"command":` + jsonString(exe) + `,"args":["--ghost=false"],"env":` + env + `}}}`
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// mcpRig is a rig whose sessions reach their workspace's MCP servers.
func mcpRig(t *testing.T, prov model.Provider) *rig {
	t.Helper()
	var r *rig
	pool, err := mcp.NewPool(mcp.PoolOptions{Manager: mcp.Options{LogDir: t.TempDir(), HashKey: []byte("test-key")},
		Persistent: func(ctx context.Context, ws string) (mcp.TrustStore, error) {
			w, err := r.st.EnsureWorkspace(ctx, ws)
			if err != nil {
				return nil, err
			}
			return mcpstore.New(r.st, w.ID, ""), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	r = newRig(t, prov, func(c *rigConfig) {
		c.MCP = pool.Port()
		c.OnSessionClose = append(c.OnSessionClose, pool.EndSession)
	})
	t.Cleanup(func() { _ = pool.Close() })
	writeMCPJSON(t, r.ws, "")
	return r
}

func mcpGrants(t *testing.T, r *rig, sessionID string) []string {
	t.Helper()
	gs, err := r.svc.ListGrants(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range gs {
		if g.Kind == GrantKindMcpServer {
			if g.Reasons == nil {
				t.Errorf("grant %s has reasons null on the wire; the window maps over them", g.ID)
			}
			out = append(out, g.ID)
		}
	}
	return out
}

func lastToolText(t *testing.T, r *rig, sessionID string) string {
	t.Helper()
	evs := r.events(sessionID, store.KindMessageAppended)
	for i := len(evs) - 1; i >= 0; i-- {
		if m := evs[i].Event.(store.MessageAppended); m.Role == "tool" {
			return m.Text
		}
	}
	return ""
}

// TestMcpTrustScopes: the card names the untrusted workspace server with
// its launch command; session trust offers its tools to that session only,
// is listed and revocable; a session on another workspace and another
// session on the same workspace never see it; workspace trust persists.
func TestMcpTrustScopes(t *testing.T) {
	ctx := context.Background()
	prov := scripted(t, call("mcp-tool:t/echo", `{"text":"hello from mcp"}`), script.Turn{Text: "ok"},
		call("mcp-tool:t/echo", `{"text":"after revoke"}`), script.Turn{Text: "ok"})
	r := mcpRig(t, prov)
	a := r.session(nil)

	card, err := r.svc.McpPending(ctx, a.ID)
	if err != nil || len(card) != 1 || card[0].Name != "t" || !strings.Contains(card[0].Launch, "--ghost=false") || card[0].Source != filepath.Join(r.ws, ".mcp.json") {
		t.Fatalf("card = %+v, %v", card, err)
	}
	if err := r.svc.TrustMcpServer(ctx, TrustMcpArgs{SessionID: a.ID, Server: "t", Scope: "forever"}); err == nil {
		t.Fatal("a bad scope was accepted")
	}
	if err := r.svc.TrustMcpServer(ctx, TrustMcpArgs{SessionID: a.ID, Server: "t", Scope: McpScopeSession}); err != nil {
		t.Fatal(err)
	}
	if card, _ := r.svc.McpPending(ctx, a.ID); len(card) != 0 {
		t.Fatalf("card after trust = %+v", card)
	}
	if got := mcpGrants(t, r, a.ID); !slices.Equal(got, []string{"session:t"}) {
		t.Fatalf("grants = %v", got)
	}
	if err := r.svc.Run(ctx, a.ID, "echo please"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(prov.request(0), "mcp-tool:t/echo") {
		t.Fatalf("the model was not offered the server's tools: %v", prov.request(0))
	}
	if got := lastToolText(t, r, a.ID); !strings.Contains(got, "hello from mcp") {
		t.Fatalf("tool result = %q", got)
	}

	// Another session on the same workspace: same process, not the trust.
	same := r.session(nil)
	if card, _ := r.svc.McpPending(ctx, same.ID); len(card) != 1 {
		t.Fatal("a second session inherited the first one's session trust")
	}
	if len(mcpGrants(t, r, same.ID)) != 0 {
		t.Fatal("a second session lists the first one's session trust")
	}
	// A session on another workspace with the same .mcp.json.
	other := t.TempDir()
	other, _ = filepath.EvalSymlinks(other)
	writeMCPJSON(t, other, "")
	b := r.session(func(c *CreateSessionArgs) { c.Workspace = other })
	if card, _ := r.svc.McpPending(ctx, b.ID); len(card) != 1 || len(mcpGrants(t, r, b.ID)) != 0 {
		t.Fatal("a session on another workspace sees the first one's trust")
	}
	if got := r.svc.mcpTools(ctx, b.ID); len(got) != 0 {
		t.Fatalf("another workspace's model is offered %d MCP tools", len(got))
	}

	// Revoke the session trust: listed no more, the card is back.
	if err := r.svc.RevokeGrant(ctx, RevokeGrantArgs{ID: "session:t", Kind: GrantKindMcpServer, SessionID: a.ID}); err != nil {
		t.Fatal(err)
	}
	if got := mcpGrants(t, r, a.ID); len(got) != 0 {
		t.Fatalf("grants after revoke = %v", got)
	}
	if card, _ := r.svc.McpPending(ctx, a.ID); len(card) != 1 {
		t.Fatal("no card after revoking the session trust")
	}
	// The next call asks again.
	if err := r.svc.SendMessage(ctx, a.ID, "echo again"); err != nil {
		t.Fatal(err)
	}
	ask := r.waitPending(a.ID, 1)[0]
	if ask.Tool != "mcp-tool:t/echo" || !slices.Contains(ask.Reasons, "untrusted-mcp-server") || ask.Mcp == nil || ask.Mcp.Change != "server" {
		t.Fatalf("after revoke: ask %+v", ask)
	}
	if err := r.svc.Answer(ctx, AnswerArgs{RequestID: ask.RequestID, Answer: AnswerDeny}); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(a.ID)
	if err := r.svc.RevokeGrant(ctx, RevokeGrantArgs{ID: "session:t", Kind: GrantKindMcpServer, SessionID: a.ID}); err == nil {
		t.Fatal("revoking a missing trust succeeded")
	}

	// Workspace trust: every session of the workspace, and in the store.
	if err := r.svc.TrustMcpServer(ctx, TrustMcpArgs{SessionID: a.ID, Server: "t", Scope: McpScopeWorkspace}); err != nil {
		t.Fatal(err)
	}
	if card, _ := r.svc.McpPending(ctx, same.ID); len(card) != 0 {
		t.Fatal("workspace trust does not cover the workspace's other session")
	}
	if got := mcpGrants(t, r, same.ID); !slices.Equal(got, []string{"workspace:t"}) {
		t.Fatalf("grants = %v", got)
	}
	ss, _ := r.st.Session(ctx, a.ID)
	if _, err := r.st.McpTrust(ctx, ss.WorkspaceID, "t"); err != nil {
		t.Fatalf("workspace trust not in the store: %v", err)
	}
	if err := r.svc.RevokeGrant(ctx, RevokeGrantArgs{ID: "workspace:t", Kind: GrantKindMcpServer, SessionID: same.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.st.McpTrust(ctx, ss.WorkspaceID, "t"); err == nil {
		t.Fatal("workspace revoke left the persistent trust")
	}
	if card, _ := r.svc.McpPending(ctx, a.ID); len(card) != 1 {
		t.Fatal("no card after revoking the workspace trust")
	}

	// A voided trust (the config changed) is recorded in every top-level
	// session of that workspace only.
	before := len(r.events(b.ID, store.KindMcpServerUntrusted))
	r.svc.McpTrustVoided(r.ws, []string{"t"})
	for _, id := range []string{a.ID, same.ID} {
		evs := r.events(id, store.KindMcpServerUntrusted)
		if len(evs) == 0 || evs[len(evs)-1].Event.(store.McpServerUntrusted).Server != "t" {
			t.Fatalf("session %s: no McpServerUntrusted after the trust was voided", id)
		}
	}
	if len(r.events(b.ID, store.KindMcpServerUntrusted)) != before {
		t.Fatal("a session on another workspace got the voided trust")
	}
}

// TestMcpPromptTrustRunsTheCall: a tool that appears through
// tools/list_changed is offered at the next turn and its first call asks,
// showing its description and schema; "Trust this server" runs that very
// call. A rug-pulled tool is withheld from the model, and its prompt shows
// the trusted and the new description.
func TestMcpPromptTrustRunsTheCall(t *testing.T) {
	ctx := context.Background()
	prov := scripted(t,
		call("mcp-tool:t/control", `{"action":"add-ghost"}`),
		call("mcp-tool:t/ghost", `{}`),
		call("mcp-tool:t/control", `{"action":"rug-pull"}`),
		call("mcp-tool:t/echo", `{"text":"x"}`),
		script.Turn{Text: "ok"})
	r := mcpRig(t, prov)
	a := r.session(nil)
	if err := r.svc.TrustMcpServer(ctx, TrustMcpArgs{SessionID: a.ID, Server: "t", Scope: McpScopeSession}); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(r.svc.specNames(ctx, a.ID), "mcp-tool:t/ghost") {
		t.Fatal("ghost offered before it exists")
	}
	if err := r.svc.SendMessage(ctx, a.ID, "go"); err != nil {
		t.Fatal(err)
	}

	ask := r.waitPending(a.ID, 1)[0]
	if !slices.Contains(prov.request(1), "mcp-tool:t/ghost") {
		t.Fatalf("the new tool was not offered at the next turn: %v", prov.request(1))
	}
	if ask.Tool != "mcp-tool:t/ghost" || ask.Mcp == nil || ask.Mcp.Change != "new" ||
		ask.Mcp.Description != "A tool that comes and goes." || !strings.Contains(ask.Mcp.Schema, `"type": "object"`) {
		t.Fatalf("new-tool ask = %+v mcp %+v", ask, ask.Mcp)
	}
	if err := r.svc.Answer(ctx, AnswerArgs{RequestID: ask.RequestID, Answer: AnswerOnce, TrustServer: "session"}); err != nil {
		t.Fatal(err)
	}

	ask = r.waitPending(a.ID, 1)[0]
	if got := r.events(a.ID, store.KindToolInvocationCompleted); len(got) < 2 {
		t.Fatalf("the trusted-at-prompt call did not run (%d completed calls): %q", len(got), lastToolText(t, r, a.ID))
	}
	if !slices.Contains(r.toolTexts(a.ID), "boo") {
		t.Fatalf("ghost's result is missing: %v", r.toolTexts(a.ID))
	}
	if slices.Contains(prov.request(3), "mcp-tool:t/echo") {
		t.Fatal("the rug-pulled echo was offered to the model with its new text")
	}
	if ask.Tool != "mcp-tool:t/echo" || ask.Mcp == nil || ask.Mcp.Change != "changed" ||
		ask.Mcp.OldDescription != mcptest.EchoDescription || ask.Mcp.Description != mcptest.RugPullDescription ||
		!strings.Contains(ask.Mcp.DescriptionDiff, "+IMPORTANT") {
		t.Fatalf("rug-pull ask = %+v", ask.Mcp)
	}
	if err := r.svc.Answer(ctx, AnswerArgs{RequestID: ask.RequestID, Answer: AnswerDeny}); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(a.ID)
}

// specNames is the tool names a session's model would be offered now.
func (s *Service) specNames(ctx context.Context, sessionID string) []string {
	var out []string
	for _, sp := range s.specs(ctx, sessionID, 0) {
		out = append(out, sp.Name)
	}
	return out
}

func (r *rig) toolTexts(sessionID string) []string {
	var out []string
	for _, e := range r.events(sessionID, store.KindMessageAppended) {
		if m := e.Event.(store.MessageAppended); m.Role == "tool" {
			out = append(out, m.Text)
		}
	}
	return out
}
