package store_test

import (
	"context"
	"testing"

	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, path string, key store.Key, opts ...store.Option) store.API {
		s, err := store.Open(context.Background(), path, key, opts...)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return s
	})
}
