//go:build !wardenslim

// The package's tests build and run both binaries themselves; they compile
// only in the full build, so `go vet -tags wardenslim` vets the slim
// build's own code (make vet).

package main

import (
	"os"
	"testing"
)

// TestMain gives the tests a config folder of their own before anything
// runs: opening a store creates the installation's audit key there, and
// no test may create (or read) the user's. Tests that need their own
// folders still t.Setenv over it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "warden-cmd-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	if cliBuild.dir != "" {
		os.RemoveAll(cliBuild.dir)
	}
	os.Exit(code)
}
