// Package smoke holds the desktop smoke test: the real Wails binary started
// under an X server, proven to have painted its window, then shut down.
//
// The test itself needs a display and a built binary, so it sits behind the
// `smoke` build tag and runs from `make smoke` (part of `make test`):
//
//	xvfb-run -a -s "-screen 0 1280x800x24" go test -tags smoke ./tests/smoke/
//
// The screenshot analysis it relies on is plain Go and is tested on every
// `go test ./...`.
package smoke
