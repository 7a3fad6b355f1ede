package mcp

import (
	"context"
	"time"
)

// ServerStatus is what the UI and `warden mcp list` show for one server.
type ServerStatus struct {
	Name      string    `json:"name"`
	Transport Transport `json:"transport"`
	Source    string    `json:"source"`
	// Workspace is set for a server from the workspace (.mcp.json,
	// .warden/config.toml): its working directory.
	Workspace string   `json:"workspace,omitempty"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	EnvNames  []string `json:"env_names,omitempty"`
	URL       string   `json:"url,omitempty"`
	// Sandbox is how a stdio server runs: "cage" or "none" ("" for HTTP);
	// SandboxWhy says why (its config, the default, the cage unavailable),
	// or why it cannot start when its config insists on a missing cage.
	Sandbox    string `json:"sandbox,omitempty"`
	SandboxWhy string `json:"sandbox_why,omitempty"`
	// SandboxSetting is the "sandbox" value as written in its config ("",
	// "cage" or "none"), so an edit keeps it.
	SandboxSetting string       `json:"sandbox_setting,omitempty" ts:"'' | 'cage' | 'none'"`
	ConfigHash     string       `json:"config_hash"`
	State          ServerState  `json:"state"`
	LastError      string       `json:"last_error,omitempty"`
	LogPath        string       `json:"log_path"`
	Restarts       int          `json:"restarts"`
	Trust          *TrustStatus `json:"trust,omitempty"` // nil: never trusted
	Tools          []ToolStatus `json:"tools" ts:"McpTool[] | null"`
}

// TrustStatus is the trust record of a server as it applies now.
type TrustStatus struct {
	Scope         TrustScope `json:"scope"`
	TrustedAt     time.Time  `json:"trusted_at"`
	ConfigMatches bool       `json:"config_matches"`
}

// ToolStatus is one tool with its hash and trust. Description is raw
// server text: escape it when showing it.
type ToolStatus struct {
	Name         string `json:"name"`
	GateName     string `json:"gate_name"`
	ModelName    string `json:"model_name"`
	Description  string `json:"description"`
	Hash         string `json:"hash"`
	ReadOnlyHint bool   `json:"read_only_hint"`
	Trusted      bool   `json:"trusted"`
	// Untrusted says why the tool would prompt, when it would.
	Untrusted   string `json:"untrusted,omitempty"`
	SchemaError string `json:"schema_error,omitempty"`
}

// Status reports every configured server without starting any, with the
// trust of the process scope.
func (m *Manager) Status(ctx context.Context) []ServerStatus { return m.StatusFor(ctx, "") }

// StatusFor reports every configured server without starting any, with the
// trust that applies in one session.
func (m *Manager) StatusFor(ctx context.Context, sessionID string) []ServerStatus {
	servers := m.each()
	out := make([]ServerStatus, 0, len(servers))
	for _, s := range servers {
		name := s.cfg.Name
		s.mu.Lock()
		st := ServerStatus{
			Name: name, Transport: s.cfg.Transport(), Source: s.cfg.Source, Command: s.cfg.Command,
			Args: s.cfg.Args, Workspace: s.cfg.Dir, EnvNames: s.cfg.EnvNames(), URL: s.cfg.URL, ConfigHash: s.hash,
			State: s.state, LastError: s.lastErr, LogPath: s.logPath, Restarts: s.restarts,
		}
		s.mu.Unlock()
		st.Sandbox, st.SandboxWhy = sandboxStatus(s.cfg, m.opts.Cage)
		st.SandboxSetting = s.cfg.Sandbox
		if rec, ok, err := m.record(ctx, sessionID, name); err != nil {
			st.LastError = err.Error()
		} else if ok {
			st.Trust = &TrustStatus{Scope: rec.Scope, TrustedAt: rec.TrustedAt, ConfigMatches: rec.ConfigHash == s.hash}
		}
		infos, appeared := s.snapshot()
		st.Tools = make([]ToolStatus, 0, len(infos))
		for _, ti := range infos {
			trusted, why := m.trustVerdict(ctx, sessionID, s, ti, appeared[ti.name])
			ts := ToolStatus{
				Name: ti.name, GateName: ToolName(name, ti.name), ModelName: ModelName(name, ti.name),
				Description: ti.description, Hash: ti.hash, ReadOnlyHint: ti.readOnlyHint,
				Trusted: trusted, Untrusted: why,
			}
			if ti.schemaErr != nil {
				ts.SchemaError = ti.schemaErr.Error()
			}
			st.Tools = append(st.Tools, ts)
		}
		out = append(out, st)
	}
	return out
}
