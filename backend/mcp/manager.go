package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
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
	// StartUntrustedWorkspaceServers lets servers from the workspace's
	// .mcp.json start before they are trusted. Off by default: a cloned
	// repository's .mcp.json is someone else's command line, and starting
	// it runs it. User-config servers always start.
	StartUntrustedWorkspaceServers bool
	ClientVersion                  string
	Now                            func() time.Time
	// HashKey keys the launch-config hash (see ServerConfig.LaunchHash and
	// LoadHashKey). Nil gives a key of this process only: persistent trust
	// then does not match in the next process.
	HashKey []byte
	// WorkDir is where user-config stdio servers run (workspace servers
	// always run in their workspace); "" is Warden's working directory.
	WorkDir string
	// Cage confines stdio servers (cage.go): each runs caged unless its
	// config says sandbox = "none", or the cage is unavailable and its
	// config does not insist. Nil starts every server unconfined, and
	// refuses one that insists on the cage.
	Cage *sandbox.Cage
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
	if len(o.HashKey) == 0 {
		o.HashKey = mcpconfig.ProcessKey()
	}
	return nil
}

// Manager owns the configured servers of one workspace (or of the user
// config alone), their connections and their trust. Trust comes in two
// scopes: per session (in memory, keyed by session id; "" is the scope of
// a process without sessions, the CLI) and persistent (Options.Persistent).
// A session never sees another session's trust. It is safe for concurrent
// use.
type Manager struct {
	opts Options

	mu       sync.RWMutex
	servers  map[string]*server
	names    []string
	sessions map[string]*MemoryTrustStore
	closed   bool
}

// NewManager prepares the servers of opts.Config without starting any.
func NewManager(opts Options) (*Manager, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.LogDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the MCP log directory: %w", err)
	}
	m := &Manager{opts: opts, servers: map[string]*server{}, sessions: map[string]*MemoryTrustStore{}}
	for name, cfg := range opts.Config.Servers {
		m.servers[name] = m.newServer(cfg)
	}
	m.sortNames()
	return m, nil
}

func (m *Manager) newServer(cfg ServerConfig) *server {
	if cfg.Dir == "" {
		cfg.RunDir = m.opts.WorkDir
	}
	s := newServer(cfg, filepath.Join(m.opts.LogDir, cfg.Name+".log"), &m.opts)
	if cfg.Dir != "" && !m.opts.StartUntrustedWorkspaceServers {
		s.mayStart = func(ctx context.Context) error { return m.launchTrusted(ctx, s) }
	}
	return s
}

// sortNames rebuilds names from servers; called with mu held (or before the
// manager is shared).
func (m *Manager) sortNames() {
	m.names = m.names[:0]
	for name := range m.servers {
		m.names = append(m.names, name)
	}
	sort.Strings(m.names)
}

// ConfigErrors are the problems found in the config files; the servers they
// name are not loaded.
func (m *Manager) ConfigErrors() []error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.opts.Config.Errors
}

// Servers lists the configured server names, sorted.
func (m *Manager) Servers() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]string(nil), m.names...)
}

func (m *Manager) server(name string) (*server, error) {
	m.mu.RLock()
	s, ok := m.servers[name]
	m.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("no MCP server named %q is configured", name)
	}
	return s, nil
}

// each returns the servers in name order.
func (m *Manager) each() []*server {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]*server, 0, len(m.names))
	for _, n := range m.names {
		out = append(out, m.servers[n])
	}
	return out
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

// Tools starts every server that may start (in parallel) and returns the
// tools of those that are up, in the process scope. A server that fails is
// left out; its status says why.
func (m *Manager) Tools(ctx context.Context) []*ToolAdapter {
	servers := m.each()
	startServers(ctx, servers)
	var out []*ToolAdapter
	for _, s := range servers {
		infos, _ := s.snapshot()
		for _, ti := range infos {
			out = append(out, &ToolAdapter{m: m, server: s.cfg.Name, tool: ti.name})
		}
	}
	return out
}

func startServers(ctx context.Context, servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = s.session(ctx)
		}()
	}
	wg.Wait()
}

// Offered is what one session's model is offered at the start of a turn:
//   - a workspace server (from the repository) is started only once this
//     session or the workspace trusts its current launch config; untrusted
//     and not running, it is left out, and the trust card names it instead.
//     Running without this session's trust (another session of the
//     workspace trusted it, or this session's trust was just revoked), its
//     tools are offered and every call asks;
//   - a tool whose description or schema changed since the trust is
//     withheld (a rug pull must not reach the model before a human has seen
//     it); Review shows the change when the model calls it anyway;
//   - every other tool of a running server, including tools that appeared
//     through tools/list_changed (their first call asks) and the tools of
//     user-config servers that are not trusted (every call asks).
//
// Servers that may start are started lazily, here.
func (m *Manager) Offered(ctx context.Context, sessionID string) []*ToolAdapter {
	var eligible []*server
	recs := map[string]TrustRecord{}
	for _, s := range m.each() {
		rec, ok, err := m.record(ctx, sessionID, s.cfg.Name)
		if err != nil {
			continue
		}
		trusted := ok && rec.ConfigHash == s.hash
		if s.cfg.Dir != "" && !trusted && !m.opts.StartUntrustedWorkspaceServers && !s.running() {
			continue
		}
		if trusted {
			recs[s.cfg.Name] = rec
		}
		eligible = append(eligible, s)
	}
	startServers(ctx, eligible)
	var out []*ToolAdapter
	for _, s := range eligible {
		s.settle(ctx)
		rec, trusted := recs[s.cfg.Name]
		infos, _ := s.snapshot()
		for _, ti := range infos {
			if tt, known := rec.Tools[ti.name]; trusted && known && tt.Hash != ti.hash {
				continue
			}
			out = append(out, &ToolAdapter{m: m, server: s.cfg.Name, tool: ti.name, session: sessionID})
		}
	}
	return out
}

// Find returns a tool of a running server for one session's call by its
// gate name or model identifier, whether or not it is offered: a withheld
// tool still reaches the gate, which asks. It starts nothing.
func (m *Manager) Find(sessionID, name string) (*ToolAdapter, bool) {
	a, ok := m.Lookup(name)
	if ok {
		a.session = sessionID
	}
	return a, ok
}

// Lookup finds a tool of a started server by its gate name
// ("mcp-tool:<server>/<tool>") or its model identifier ("mcp__..."), in the
// process scope.
func (m *Manager) Lookup(name string) (*ToolAdapter, bool) {
	if server, tool, ok := splitToolName(name); ok {
		s, err := m.server(server)
		if err != nil {
			return nil, false
		}
		if _, ok := s.tool(tool); !ok {
			return nil, false
		}
		return &ToolAdapter{m: m, server: server, tool: tool}, true
	}
	for _, s := range m.each() {
		infos, _ := s.snapshot()
		for _, ti := range infos {
			if ModelName(s.cfg.Name, ti.name) == name {
				return &ToolAdapter{m: m, server: s.cfg.Name, tool: ti.name}, true
			}
		}
	}
	return nil, false
}

// launchTrusted allows starting a workspace server whose current launch
// config someone trusted: the workspace, or any session. The process is
// shared by the workspace's sessions; each session's calls still need its
// own trust.
func (m *Manager) launchTrusted(ctx context.Context, s *server) error {
	changed := false
	if m.opts.Persistent != nil {
		rec, ok, err := m.opts.Persistent.Get(ctx, s.cfg.Name)
		if err != nil {
			return fmt.Errorf("reading MCP trust for %q: %w", s.cfg.Name, err)
		}
		if ok && rec.ConfigHash == s.hash {
			return nil
		}
		changed = ok
	}
	for _, st := range m.sessionStores() {
		if rec, ok, _ := st.Get(ctx, s.cfg.Name); ok {
			if rec.ConfigHash == s.hash {
				return nil
			}
			changed = true
		}
	}
	if changed {
		return fmt.Errorf("MCP server %q: its launch config in %s changed since it was trusted; it is not started until it is trusted again",
			s.cfg.Name, s.cfg.Source)
	}
	return fmt.Errorf("MCP server %q comes from %s and is not started until it is trusted (starting it runs %s)",
		s.cfg.Name, s.cfg.Source, s.describe())
}

// Close stops every server.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	servers := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	m.mu.Unlock()
	for _, s := range servers {
		s.close()
	}
	return nil
}

func (m *Manager) sessionStore(sessionID string) *MemoryTrustStore {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.sessions[sessionID]
	if !ok {
		st = NewMemoryTrustStore()
		m.sessions[sessionID] = st
	}
	return st
}

func (m *Manager) sessionStores() []*MemoryTrustStore {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]*MemoryTrustStore, 0, len(m.sessions))
	for _, st := range m.sessions {
		out = append(out, st)
	}
	return out
}

// record returns the trust record that applies to a server in a session:
// the session's own, else the persistent one.
func (m *Manager) record(ctx context.Context, sessionID, server string) (TrustRecord, bool, error) {
	m.mu.RLock()
	st := m.sessions[sessionID]
	m.mu.RUnlock()
	if st != nil {
		if rec, ok, _ := st.Get(ctx, server); ok {
			return rec, true, nil
		}
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

// trustVerdict says whether one tool is trusted in a session, and if not,
// why in words.
func (m *Manager) trustVerdict(ctx context.Context, sessionID string, s *server, ti *toolInfo, appearedAt time.Time) (bool, string) {
	rec, ok, err := m.record(ctx, sessionID, s.cfg.Name)
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

// Trust trusts a server in the process scope (see TrustFor).
func (m *Manager) Trust(ctx context.Context, server string, scope TrustScope) error {
	return m.TrustFor(ctx, "", server, scope)
}

// TrustFor trusts a server as it is now — its launch config and every tool
// it currently offers — for one session (TrustSession) or the workspace
// (TrustPersistent). It starts the server if needed, since trust binds to
// the tools the human can see.
func (m *Manager) TrustFor(ctx context.Context, sessionID, server string, scope TrustScope) error {
	s, err := m.server(server)
	if err != nil {
		return err
	}
	if _, err := s.sessionFor(ctx, true); err != nil {
		return err
	}
	infos, _ := s.snapshot()
	rec := TrustRecord{Server: server, ConfigHash: s.hash, Tools: map[string]ToolTrust{}, Scope: scope, TrustedAt: m.opts.Now()}
	for _, ti := range infos {
		rec.Tools[ti.name] = ToolTrust{Hash: ti.hash, Description: ti.description}
	}
	return m.put(ctx, sessionID, rec)
}

// TrustTool accepts one tool's current description and schema in the
// process scope (see TrustToolFor).
func (m *Manager) TrustTool(ctx context.Context, server, tool string, scope TrustScope) error {
	return m.TrustToolFor(ctx, "", server, tool, scope)
}

// TrustToolFor accepts one tool's current description and schema, for the
// re-prompt after a rug pull or a tools/list_changed. The server must
// already be trusted with its current launch config.
func (m *Manager) TrustToolFor(ctx context.Context, sessionID, server, tool string, scope TrustScope) error {
	s, err := m.server(server)
	if err != nil {
		return err
	}
	if _, err := s.sessionFor(ctx, true); err != nil {
		return err
	}
	ti, ok := s.tool(tool)
	if !ok {
		return fmt.Errorf("MCP server %q offers no tool %q", server, tool)
	}
	rec, ok, err := m.record(ctx, sessionID, server)
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
	return m.put(ctx, sessionID, rec)
}

func (m *Manager) put(ctx context.Context, sessionID string, rec TrustRecord) error {
	switch rec.Scope {
	case TrustSession:
		return m.sessionStore(sessionID).Put(ctx, rec)
	case TrustPersistent:
		if m.opts.Persistent == nil {
			return errors.New("no persistent trust store is configured; trust for the session instead")
		}
		if err := m.opts.Persistent.Put(ctx, rec); err != nil {
			return fmt.Errorf("saving MCP trust for %q: %w", rec.Server, err)
		}
		// The persistent record now speaks for the server; a stale session
		// record would shadow it.
		return m.sessionStore(sessionID).Delete(ctx, rec.Server)
	default:
		return fmt.Errorf("unknown trust scope %q (want %q or %q)", rec.Scope, TrustSession, TrustPersistent)
	}
}

// Untrust removes the process-scope and the persistent trust of a server
// (see UntrustFor).
func (m *Manager) Untrust(ctx context.Context, server string) error {
	return m.UntrustFor(ctx, "", server)
}

// UntrustFor removes a session's trust and the persistent trust of a
// server, so the next call (and the next launch) asks again. A running
// server keeps running for the sessions that use it — their calls now ask
// — until the last session ends or its config changes. The server need not
// be configured any more.
func (m *Manager) UntrustFor(ctx context.Context, sessionID, server string) error {
	if err := m.UntrustSession(sessionID, server); err != nil {
		return err
	}
	if m.opts.Persistent != nil {
		if err := m.opts.Persistent.Delete(ctx, server); err != nil {
			return fmt.Errorf("removing MCP trust for %q: %w", server, err)
		}
	}
	return nil
}

// UntrustSession removes one session's trust in a server only.
func (m *Manager) UntrustSession(sessionID, server string) error {
	m.mu.RLock()
	st := m.sessions[sessionID]
	m.mu.RUnlock()
	if st != nil {
		_ = st.Delete(context.Background(), server)
	}
	return nil
}

// SessionTrusts lists one session's own trust records, by server name.
func (m *Manager) SessionTrusts(sessionID string) []TrustRecord {
	m.mu.RLock()
	st := m.sessions[sessionID]
	m.mu.RUnlock()
	if st == nil {
		return nil
	}
	return st.list()
}

// EndSession drops a session's trust: it lived with the session. Workspace
// servers nobody trusts any more are stopped.
func (m *Manager) EndSession(sessionID string) {
	m.mu.Lock()
	delete(m.sessions, sessionID)
	m.mu.Unlock()
	m.stopUntrusted(context.Background())
}

// stopUntrusted stops the running workspace servers whose current launch
// config no trust covers any more: they were started on a trust that is
// gone, and a process of the repository's must not outlive it.
func (m *Manager) stopUntrusted(ctx context.Context) {
	for _, s := range m.each() {
		if s.mayStart == nil || !s.running() {
			continue
		}
		if err := s.mayStart(ctx); err != nil {
			s.halt(StateAwaitingTrust, err.Error())
		}
	}
}

// Reload applies a changed config: a server whose launch config changed or
// that is gone is stopped and its trust (every session's, and the
// persistent one) is voided, so the card asks again; new servers are added
// idle. It returns the names of the servers whose trust was voided.
func (m *Manager) Reload(ctx context.Context, cfg Config) []string {
	var stopped []*server
	var voided []string
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	for name, old := range m.servers {
		nc, ok := cfg.Servers[name]
		if ok && nc.LaunchHash(m.opts.HashKey) == old.hash && nc.Source == old.cfg.Source {
			continue
		}
		stopped = append(stopped, old)
		if !ok || nc.LaunchHash(m.opts.HashKey) != old.hash {
			voided = append(voided, name)
		}
		delete(m.servers, name)
	}
	for name, nc := range cfg.Servers {
		if _, ok := m.servers[name]; !ok {
			m.servers[name] = m.newServer(nc)
		}
	}
	m.opts.Config = cfg
	m.sortNames()
	stores := make([]*MemoryTrustStore, 0, len(m.sessions))
	for _, st := range m.sessions {
		stores = append(stores, st)
	}
	m.mu.Unlock()
	for _, s := range stopped {
		s.close()
	}
	sort.Strings(voided)
	for _, name := range voided {
		for _, st := range stores {
			_ = st.Delete(ctx, name)
		}
		if m.opts.Persistent != nil {
			_ = m.opts.Persistent.Delete(ctx, name)
		}
	}
	return voided
}

// Pending lists the workspace servers a session has not trusted with their
// current launch config: what the trust card shows. Their status has the
// full launch command or URL; Trust is set when an earlier trust no longer
// matches.
func (m *Manager) Pending(ctx context.Context, sessionID string) []ServerStatus {
	var out []ServerStatus
	for _, st := range m.StatusFor(ctx, sessionID) {
		s, err := m.server(st.Name)
		if err != nil || s.cfg.Dir == "" {
			continue
		}
		if st.Trust != nil && st.Trust.ConfigMatches {
			continue
		}
		out = append(out, st)
	}
	return out
}

// ToolReview is what a human needs to judge an MCP call's tool: what the
// server says about it now and, when it was trusted with other text, what
// it said then. Descriptions and the schema are raw server data: show them
// escaped, never interpret them.
type ToolReview struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Change is why the tool is not trusted: "server" (the server is not
	// trusted in this session), "config" (its launch config changed),
	// "new" (not offered when the server was trusted, or appeared through
	// tools/list_changed since), "changed" (description or schema changed
	// since trust); "" when it is trusted.
	Change         string          `json:"change,omitempty"`
	Description    string          `json:"description"`
	OldDescription string          `json:"old_description,omitempty"`
	Schema         json.RawMessage `json:"schema,omitempty"`
}

// Review describes one tool for a session's approval prompt.
func (m *Manager) Review(ctx context.Context, sessionID, server, tool string) (ToolReview, error) {
	s, err := m.server(server)
	if err != nil {
		return ToolReview{}, err
	}
	s.mu.Lock()
	ti, ok := s.tools[tool]
	appearedAt := s.appeared[tool]
	s.mu.Unlock()
	if !ok {
		return ToolReview{}, fmt.Errorf("MCP server %q offers no tool %q", server, tool)
	}
	r := ToolReview{Server: server, Tool: tool, Description: ti.description, Schema: ti.inputSchema}
	rec, ok, err := m.record(ctx, sessionID, server)
	switch {
	case err != nil:
		return ToolReview{}, err
	case !ok:
		r.Change = "server"
		return r, nil
	case rec.ConfigHash != s.hash:
		r.Change = "config"
		return r, nil
	}
	tt, known := rec.Tools[tool]
	switch {
	case !known || (!appearedAt.IsZero() && appearedAt.After(rec.TrustedAt)):
		r.Change = "new"
	case tt.Hash != ti.hash:
		r.Change, r.OldDescription = "changed", tt.Description
	}
	return r, nil
}

// TrustDiff returns, in the process scope, the description the human
// trusted and the one the server offers now, for the approval prompt. Both
// are raw server text: show them escaped, never interpret them. old is
// empty when the tool was not offered at trust time.
func (m *Manager) TrustDiff(ctx context.Context, server, tool string) (old, current string, err error) {
	s, err := m.server(server)
	if err != nil {
		return "", "", err
	}
	ti, ok := s.tool(tool)
	if !ok {
		return "", "", fmt.Errorf("MCP server %q offers no tool %q", server, tool)
	}
	rec, ok, err := m.record(ctx, "", server)
	if err != nil {
		return "", "", err
	}
	if ok {
		old = rec.Tools[tool].Description
	}
	return old, ti.description, nil
}
