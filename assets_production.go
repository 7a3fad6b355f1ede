//go:build production

package main

import (
	"embed"
	"io/fs"
)

// The production build carries the built frontend inside the binary.
//
//go:embed all:frontend/dist
var embedded embed.FS

func assets() (fs.FS, error) {
	return fs.Sub(embedded, "frontend/dist")
}
