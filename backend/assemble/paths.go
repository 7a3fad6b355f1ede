package assemble

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/warden-dev/warden/backend/auditkey"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/store"
)

// DBEnv overrides the default database path, like --db.
const DBEnv = "WARDEN_DB"

// ResolveDBPath is the one database-path rule of every front end: the
// path the user named (--db), then $WARDEN_DB, then store.DefaultPath().
// explicit reports that the user named it, which narrows what is protected
// (see protectedData). The folder is created.
func ResolveDBPath(named string) (path string, explicit bool, err error) {
	return resolveDBPath(named, os.Getenv)
}

func resolveDBPath(named string, getenv func(string) string) (string, bool, error) {
	p, explicit := named, named != ""
	if p == "" {
		if p = getenv(DBEnv); p != "" {
			explicit = true
		}
	}
	if p == "" {
		var err error
		if p, err = store.DefaultPath(); err != nil {
			return "", false, err
		}
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", false, fmt.Errorf("data folder %s: %w", filepath.Dir(p), err)
	}
	return p, explicit, nil
}

// Opened says what OpenStore opened.
type Opened struct {
	Path    string // the database
	KeyPath string // the audit key its hash chains are keyed with
	// KeyCreated: there was no key, so one was made (older keyed events
	// then cannot verify).
	KeyCreated bool
}

// OpenStore opens the database alone, for front ends that only read or
// edit the record (`warden audit`, `warden mcp`): the same path rule, the
// same audit key and the same open as Open.
func OpenStore(ctx context.Context, named string, opts ...store.Option) (*store.Store, Opened, error) {
	var o Opened
	var err error
	if o.Path, _, err = ResolveDBPath(named); err != nil {
		return nil, o, err
	}
	if o.KeyPath, err = AuditKeyPath(); err != nil {
		return nil, o, err
	}
	st, created, err := openStore(ctx, o.Path, o.KeyPath, opts...)
	o.KeyCreated = created
	return st, o, err
}

// AuditKeyPath is the installation's audit key: in Warden's config folder,
// next to config.toml (which the engine protects and the cage hides).
func AuditKeyPath() (string, error) {
	userPath, err := config.UserPath()
	if err != nil {
		return "", err
	}
	return auditkey.PathFor(userPath), nil
}

// openStore is the one place a store is opened, chained with the audit key
// at keyPath (made at first use).
func openStore(ctx context.Context, path, keyPath string, opts ...store.Option) (*store.Store, bool, error) {
	key, created, err := auditkey.LoadOrCreate(keyPath)
	if err != nil {
		return nil, false, err
	}
	st, err := store.Open(ctx, path, key, opts...)
	if err != nil {
		return nil, created, fmt.Errorf("database %s: %w", path, err)
	}
	return st, created, nil
}

// protectedData is what no tool may touch: Warden's config folder, its
// cache folder and its data folder — and, with an explicit database path, that database's files
// (not their folder, so a database kept inside a workspace does not freeze
// it). The default data folder stays protected either way: it holds the
// user's everyday database even while a run uses another.
func protectedData(db string, explicit bool, userConfig string) []string {
	// The organisation's folder too, in case a writable root covers it.
	out := []string{filepath.Dir(userConfig), orgpolicy.Dir}
	if def, err := store.DefaultPath(); err == nil {
		out = append(out, realDir(filepath.Dir(def)))
	}
	// The cache Warden fills: the browser driver it lays out and runs,
	// and the checkpoint store when the database sits in a workspace.
	if cache, err := os.UserCacheDir(); err == nil {
		out = append(out, realDir(filepath.Join(cache, "warden")))
	}
	dir := realDir(filepath.Dir(db))
	if !explicit {
		if !slices.Contains(out, dir) {
			out = append(out, dir)
		}
		return out
	}
	base := filepath.Join(dir, filepath.Base(db))
	// The checkpoint store lives beside the database (backend/checkpoint).
	return append(out, base, base+"-wal", base+"-shm", base+"-journal", filepath.Join(dir, "checkpoints"))
}

// realDir resolves a folder through symlinks when it exists.
func realDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// newCage is the one place the OS cage is built, from CageConfig (the
// mode, Warden's own folders, the [sandbox] settings) and the front end's
// network forwarder ("" for the running binary).
func newCage(cfg config.Config, protected []string, forwarder, version string) *sandbox.Cage {
	c := CageConfig(cfg, protected)
	c.Forwarder = forwarder
	c.Version = version
	// The probe is kept in the user's cache: a one-shot `warden tool` would
	// otherwise start bwrap twice before its call (sandbox/probecache.go).
	if dir, err := os.UserCacheDir(); err == nil {
		c.ProbeCacheDir = filepath.Join(dir, "warden")
	}
	return sandbox.New(c)
}

// ProbeCage runs the cage's probe for a front end that has no graph (the
// window when the database would not open): the same configuration as
// Open's cage, detected once and closed.
func ProbeCage(ctx context.Context, o Options) sandbox.Status {
	cfg := config.Default()
	userPath := o.ConfigPath
	if userPath == "" {
		userPath, _ = config.UserPath()
	}
	if userPath != "" {
		// An unreadable config probes the default (bwrap) cage.
		if c, err := config.Load(userPath, o.Workspace); err == nil {
			cfg = c
		}
	}
	c := newCage(cfg, nil, "", o.Version)
	defer c.Close()
	return c.Detect(ctx)
}
