package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Options configure a Manager. Zero values get working defaults.
type Options struct {
	Config Config
	// Persistent keeps trust across launches (the SQLite store). Nil means
	// only session trust is available.
	Persistent TrustStore
	// LogDir receives one <server>.log per server with its stderr.
	// Default: $XDG_STATE_HOME/warden/mcp (or ~/.local/state/warden/mcp).
	LogDir         string
	StartTimeout   time.Duration // handshake and first tools/list; default 30s
	CallTimeout    time.Duration // one tools/call; default 60s
	MaxResultBytes int           // text + images + structured per result; default 256 KiB
	// MaxFrameBytes bounds one JSON-RPC message from a stdio server; a
	// bigger one breaks the connection. Default 8 MiB.
	MaxFrameBytes int
	ClientVersion string
	Now           func() time.Time
}

func (o *Options) defaults() error {
	if o.LogDir == "" {
		dir := os.Getenv("XDG_STATE_HOME")
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return fmt.Errorf("locating the MCP log directory: %w", err)
			}
			dir = filepath.Join(home, ".local", "state")
		}
		o.LogDir = filepath.Join(dir, "warden", "mcp")
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 60 * time.Second
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = 256 << 10
	}
	if o.MaxFrameBytes <= 0 {
		o.MaxFrameBytes = 8 << 20
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Manager owns the configured servers, their connections and their trust.
// It is safe for concurrent use.
type Manager struct {
	opts    Options
	session *MemoryTrustStore
	servers map[string]*server
	names   []string
}

// NewManager prepares the servers of opts.Config without starting any.
func NewManager(opts Options) (*Manager, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.LogDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the MCP log directory: %w", err)
	}
	m := &Manager{opts: opts, session: NewMemoryTrustStore(), servers: map[string]*server{}}
	for name, cfg := range opts.Config.Servers {
		m.servers[name] = newServer(cfg, filepath.Join(opts.LogDir, name+".log"), &m.opts)
		m.names = append(m.names, name)
	}
	sort.Strings(m.names)
	return m, nil
}

// ConfigErrors are the problems found in the config files; the servers they
// name are not loaded.
func (m *Manager) ConfigErrors() []error { return m.opts.Config.Errors }

// Servers lists the configured server names, sorted.
func (m *Manager) Servers() []string { return append([]string(nil), m.names...) }

func (m *Manager) server(name string) (*server, error) {
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("no MCP server named %q is configured", name)
	}
	return s, nil
}

// Start starts one server if it is not running and lists its tools.
func (m *Manager) Start(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	_, err = s.session(ctx)
	return err
}

// Tools starts every server that is not running (in parallel) and returns
// the tools of those that are up. A server that fails is left out; its
// status says why.
func (m *Manager) Tools(ctx context.Context) []*ToolAdapter {
	var wg sync.WaitGroup
	for _, name := range m.names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = m.servers[name].session(ctx)
		}()
	}
	wg.Wait()
	var out []*ToolAdapter
	for _, name := range m.names {
		infos, _ := m.servers[name].snapshot()
		for _, ti := range infos {
			out = append(out, &ToolAdapter{m: m, server: name, tool: ti.name})
		}
	}
	return out
}

// Lookup finds a tool of a started server by its gate name
// ("mcp-tool:<server>/<tool>") or its model identifier ("mcp__...").
func (m *Manager) Lookup(name string) (*ToolAdapter, bool) {
	if server, tool, ok := splitToolName(name); ok {
		s, found := m.servers[server]
		if !found {
			return nil, false
		}
		if _, ok := s.tool(tool); !ok {
			return nil, false
		}
		return &ToolAdapter{m: m, server: server, tool: tool}, true
	}
	for _, sn := range m.names {
		infos, _ := m.servers[sn].snapshot()
		for _, ti := range infos {
			if ModelName(sn, ti.name) == name {
				return &ToolAdapter{m: m, server: sn, tool: ti.name}, true
			}
		}
	}
	return nil, false
}

// Close stops every server.
func (m *Manager) Close() error {
	for _, s := range m.servers {
		s.close()
	}
	return nil
}

// record returns the trust record that applies to a server: the session
// one, else the persistent one.
func (m *Manager) record(ctx context.Context, server string) (TrustRecord, bool, error) {
	if rec, ok, _ := m.session.Get(ctx, server); ok {
		return rec, true, nil
	}
	if m.opts.Persistent == nil {
		return TrustRecord{}, false, nil
	}
	rec, ok, err := m.opts.Persistent.Get(ctx, server)
	if err != nil {
		return TrustRecord{}, false, fmt.Errorf("reading MCP trust for %q: %w", server, err)
	}
	return rec, ok, nil
}

// trustVerdict says whether one tool is trusted, and if not, why in words.
func (m *Manager) trustVerdict(ctx context.Context, s *server, ti *toolInfo, appearedAt time.Time) (bool, string) {
	rec, ok, err := m.record(ctx, s.cfg.Name)
	switch {
	case err != nil:
		return false, err.Error()
	case !ok:
		return false, "server not trusted"
	case rec.ConfigHash != s.hash:
		return false, "launch config changed since the server was trusted"
	}
	tt, known := rec.Tools[ti.name]
	switch {
	case !known:
		return false, "tool was not offered when the server was trusted"
	case tt.Hash != ti.hash:
		return false, "description or schema changed since the server was trusted"
	case !appearedAt.IsZero() && appearedAt.After(rec.TrustedAt):
		return false, "tool appeared through tools/list_changed after the server was trusted"
	}
	return true, ""
}

// Trust trusts a server as it is now: its launch config and every tool it
// currently offers. It starts the server if needed, since trust binds to the
// tools the human can see.
func (m *Manager) Trust(ctx context.Context, server string, scope TrustScope) error {
	s, err := m.server(server)
	if err != nil {
		return err
	}
	if _, err := s.session(ctx); err != nil {
		return err
	}
	infos, _ := s.snapshot()
	rec := TrustRecord{Server: server, ConfigHash: s.hash, Tools: map[string]ToolTrust{}, Scope: scope, TrustedAt: m.opts.Now()}
	for _, ti := range infos {
		rec.Tools[ti.name] = ToolTrust{Hash: ti.hash, Description: ti.description}
	}
	return m.put(ctx, rec)
}

// TrustTool accepts one tool's current description and schema, for the
// re-prompt after a rug pull or a tools/list_changed. The server must
// already be trusted with its current launch config.
func (m *Manager) TrustTool(ctx context.Context, server, tool string, scope TrustScope) error {
	s, err := m.server(server)
	if err != nil {
		return err
	}
	if _, err := s.session(ctx); err != nil {
		return err
	}
	ti, ok := s.tool(tool)
	if !ok {
		return fmt.Errorf("MCP server %q offers no tool %q", server, tool)
	}
	rec, ok, err := m.record(ctx, server)
	if err != nil {
		return err
	}
	if !ok || rec.ConfigHash != s.hash {
		return fmt.Errorf("MCP server %q is not trusted with its current launch config; trust the server first", server)
	}
	if rec.Tools == nil {
		rec.Tools = map[string]ToolTrust{}
	}
	rec.Tools[tool] = ToolTrust{Hash: ti.hash, Description: ti.description}
	rec.Scope = scope
	rec.TrustedAt = m.opts.Now()
	return m.put(ctx, rec)
}

func (m *Manager) put(ctx context.Context, rec TrustRecord) error {
	switch rec.Scope {
	case TrustSession:
		return m.session.Put(ctx, rec)
	case TrustPersistent:
		if m.opts.Persistent == nil {
			return errors.New("no persistent trust store is configured; trust for the session instead")
		}
		if err := m.opts.Persistent.Put(ctx, rec); err != nil {
			return fmt.Errorf("saving MCP trust for %q: %w", rec.Server, err)
		}
		// The persistent record now speaks for the server; a stale session
		// record would shadow it.
		return m.session.Delete(ctx, rec.Server)
	default:
		return fmt.Errorf("unknown trust scope %q (want %q or %q)", rec.Scope, TrustSession, TrustPersistent)
	}
}

// Untrust removes both the session and the persistent trust of a server, so
// the next call (and the next launch) asks again. The server need not be
// configured any more.
func (m *Manager) Untrust(ctx context.Context, server string) error {
	if err := m.session.Delete(ctx, server); err != nil {
		return err
	}
	if m.opts.Persistent != nil {
		if err := m.opts.Persistent.Delete(ctx, server); err != nil {
			return fmt.Errorf("removing MCP trust for %q: %w", server, err)
		}
	}
	return nil
}

// TrustDiff returns the description the human trusted and the one the
// server offers now, for the approval prompt. Both are raw server text:
// show them escaped, never interpret them. old is empty when the tool was
// not offered at trust time.
func (m *Manager) TrustDiff(ctx context.Context, server, tool string) (old, current string, err error) {
	s, err := m.server(server)
	if err != nil {
		return "", "", err
	}
	ti, ok := s.tool(tool)
	if !ok {
		return "", "", fmt.Errorf("MCP server %q offers no tool %q", server, tool)
	}
	rec, ok, err := m.record(ctx, server)
	if err != nil {
		return "", "", err
	}
	if ok {
		old = rec.Tools[tool].Description
	}
	return old, ti.description, nil
}
