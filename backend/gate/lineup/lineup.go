// Package lineup turns the configured answerers and hooks into each
// session's gate.Lineup: the user's from config.toml, the workspace's own
// from <workspace>/.warden/config.toml once the user trusted them, minus
// the kinds the organisation does not allow.
//
// A workspace's entries come with the repository, so they are untrusted
// input (the 2025–2026 Claude Code and Codex CVEs were project config
// acting before trust). One runs only while the trust the user gave it
// still vouches for it: the hash of its entry (what runs, how long, on
// which tools) and the hash of its program files (the program and every
// argument naming a file). A change to either leaves it out and asks the
// user again (Board lists it as changed; every ask of the session says
// so). Nothing of a workspace's entry runs to find that out: the files are
// hashed, not executed.
//
// Fail closed where it matters: a user's before-hook whose program cannot
// be loaded refuses every call it covers (the user asked for that check);
// a user's answerer that cannot be loaded is left out (its asks reach the
// human), with a note.
//
// The lineup is read on every call (hooks see every call): the workspace
// file is re-read when its stat changes, program files are hashed (an
// interpreter outside the workspace once per stat), trusts are read from
// the store.
package lineup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/gate/command"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// Roles of an entry.
const (
	RoleAnswerer = "answerer"
	RoleHook     = "hook"
)

// ReviewerFunc builds the reviewer model of a `kind = "model"` entry; it
// is called once per entry (the reviewer keeps its breaker and budget per
// session).
type ReviewerFunc func(spec config.AnswererSpec) (gate.Answerer, error)

// Config wires a Lineup.
type Config struct {
	// Answerers and Hooks are the user's (config.Config's); UserDir the
	// folder their relative program names start from.
	Answerers []config.AnswererSpec
	Hooks     []config.HookSpec
	UserDir   string
	// Store holds the trusts and the answers; required.
	Store *store.Store
	// Cage runs the programs (its hidden paths are copied in).
	Cage *sandbox.Cage
	// Reviewer builds reviewer models; nil leaves them out, with a note.
	Reviewer ReviewerFunc
	// Allowed says whether the organisation lets a kind answer asks
	// (command, model, remote); nil allows every kind.
	Allowed func(kind string) bool
	// Egress, when it returns one, lets command answerers and hooks reach
	// the network through the cage's proxy (the organisation allowed it);
	// nil: no network.
	Egress func() *sandbox.Egress
	// Home expands "~/" in program names; "" is the user's home.
	Home string
}

// Lineup builds sessions' lineups. Safe for concurrent use.
type Lineup struct {
	cfg    Config
	loader *command.Loader
	runner *command.Runner

	mu        sync.Mutex
	ws        map[string]wsEntry       // workspace path → its file, by stat
	reviewers map[string]gate.Answerer // ConfigHash → the reviewer
	sessions  map[string]string        // session id → workspace id
}

type wsEntry struct {
	mtime     time.Time
	size      int64
	ino       uint64
	answerers []config.AnswererSpec
	hooks     []config.HookSpec
	warnings  []string
	err       error
}

// New returns a Lineup.
func New(cfg Config) (*Lineup, error) {
	if cfg.Store == nil {
		return nil, errors.New("lineup: a Store is required")
	}
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	return &Lineup{cfg: cfg, loader: command.NewLoader(), runner: &command.Runner{Cage: cfg.Cage},
		ws: map[string]wsEntry{}, reviewers: map[string]gate.Answerer{}, sessions: map[string]string{}}, nil
}

// For is the gate's LineupFunc: the session's answerers and hooks.
func (l *Lineup) For(ctx context.Context, c gate.CallInfo) gate.Lineup {
	var out gate.Lineup
	for _, e := range l.entries(ctx, c.SessionID, c.Workspace) {
		if e.Note != "" {
			out.Notes = append(out.Notes, e.Note)
		}
		switch {
		case e.answerer != nil:
			out.Answerers = append(out.Answerers, e.answerer)
		case e.hook != nil:
			out.Hooks = append(out.Hooks, e.hook)
		}
	}
	return out
}

// entry is one configured answerer or hook as it stands for a session.
type entry struct {
	AnswererEntry
	answerer gate.Answerer
	hook     gate.Hook
}

// entries resolves every configured entry for a session of workspace, in
// order: the user's answerers, the workspace's, the user's hooks, the
// workspace's.
func (l *Lineup) entries(ctx context.Context, sessionID, workspace string) []entry {
	wsA, wsH, warn, wsErr := l.workspaceFile(workspace)
	var out []entry
	for _, s := range l.cfg.Answerers {
		out = append(out, l.answerer(ctx, sessionID, workspace, s))
	}
	if wsErr != nil {
		out = append(out, entry{AnswererEntry: AnswererEntry{Role: RoleAnswerer, Tier: config.TierWorkspace, State: StateBroken,
			Note: "This workspace's answerers and hooks were not read, so none of them run: " + wsErr.Error()}})
	}
	for _, w := range warn {
		out = append(out, entry{AnswererEntry: AnswererEntry{Role: RoleAnswerer, Tier: config.TierWorkspace, State: StateLeftOut, Note: w}})
	}
	for _, s := range wsA {
		out = append(out, l.answerer(ctx, sessionID, workspace, s))
	}
	for _, h := range append(append([]config.HookSpec(nil), l.cfg.Hooks...), wsH...) {
		out = append(out, l.hookEntry(ctx, sessionID, workspace, h))
	}
	return out
}

func (l *Lineup) allowed(kind string) bool { return l.cfg.Allowed == nil || l.cfg.Allowed(kind) }

func (l *Lineup) answerer(ctx context.Context, sessionID, workspace string, s config.AnswererSpec) entry {
	e := entry{AnswererEntry: AnswererEntry{Role: RoleAnswerer, Kind: s.Kind, Name: s.Name, Tier: s.Tier, File: s.File, Command: s.Command,
		Model: s.Model, Timeout: s.Timeout.String(), Budget: s.Budget, State: StateActive}}
	who := describe(RoleAnswerer, s.Kind, s.Name)
	if !l.allowed(s.Kind) {
		e.State, e.Note = StateNotAllowed, "The "+who+" does not answer: your organisation's policy does not allow "+s.Kind+" answerers."
		return e
	}
	if s.Kind == config.AnswererModel {
		r, err := l.reviewer(s)
		if err != nil {
			e.State, e.Note = StateBroken, "The "+who+" does not answer: "+err.Error()
			return e
		}
		if st, ok := r.(interface{ Status(string) string }); ok {
			e.Status = st.Status(sessionID)
		}
		e.answerer = r
		return e
	}
	prog, err := l.load(s.Command, s.Tier, workspace)
	if err != nil {
		e.State, e.Note = StateBroken, "The "+who+" does not answer: "+err.Error()
		if s.Tier == config.TierWorkspace {
			e.State = StateChanged
			e.Note += "; trust it again once it is fixed"
		}
		return e
	}
	e.ProgramHash, e.Paths = prog.Hash, prog.Paths
	e.ConfigHash = s.ConfigHash()
	if s.Tier == config.TierWorkspace {
		if st, note := l.trusted(ctx, sessionID, RoleAnswerer, s.Name, e.ConfigHash, prog.Hash); st != StateActive {
			e.State, e.Note = st, fmt.Sprintf(note, "The "+who)
			return e
		}
	}
	e.answerer = command.NewAnswerer(s.Name, prog, s.Timeout, l.runner, l.egress())
	return e
}

func (l *Lineup) hookEntry(ctx context.Context, sessionID, workspace string, h config.HookSpec) entry {
	e := entry{AnswererEntry: AnswererEntry{Role: RoleHook, Kind: h.When, Name: h.Name, Tier: h.Tier, File: h.File, Command: h.Command,
		Tools: h.Tools, Timeout: h.Timeout.String(), State: StateActive, ConfigHash: h.ConfigHash()}}
	who := describe(RoleHook, h.When, h.Name)
	prog, err := l.load(h.Command, h.Tier, workspace)
	if err != nil {
		if h.Tier == config.TierUser {
			// The user asked for this check: without it nothing it covers runs.
			e.State, e.Note = StateBroken, "The "+who+" cannot run ("+err.Error()+"), so every call it covers is refused until it is fixed."
			e.hook = brokenHook{name: h.Name, when: h.When, tools: h.Tools, err: err}
			return e
		}
		e.State, e.Note = StateChanged, "The "+who+" does not run: "+err.Error()+"; trust it again once it is fixed"
		return e
	}
	e.ProgramHash, e.Paths = prog.Hash, prog.Paths
	if h.Tier == config.TierWorkspace {
		if st, note := l.trusted(ctx, sessionID, RoleHook, h.Name, e.ConfigHash, prog.Hash); st != StateActive {
			e.State, e.Note = st, fmt.Sprintf(note, "The "+who)
			return e
		}
	}
	e.hook = command.NewHook(h.Name, h.When, h.Tools, prog, h.Timeout, l.runner, l.egress())
	return e
}

func (l *Lineup) egress() *sandbox.Egress {
	if l.cfg.Egress == nil {
		return nil
	}
	return l.cfg.Egress()
}

// load reads an entry's program. A workspace's relative names start at
// the workspace, the user's at their config folder; files in the workspace
// or hidden from the cage run from a checked copy.
func (l *Lineup) load(argv []string, tier, workspace string) (command.Program, error) {
	base := l.cfg.UserDir
	if tier == config.TierWorkspace {
		base = workspace
	}
	var hidden []string
	if l.cfg.Cage != nil {
		hidden = l.cfg.Cage.Hidden()
	}
	copyIn := func(p string) bool {
		if workspace != "" && sandbox.Within(workspace, p) {
			return true
		}
		for _, h := range hidden {
			if sandbox.Within(h, p) {
				return true
			}
		}
		return false
	}
	return l.loader.Load(argv, command.Where{Base: base, Home: l.cfg.Home, Copy: copyIn})
}

// reviewer is the one reviewer of a model entry (its breaker and budget
// live across calls).
func (l *Lineup) reviewer(s config.AnswererSpec) (gate.Answerer, error) {
	if l.cfg.Reviewer == nil {
		return nil, errors.New("reviewer models are not available in this process")
	}
	k := s.ConfigHash()
	l.mu.Lock()
	r, ok := l.reviewers[k]
	l.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := l.cfg.Reviewer(s)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if prev, ok := l.reviewers[k]; ok {
		r = prev
	} else {
		l.reviewers[k] = r
	}
	l.mu.Unlock()
	return r, nil
}

// workspaceFile is a workspace's own entries, read again when the file's
// stat changes.
func (l *Lineup) workspaceFile(workspace string) ([]config.AnswererSpec, []config.HookSpec, []string, error) {
	if workspace == "" {
		return nil, nil, nil, nil
	}
	fi, err := os.Stat(config.WorkspacePath(workspace))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	l.mu.Lock()
	e, ok := l.ws[workspace]
	l.mu.Unlock()
	if ok && e.mtime.Equal(fi.ModTime()) && e.size == fi.Size() && e.ino == ino {
		return e.answerers, e.hooks, e.warnings, e.err
	}
	e = wsEntry{mtime: fi.ModTime(), size: fi.Size(), ino: ino}
	e.answerers, e.hooks, e.warnings, e.err = config.ReadWorkspaceAnswerers(workspace)
	l.mu.Lock()
	l.ws[workspace] = e
	l.mu.Unlock()
	return e.answerers, e.hooks, e.warnings, e.err
}

// trustValue is what a trust vouches for, stored as the memory's value.
type trustValue struct {
	ConfigHash  string   `json:"config_hash"`
	ProgramHash string   `json:"program_hash"`
	Paths       []string `json:"paths,omitempty"`
}

// trusted says whether the user's trust still vouches for an entry; the
// note (a format with %s for who) says why not.
func (l *Lineup) trusted(ctx context.Context, sessionID, role, name, configHash, programHash string) (State, string) {
	wsID, err := l.workspaceID(ctx, sessionID)
	if err != nil {
		return StateUntrusted, "%s does not run: its trust could not be read (" + err.Error() + ")."
	}
	m, err := l.cfg.Store.GetMemory(ctx, wsID, store.AnswererTrustNamespace, role+":"+name)
	if errors.Is(err, store.ErrNotFound) {
		return StateUntrusted, "%s comes with this workspace and does not run until you trust it (Settings → Answerers, or /answerers)."
	}
	if err != nil {
		return StateUntrusted, "%s does not run: its trust could not be read (" + err.Error() + ")."
	}
	var v trustValue
	if json.Unmarshal([]byte(m.Value), &v) != nil {
		return StateChanged, "%s does not run: its trust is unreadable; trust it again."
	}
	switch {
	case v.ConfigHash != configHash:
		return StateChanged, "%s changed in the workspace's config since you trusted it and does not run until you trust it again."
	case v.ProgramHash != programHash:
		return StateChanged, "%s: its program file changed since you trusted it, so it does not run until you trust it again."
	}
	return StateActive, ""
}

func (l *Lineup) workspaceID(ctx context.Context, sessionID string) (string, error) {
	l.mu.Lock()
	id, ok := l.sessions[sessionID]
	l.mu.Unlock()
	if ok {
		return id, nil
	}
	s, err := l.cfg.Store.Session(ctx, sessionID)
	if err != nil {
		return "", err
	}
	l.mu.Lock()
	l.sessions[sessionID] = s.WorkspaceID
	l.mu.Unlock()
	return s.WorkspaceID, nil
}

// describe names an entry the way the human reads it: "hook `corp-guard`",
// "command answerer `check`", "reviewer model `claude-haiku-4-5`".
func describe(role, kind, name string) string {
	switch {
	case role == RoleHook:
		return kind + "-call hook `" + name + "`"
	case kind == config.AnswererModel:
		return "reviewer model `" + name + "`"
	}
	return "command answerer `" + name + "`"
}

// brokenHook stands for a user's hook that cannot run: it refuses what it
// covers.
type brokenHook struct {
	name, when string
	tools      []string
	err        error
}

func (b brokenHook) Name() string { return b.name }
func (b brokenHook) BeforeCall(_ context.Context, c gate.CallInfo) (*gate.Refusal, error) {
	if b.when != config.HookBefore || len(b.tools) > 0 && !contains(b.tools, c.Tool) {
		return nil, nil
	}
	return nil, fmt.Errorf("hook `%s` cannot run: %w", b.name, b.err)
}
func (brokenHook) AfterCall(context.Context, gate.CallInfo, tools.Result) {}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Base is where a config file's relative program names start.
func Base(configPath string) string { return filepath.Dir(configPath) }
