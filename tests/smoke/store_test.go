//go:build smoke

package smoke

import (
	"context"
	"testing"

	"github.com/warden-dev/warden/backend/auditkey"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/store"
)

// openStore opens the window's database with the window's audit key: the
// one in the config folder the test's XDG_CONFIG_HOME names.
func openStore(t *testing.T, dbPath string) (*store.Store, error) {
	t.Helper()
	cfg, err := config.UserPath()
	if err != nil {
		return nil, err
	}
	key, _, err := auditkey.LoadOrCreate(auditkey.PathFor(cfg))
	if err != nil {
		return nil, err
	}
	return store.Open(context.Background(), dbPath, key)
}
