package main

import (
	"context"
	"flag"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/store"
)

// dbFlag is the --db flag every subcommand that touches the store shares.
// Its value goes to backend/assemble, which owns the path rule: --db, then
// $WARDEN_DB, then $XDG_DATA_HOME/warden/warden.db.
type dbFlag struct{ path string }

func addDBFlag(fs *flag.FlagSet) *dbFlag {
	d := &dbFlag{}
	fs.StringVar(&d.path, "db", "", dbUsage)
	return d
}

// dbUsage is the --db help of every subcommand.
const dbUsage = "the database `file` (default $" + assemble.DBEnv + ", else $XDG_DATA_HOME/warden/warden.db)"

// open opens the resolved database with the installation's audit key.
func (d *dbFlag) open(ctx context.Context, opts ...store.Option) (*store.Store, error) {
	st, _, err := assemble.OpenStore(ctx, d.path, opts...)
	return st, err
}
