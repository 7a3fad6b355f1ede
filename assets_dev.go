//go:build !production

package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing/fstest"
)

// devAssetsEnv names the built frontend a development build serves when no
// Vite dev server is in front of it (scripts/dev.sh starts one).
const devAssetsEnv = "WARDEN_DEV_ASSETS"

// Outside production builds (the dev build, binding generation, go vet)
// the frontend is not embedded, so a fresh clone compiles before `npm run
// build`. Its files come from the folder $WARDEN_DEV_ASSETS names
// (absolute), never from the working directory: a frontend/dist there may
// be one a caged command wrote. Without the variable the window shows a
// page saying so.
func assets() (fs.FS, error) {
	dir := os.Getenv(devAssetsEnv)
	if dir == "" {
		return fstest.MapFS{"index.html": {Data: []byte(devPage)}}, nil
	}
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%s=%q is not an absolute path (the working directory is never looked in)", devAssetsEnv, dir)
	}
	return os.DirFS(dir), nil
}

const devPage = `<!doctype html><meta charset="utf-8"><title>Warden (development build)</title>
<p>This is a development build without its frontend. Run <code>make dev</code> (the Vite dev server), or set
<code>WARDEN_DEV_ASSETS</code> to the absolute path of a built <code>frontend/dist</code>.</p>`
