//go:build !cgo

package store

// The store runs on the C SQLite through github.com/mattn/go-sqlite3, which
// needs cgo. Built without it, that driver compiles to a stub whose every
// Open fails at run time; this constant turns such a build into a compile
// error that says why.
const _ uint = "backend/store needs cgo: build with CGO_ENABLED=1 and a C compiler (make deps installs gcc)"
