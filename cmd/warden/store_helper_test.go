//go:build !wardenslim

package main

import (
	"context"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/store"
)

// openStore opens a test database the way every command does: through
// assemble, with the installation's audit key.
func openStore(ctx context.Context, path string, opts ...store.Option) (*store.Store, error) {
	st, _, err := assemble.OpenStore(ctx, path, opts...)
	return st, err
}
