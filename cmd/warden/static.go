//go:build !wardenslim

package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"

	"github.com/warden-dev/warden/backend/cage/readers"
)

// StaticEnv names the built frontend `warden serve` serves, like --static.
const StaticEnv = "WARDEN_STATIC"

// installedStatic is where the package puts the built frontend.
const installedStatic = "/usr/share/warden/frontend"

const staticWhat = "warden serve's static assets"

// staticCandidates are the folders `warden serve` looks in, in order, when
// neither --static nor $WARDEN_STATIC names one: the installed copy beside
// the binary (/usr/bin/warden → /usr/share/warden/frontend, also when the
// package is unpacked elsewhere), the package's usual place, and the
// source tree this binary was built from (a development build's
// frontend/dist; a path fixed at build time, none with -trimpath). Never
// the working directory: a page served from there could be one a caged
// command wrote, and it would sign itself in with the printed code.
func staticCandidates() []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		out = append(out, filepath.Join(filepath.Dir(exe), "..", "share", "warden", "frontend"))
	}
	out = append(out, installedStatic)
	if _, file, _, ok := goruntime.Caller(0); ok && filepath.IsAbs(file) {
		out = append(out, filepath.Join(filepath.Dir(file), "..", "..", "frontend", "dist"))
	}
	return out
}

// staticAssets opens the built frontend: the folder named by --static or
// $WARDEN_STATIC, else the first candidate holding an index.html. A folder
// inside any session's workspace or writable root is refused: named
// explicitly, that is an error; found, it is skipped and said in the hint.
// The folder is checked again on every request (a session opened later may
// cover it). fsys is nil when nothing can be served; hint says why.
func staticAssets(named string, roots func() []string) (fsys fs.FS, dir, hint string, err error) {
	if named == "" {
		named = os.Getenv(StaticEnv)
	}
	if named != "" {
		if err := readers.CheckLoad(staticWhat, named, roots()); err != nil {
			return nil, "", "", err
		}
		if !hasIndex(named) {
			return nil, "", fmt.Sprintf("no built frontend at %s (run `make frontend`, or pass --static DIR); serving the API only", named), nil
		}
		return guarded(named, roots), named, "", nil
	}
	var refused []string
	cands := staticCandidates()
	for _, c := range cands {
		if !hasIndex(c) {
			continue
		}
		if err := readers.CheckLoad(staticWhat, c, roots()); err != nil {
			refused = append(refused, err.Error())
			continue
		}
		return guarded(c, roots), c, "", nil
	}
	hint = fmt.Sprintf("no built frontend found (looked in %v; install the warden package, run `make frontend` in the source tree, or pass --static DIR); serving the API only", cands)
	for _, r := range refused {
		hint += "; " + r
	}
	return nil, "", hint, nil
}

func hasIndex(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "index.html"))
	return err == nil && fi.Mode().IsRegular()
}

// guarded serves dir while it lies outside every writable root.
func guarded(dir string, roots func() []string) fs.FS {
	return guardFS{FS: os.DirFS(dir), dir: dir, roots: roots}
}

type guardFS struct {
	fs.FS
	dir   string
	roots func() []string
}

func (g guardFS) Open(name string) (fs.File, error) {
	if err := readers.CheckLoad(staticWhat, g.dir, g.roots()); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: %v", fs.ErrPermission, err)}
	}
	return g.FS.Open(name)
}
