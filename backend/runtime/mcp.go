package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
	"github.com/warden-dev/warden/backend/mcp/mcpport"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// MCP in the runtime: every session reaches the MCP servers of its own
// workspace through Config.MCP (one manager per workspace, made on first
// use), and decides their calls on its own trust. A subagent uses its root
// session's trust: the human trusted the server for the conversation.

// mcpLookupTimeout bounds the trust-store reads of a prompt's MCP details.
const mcpLookupTimeout = 5 * time.Second

// Trust scopes of TrustMcpServer and of an "mcp-server" grant.
const (
	McpScopeSession   = "session"
	McpScopeWorkspace = "workspace"
)

// GrantKindMcpServer is the ListGrants kind of an MCP server trust.
const GrantKindMcpServer = "mcp-server"

// TrustMcpArgs trusts an MCP server of a session's workspace.
type TrustMcpArgs struct {
	SessionID string `json:"session_id"`
	Server    string `json:"server"`
	Scope     string `json:"scope" ts:"GrantScope"`
}

// McpPendingServer is one server of a session's workspace that the session
// has not trusted: what the trust card shows. Every text is escaped for
// display (it comes from a file in the repository).
type McpPendingServer struct {
	Name      string   `json:"name"`
	Source    string   `json:"source"`
	Transport string   `json:"transport" ts:"McpTransport"`
	Launch    string   `json:"launch"` // the full command line, or the URL
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
	EnvNames  []string `json:"env_names,omitempty"`
	Workspace string   `json:"workspace"`
	// Changed: it was trusted, but its launch config changed since.
	Changed bool `json:"changed,omitempty"`
}

// mcpFor returns the manager of a session's workspace and whose trust its
// calls use (the root session's), or nil when MCP is not configured.
func (s *Service) mcpFor(ctx context.Context, sessionID string) (mcpport.Servers, string, error) {
	if s.cfg.MCP == nil {
		return nil, "", nil
	}
	ss, err := s.st.Session(ctx, sessionID)
	if err != nil {
		return nil, "", err
	}
	owner := ss
	for depth := 0; owner.ParentID != "" && depth < 32; depth++ {
		if owner, err = s.st.Session(ctx, owner.ParentID); err != nil {
			return nil, "", fmt.Errorf("parent of %s: %w", ss.ID, err)
		}
	}
	m, err := s.cfg.MCP.For(ctx, ss.Workspace)
	if err != nil {
		return nil, "", err
	}
	return m, owner.ID, nil
}

// mcpTools is what the session's model is offered from MCP at this turn
// (mcpport.Servers.Offered). A failure leaves MCP out of the turn, never the
// whole turn.
func (s *Service) mcpTools(ctx context.Context, sessionID string) []tools.Tool {
	m, owner, err := s.mcpFor(ctx, sessionID)
	if err != nil || m == nil {
		return nil
	}
	return m.Offered(ctx, owner)
}

// tool finds the tool a call names: a built-in or meta tool, else an MCP
// tool of the session's workspace — offered or not, so a withheld one still
// reaches the gate and asks.
func (s *Service) tool(ctx context.Context, sessionID, name string) (tools.Tool, bool) {
	if t, ok := s.tools.Get(name); ok {
		return t, true
	}
	m, owner, err := s.mcpFor(ctx, sessionID)
	if err != nil || m == nil {
		return nil, false
	}
	return m.Find(owner, name)
}

// TrustMcpServer trusts a server of the session's workspace as it is now,
// for the session or (persistently) for the workspace, and starts it.
func (s *Service) TrustMcpServer(ctx context.Context, a TrustMcpArgs) error {
	persistent, err := mcpPersistent(a.Scope)
	if err != nil {
		return err
	}
	if a.Server == "" {
		return errors.New("trust an MCP server: the server name is missing")
	}
	return s.trustMcp(ctx, a.SessionID, a.Server, persistent)
}

// mcpPersistent reads a trust scope: the workspace's (persistent) or the
// session's.
func mcpPersistent(scope string) (bool, error) {
	switch scope {
	case McpScopeSession:
		return false, nil
	case McpScopeWorkspace, "persistent":
		return true, nil
	}
	return false, fmt.Errorf("scope %q is not session or workspace", scope)
}

func (s *Service) trustMcp(ctx context.Context, sessionID, server string, persistent bool) error {
	m, owner, err := s.mcpFor(ctx, sessionID)
	if err != nil {
		return err
	}
	if m == nil {
		return errors.New("no MCP servers are configured in this process")
	}
	t, err := m.Trust(ctx, owner, server, persistent)
	if err != nil {
		return err
	}
	ev := store.McpServerTrusted{Server: server, Persistent: persistent, ConfigHash: t.ConfigHash, ToolHashes: t.ToolHashes}
	_, err = s.st.Append(ctx, sessionID, store.AnyVersion, ev)
	s.touch(sessionID)
	return err
}

// trustFromAnswer is Config.TrustMcp when MCP is configured: the prompt's
// "Trust this server" answer.
func (s *Service) trustFromAnswer(ctx context.Context, sessionID, server string, persistent bool) error {
	return s.trustMcp(ctx, sessionID, server, persistent)
}

// McpPending lists the servers of the session's workspace (.mcp.json,
// .warden/config.toml) that the session has not trusted with their current
// launch config: the trust card.
func (s *Service) McpPending(ctx context.Context, sessionID string) ([]McpPendingServer, error) {
	m, owner, err := s.mcpFor(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := []McpPendingServer{}
	if m == nil {
		return out, nil
	}
	esc := mcpport.EscapeForDisplay
	for _, st := range m.Pending(ctx, owner) {
		p := McpPendingServer{Name: st.Name, Source: esc(st.Source), Transport: st.Transport,
			Command: esc(st.Command), URL: esc(st.URL), EnvNames: st.EnvNames, Workspace: esc(st.Workspace),
			Changed: st.Changed}
		for _, a := range st.Args {
			p.Args = append(p.Args, esc(a))
		}
		if st.Transport == string(mcpconfig.TransportHTTP) {
			p.Launch = p.URL
		} else {
			p.Launch = esc(commandLine(st.Command, st.Args))
		}
		out = append(out, p)
	}
	return out, nil
}

// commandLine renders a command and its arguments the way a shell would
// read them back, so what the card shows is exactly what runs.
func commandLine(cmd string, args []string) string {
	parts := make([]string, 0, 1+len(args))
	for _, a := range append([]string{cmd}, args...) {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ':' || r == '@' || r == '+' || r == ',' ||
				r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			parts = append(parts, a)
			continue
		}
		parts = append(parts, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(parts, " ")
}

// mcpGrants are the session's MCP trusts as ListGrants shows them: its own
// session trusts and the workspace's persistent ones, kind "mcp-server",
// id "<scope>:<server>".
func (s *Service) mcpGrants(ctx context.Context, ss store.Session) ([]GrantView, error) {
	var out []GrantView
	if m, owner, err := s.mcpFor(ctx, ss.ID); err != nil {
		return nil, err
	} else if m != nil {
		for _, rec := range m.SessionTrusts(owner) {
			out = append(out, GrantView{ID: McpScopeSession + ":" + rec.Server, Kind: GrantKindMcpServer,
				Signature: "mcp-server:" + rec.Server, Scope: McpScopeSession, Reasons: []policy.Reason{},
				CreatedAt: rec.TrustedAt.UnixMilli(), Server: rec.Server})
		}
	}
	trusts, err := s.st.McpTrusts(ctx, ss.WorkspaceID)
	if err != nil {
		return nil, err
	}
	for _, t := range trusts {
		out = append(out, GrantView{ID: McpScopeWorkspace + ":" + t.Server, Kind: GrantKindMcpServer,
			Signature: "mcp-server:" + t.Server, Scope: McpScopeWorkspace, Reasons: []policy.Reason{},
			CreatedAt: t.TrustedAt.UnixMilli(), Server: t.Server})
	}
	return out, nil
}

// revokeMcp revokes an "mcp-server" grant: id "session:<server>" drops the
// session's trust; "workspace:<server>" (or a bare server name) clears the
// persistent trust too, so the next launch asks again. The running server
// stops when no trust is left for it.
func (s *Service) revokeMcp(ctx context.Context, sessionID, id string) error {
	if sessionID == "" {
		return errors.New("revoking an MCP trust needs the session_id whose workspace holds it")
	}
	ss, err := s.st.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	scope, server, ok := strings.Cut(id, ":")
	if !ok {
		scope, server = McpScopeWorkspace, id
	}
	m, owner, err := s.mcpFor(ctx, sessionID)
	if err != nil {
		return err
	}
	switch scope {
	case McpScopeSession:
		found := false
		if m != nil {
			for _, rec := range m.SessionTrusts(owner) {
				found = found || rec.Server == server
			}
		}
		if !found {
			return fmt.Errorf("no session trust in MCP server %q: %w", server, store.ErrNotFound)
		}
		_ = m.UntrustSession(owner, server)
	case McpScopeWorkspace:
		if _, err := s.st.McpTrust(ctx, ss.WorkspaceID, server); err != nil {
			return err
		}
		if m != nil {
			if err := m.Untrust(ctx, owner, server); err != nil {
				return err
			}
		} else if err := s.st.UntrustMcp(ctx, "", ss.WorkspaceID, server); err != nil {
			return err
		}
	default:
		return fmt.Errorf("MCP trust id %q: scope %q is not session or workspace", id, scope)
	}
	_, err = s.st.Append(ctx, sessionID, store.AnyVersion, store.McpServerUntrusted{Server: server})
	s.touch(sessionID)
	return err
}

// mcpInfo is the MCP part of an approval: the server, and what the human
// needs to judge the tool — its description and schema when it is new, the
// trusted and the current description side by side when it changed. All of
// it is server data, escaped for display.
func (s *Service) mcpInfo(sessionID string, effs []policy.Effect) *McpInfo {
	var e *policy.Effect
	for i := range effs {
		if effs[i].Kind == policy.EffectMcp {
			e = &effs[i]
			break
		}
	}
	if e == nil {
		return nil
	}
	info := &McpInfo{Server: e.Server, Tool: e.Tool}
	ctx, cancel := context.WithTimeout(s.ctx, mcpLookupTimeout)
	defer cancel()
	m, owner, err := s.mcpFor(ctx, sessionID)
	if err != nil || m == nil {
		return info
	}
	r, err := m.Review(ctx, owner, e.Server, e.Tool)
	if err != nil {
		return info
	}
	esc := mcpport.EscapeForDisplay
	info.Change, info.Description = r.Change, esc(r.Description)
	if len(r.Schema) > 0 {
		var v any
		if json.Unmarshal(r.Schema, &v) == nil {
			if pretty, err := json.MarshalIndent(v, "", "  "); err == nil {
				info.Schema = esc(string(pretty))
			}
		}
	}
	if r.Change == "changed" {
		info.OldDescription = esc(r.OldDescription)
		info.DescriptionDiff = mcpport.DescriptionDiff(r.OldDescription, r.Description)
	}
	return info
}

// McpTrustVoided records in every top-level session of a workspace that a
// changed launch config (an edited .mcp.json or user config) voided the
// trust in servers: each gets McpServerUntrusted, which the windows read
// to bring the card back and to drop the trust from Grants.
func (s *Service) McpTrustVoided(workspace string, servers []string) {
	if len(servers) == 0 {
		return
	}
	ctx := context.WithoutCancel(s.ctx)
	all, err := s.st.Sessions(ctx, "")
	if err != nil {
		return
	}
	for _, ss := range all {
		if ss.ParentID != "" || ss.Workspace != workspace {
			continue
		}
		for _, name := range servers {
			_, _ = s.st.Append(ctx, ss.ID, store.AnyVersion, store.McpServerUntrusted{Server: name})
		}
	}
}

// MCPOf is the MCP servers of a session's workspace and the session whose
// trust applies in it (nil when MCP is not configured): the Settings
// screen's list while a session is open, so its Trust and Untrust act where
// the session's calls are decided.
func (s *Service) MCPOf(ctx context.Context, sessionID string) (mcpport.Servers, string, error) {
	return s.mcpFor(ctx, sessionID)
}
