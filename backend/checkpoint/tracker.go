package checkpoint

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Store is the part of the store a Tracker needs; *store.Store has it.
type Store interface {
	Append(ctx context.Context, sessionID string, expectedVersion int64, events ...store.Event) (int64, error)
	Events(ctx context.Context, q store.EventQuery) ([]store.StoredEvent, error)
}

// Threshold is when a call allowed without a human counts as destructive:
// more than Files tracked files deleted or truncated, or any one of them
// larger than Bytes.
type Threshold struct {
	Files int
	Bytes int64
}

// DefaultThreshold is more than 5 files or any file over 1 MB.
var DefaultThreshold = Threshold{Files: 5, Bytes: 1 << 20}

func (t Threshold) String() string {
	return fmt.Sprintf("more than %d files or any file over %s", t.Files, humanBytes(t.Bytes))
}

// Config wires a Tracker. Store and Root are required.
type Config struct {
	Store Store
	// Root is where the shadow repositories of a workspace live;
	// RootFor(dbPath, workspace) is the usual one.
	Root func(workspace string) string
	// Excludes replace DefaultExcludes when non-nil.
	Excludes  []string
	Limits    Limits
	Threshold Threshold
	// Caged reports whether shell commands run in the OS cage under a
	// sandbox policy; nil means never.
	Caged func(policy.SandboxPolicy) bool
	NewID func() string
	// OneShot: the process makes one call and exits (`warden tool`). Its
	// snapshots never set up the workspace watcher, which only pays off
	// for the calls after the one that sets it up.
	OneShot bool
}

// Tracker takes the checkpoints of tool calls, records their change sets,
// and undoes them.
type Tracker struct {
	cfg   Config
	mu    sync.Mutex
	repos map[string]*Repo
}

// New returns a tracker.
func New(cfg Config) (*Tracker, error) {
	if cfg.Store == nil || cfg.Root == nil {
		return nil, fmt.Errorf("checkpoint: a tracker needs a Store and a Root")
	}
	if cfg.Threshold.Files <= 0 && cfg.Threshold.Bytes <= 0 {
		cfg.Threshold = DefaultThreshold
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.NewString
	}
	if cfg.Caged == nil {
		cfg.Caged = func(policy.SandboxPolicy) bool { return false }
	}
	return &Tracker{cfg: cfg, repos: map[string]*Repo{}}, nil
}

// Repo returns the shadow repository of a workspace, opening it once.
func (t *Tracker) Repo(ctx context.Context, workspace string) (*Repo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.repos[workspace]; ok {
		return r, nil
	}
	r, err := Open(ctx, t.cfg.Root(workspace), workspace, t.cfg.Excludes)
	if err != nil {
		return nil, err
	}
	if t.cfg.OneShot {
		r.noWatch = "a one-shot process"
	}
	t.repos[workspace] = r
	return r, nil
}

// record appends a change set; a failure to record is reported, never
// raised: the call's own result stands.
func (t *Tracker) record(ctx context.Context, sessionID string, ev store.WorkspaceChanged) error {
	if sessionID == "" {
		return nil
	}
	_, err := t.cfg.Store.Append(context.WithoutCancel(ctx), sessionID, store.AnyVersion, ev)
	return err
}

// changeEvent builds the event of the change between two snapshots.
func (t *Tracker) changeEvent(ctx context.Context, r *Repo, before, after string) (store.WorkspaceChanged, ChangeSet, error) {
	ev := store.WorkspaceChanged{Workspace: r.Workspace(), Before: before, After: after}
	cs, err := r.Diff(ctx, before, after, t.cfg.Limits)
	if err != nil {
		return ev, cs, err
	}
	ev.Files, ev.Omitted = cs.Files, cs.Omitted
	if len(cs.Files)+cs.Omitted > 0 {
		ev.Skipped = r.Skipped()
	}
	return ev, cs, nil
}

// destruction is the warning for a change set, or nil under the threshold.
func (t *Tracker) destruction(cs ChangeSet) *store.Destruction {
	if len(cs.Destroyed) == 0 {
		return nil
	}
	big := false
	for _, f := range cs.Destroyed {
		if t.cfg.Threshold.Bytes > 0 && f.OldSize > t.cfg.Threshold.Bytes {
			big = true
		}
	}
	if !big && (t.cfg.Threshold.Files <= 0 || len(cs.Destroyed) <= t.cfg.Threshold.Files) {
		return nil
	}
	d := &store.Destruction{Threshold: t.cfg.Threshold.String()}
	for _, f := range cs.Destroyed {
		if f.Change == store.ChangeDeleted {
			d.Deleted++
		} else {
			d.Truncated++
		}
		if len(d.Paths) < 50 {
			d.Paths = append(d.Paths, f.Path)
		}
	}
	return d
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Summary is the one-line form of a change set: "3 files changed: src/a.go
// (+12 −3), ...".
func Summary(ev store.WorkspaceChanged) string {
	n := len(ev.Files) + ev.Omitted
	if ev.Error != "" && n == 0 {
		return "no checkpoint: " + ev.Error
	}
	noun := "files"
	if n == 1 {
		noun = "file"
	}
	var parts []string
	for i, f := range ev.Files {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", n-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", f.Path, FileStat(f)))
	}
	return fmt.Sprintf("%d %s changed: %s", n, noun, strings.Join(parts, ", "))
}

// FileStat is "+12 −3", "deleted", "binary", "symlink"...
func FileStat(f store.FileChange) string {
	var s string
	switch {
	case isSymlink(f.Mode) || (f.Mode == "" && isSymlink(f.OldMode)):
		s = "symlink"
	case f.Binary:
		s = "binary, " + humanSize(f.Size)
	case f.DiffOmitted != "" && f.Diff == "" && f.Added == 0 && f.Removed == 0:
		s = humanSize(f.Size)
	default:
		s = fmt.Sprintf("+%d −%d", f.Added, f.Removed)
	}
	switch f.Change {
	case store.ChangeCreated:
		return "new, " + s
	case store.ChangeDeleted:
		return "deleted, " + s
	}
	if f.OldMode != "" && f.Mode != "" && f.OldMode != f.Mode {
		s += ", mode " + f.OldMode + "→" + f.Mode
	}
	return s
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
