package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
)

// reloadDelay gathers the bursts of events one save makes (editors write a
// temporary file and rename it) into one reload.
const reloadDelay = 150 * time.Millisecond

// PoolOptions configure a Pool.
type PoolOptions struct {
	// UserConfigPath is the user's config.toml ("" skips it).
	UserConfigPath string
	// Persistent returns a workspace's persistent trust store; nil: trust
	// lasts for the session only.
	Persistent func(ctx context.Context, workspace string) (TrustStore, error)
	// Manager is the template of every workspace's manager options; its
	// Config, Persistent, WorkDir are set per workspace and its LogDir gets
	// a folder per workspace.
	Manager Options
	// Watch reloads a workspace's servers when .mcp.json,
	// .warden/config.toml or the user config change.
	Watch bool
	// OnReload runs after a reload with the servers whose trust the change
	// voided.
	OnReload func(workspace string, voided []string)
	// Filter, when set, sees every workspace's config before its servers
	// are known (an organisation's allowlist drops servers and reports
	// them in Errors).
	Filter func(Config) Config
}

// load reads a workspace's config through the filter.
func (p *Pool) load(workspace string) Config {
	c := mcpconfig.LoadConfig(p.opts.UserConfigPath, workspace)
	if p.opts.Filter != nil {
		c = p.opts.Filter(c)
	}
	return c
}

// Pool keeps one Manager per workspace, made on first use: the servers of
// the user config and of that workspace, running in it. It is safe for
// concurrent use.
type Pool struct {
	opts PoolOptions

	mu       sync.Mutex
	managers map[string]*Manager
	timers   map[string]*time.Timer // workspace ("" = all) → pending reload
	watcher  *fsnotify.Watcher
	watched  map[string][]string // watched dir → workspaces it concerns ("" = all)
	closed   bool
	wg       sync.WaitGroup
}

// NewPool returns an empty pool; with Watch set it watches the user config.
func NewPool(opts PoolOptions) (*Pool, error) {
	if err := opts.Manager.defaults(); err != nil {
		return nil, err
	}
	p := &Pool{opts: opts, managers: map[string]*Manager{}, timers: map[string]*time.Timer{}, watched: map[string][]string{}}
	if opts.Watch {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			return nil, fmt.Errorf("watching MCP config files: %w", err)
		}
		p.watcher = w
		if opts.UserConfigPath != "" {
			p.watchDir(filepath.Dir(opts.UserConfigPath), "")
		}
		p.wg.Add(1)
		go p.watch()
	}
	return p, nil
}

// For returns the manager of a workspace (an absolute path), making it on
// first use. It starts no server.
func (p *Pool) For(ctx context.Context, workspace string) (*Manager, error) {
	if !filepath.IsAbs(workspace) {
		return nil, fmt.Errorf("MCP: workspace %q is not an absolute path", workspace)
	}
	workspace = filepath.Clean(workspace)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("MCP: the server pool is closed")
	}
	if m, ok := p.managers[workspace]; ok {
		return m, nil
	}
	opts := p.opts.Manager
	opts.Config = p.load(workspace)
	opts.WorkDir = workspace
	sum := sha256.Sum256([]byte(workspace))
	opts.LogDir = filepath.Join(p.opts.Manager.LogDir, filepath.Base(workspace)+"-"+hex.EncodeToString(sum[:6]))
	if p.opts.Persistent != nil {
		st, err := p.opts.Persistent(ctx, workspace)
		if err != nil {
			return nil, err
		}
		opts.Persistent = st
	}
	m, err := NewManager(opts)
	if err != nil {
		return nil, err
	}
	p.managers[workspace] = m
	if p.watcher != nil {
		p.watchDir(workspace, workspace)
		p.watchDir(filepath.Join(workspace, ".warden"), workspace)
	}
	return m, nil
}

// Managers returns the workspaces that have a manager, with it.
func (p *Pool) Managers() map[string]*Manager {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]*Manager, len(p.managers))
	for k, v := range p.managers {
		out[k] = v
	}
	return out
}

// EndSession drops a session's trust in every workspace.
func (p *Pool) EndSession(sessionID string) {
	for _, m := range p.Managers() {
		m.EndSession(sessionID)
	}
}

// Reload re-reads the config of one workspace ("" = every workspace) now.
func (p *Pool) Reload(ctx context.Context, workspace string) {
	for ws, m := range p.Managers() {
		if workspace != "" && ws != workspace {
			continue
		}
		voided := m.Reload(ctx, p.load(ws))
		if p.opts.OnReload != nil {
			p.opts.OnReload(ws, voided)
		}
	}
}

// watchDir adds a directory to the watcher (a missing one is skipped: its
// parent's watch sees it appear). Called with mu held, or before sharing.
func (p *Pool) watchDir(dir, workspace string) {
	for _, w := range p.watched[dir] {
		if w == workspace {
			return
		}
	}
	if len(p.watched[dir]) == 0 {
		if err := p.watcher.Add(dir); err != nil {
			return
		}
	}
	p.watched[dir] = append(p.watched[dir], workspace)
}

// relevant says which workspaces an event concerns, if any.
func (p *Pool) relevant(ev fsnotify.Event) ([]string, bool) {
	dir, base := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	p.mu.Lock()
	defer p.mu.Unlock()
	who := p.watched[dir]
	if len(who) == 0 {
		return nil, false
	}
	var out []string
	for _, ws := range who {
		switch {
		case ws == "" && p.opts.UserConfigPath != "" && ev.Name == filepath.Clean(p.opts.UserConfigPath):
			out = append(out, "")
		case ws != "" && dir == ws && base == ".mcp.json":
			out = append(out, ws)
		case ws != "" && dir == ws && base == ".warden":
			// The folder appeared (or went): watch it, and read what it holds.
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					p.watchDir(ev.Name, ws)
				}
			}
			out = append(out, ws)
		case ws != "" && dir == filepath.Join(ws, ".warden") && base == "config.toml":
			out = append(out, ws)
		}
	}
	return out, len(out) > 0
}

func (p *Pool) watch() {
	defer p.wg.Done()
	for {
		select {
		case ev, ok := <-p.watcher.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if who, ok := p.relevant(ev); ok {
				for _, ws := range who {
					p.schedule(ws)
				}
			}
		case _, ok := <-p.watcher.Errors:
			if !ok {
				return
			}
		}
	}
}

// schedule reloads a workspace ("" = all) once its events have settled.
func (p *Pool) schedule(workspace string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if t, ok := p.timers[workspace]; ok {
		t.Reset(reloadDelay)
		return
	}
	p.timers[workspace] = time.AfterFunc(reloadDelay, func() {
		p.mu.Lock()
		delete(p.timers, workspace)
		closed := p.closed
		p.mu.Unlock()
		if !closed {
			p.Reload(context.Background(), workspace)
		}
	})
}

// Close stops the watcher and every workspace's servers.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	for _, t := range p.timers {
		t.Stop()
	}
	managers := p.managers
	p.mu.Unlock()
	if p.watcher != nil {
		_ = p.watcher.Close()
		p.wg.Wait()
	}
	var errs []error
	for _, m := range managers {
		errs = append(errs, m.Close())
	}
	return errors.Join(errs...)
}
