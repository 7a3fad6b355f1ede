//go:build !production

package main

import (
	"io/fs"
	"os"
)

// Outside production builds (wails dev, binding generation, go vet) the
// frontend is read from disk, so a fresh clone compiles before `npm run build`.
func assets() (fs.FS, error) {
	return os.DirFS("frontend/dist"), nil
}
