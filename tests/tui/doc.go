// Package tui holds the end-to-end test of `warden tui` in a real terminal:
// tmux runs the built bin/warden, capture-pane reads the screen and
// send-keys types. It needs tmux and a built binary, so it sits behind the
// `e2e_tui` build tag and runs from `make e2e-tui` (part of `make test`):
//
//	make cli && go test -tags e2e_tui -count=1 -v ./tests/tui/
//
// The benchmarks (start to first frame, idle memory) are here too:
//
//	go test -tags e2e_tui -run '^$' -bench . -benchtime 5x ./tests/tui/
package tui
