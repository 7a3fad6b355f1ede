package main

import (
	"context"
	"flag"
	"os"

	"github.com/warden-dev/warden/backend/auditkey"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/store"
)

// dbEnv overrides the default database path, like --db.
const dbEnv = "WARDEN_DB"

// dbFlag is the --db flag every subcommand that touches the store shares.
// Precedence: --db, then $WARDEN_DB, then store.DefaultPath().
type dbFlag struct{ path string }

func addDBFlag(fs *flag.FlagSet) *dbFlag {
	d := &dbFlag{}
	fs.StringVar(&d.path, "db", "", "database file (default $"+dbEnv+", else $XDG_DATA_HOME/warden/warden.db)")
	return d
}

// resolve returns the database path to use.
func (d *dbFlag) resolve() (string, error) { return resolveDBPath(d.path, os.Getenv) }

func resolveDBPath(flagValue string, getenv func(string) string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if env := getenv(dbEnv); env != "" {
		return env, nil
	}
	return store.DefaultPath()
}

// open opens the resolved database.
func (d *dbFlag) open(ctx context.Context, opts ...store.Option) (*store.Store, error) {
	path, err := d.resolve()
	if err != nil {
		return nil, err
	}
	return openStore(ctx, path, opts...)
}

// auditKeyPath is the installation's audit key: audit.key in Warden's
// config folder, next to config.toml.
func auditKeyPath() (string, error) {
	cfg, err := config.UserPath()
	if err != nil {
		return "", err
	}
	return auditkey.PathFor(cfg), nil
}

// openStore opens the database at path chained with the installation's
// audit key, creating the key at first use.
func openStore(ctx context.Context, path string, opts ...store.Option) (*store.Store, error) {
	kp, err := auditKeyPath()
	if err != nil {
		return nil, err
	}
	key, _, err := auditkey.LoadOrCreate(kp)
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, path, key, opts...)
}

// explicitDB is the database the user named, by --db or $WARDEN_DB, or ""
// for the default (which assemble resolves and protects as a whole folder).
func explicitDB(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return os.Getenv(dbEnv)
}
