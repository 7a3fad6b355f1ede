// Package handover replaces the slim `warden` (cmd/warden/slim.go) with
// warden-full beside it for every command the slim build does not run, as
// the process's first act: it imports only syscall (and netfwd/early and
// hugeheap, which import only syscall and unsafe), so Go initialises it before the packages the slim
// build links for `warden tool` — the SQLite engine, the config, the
// policy tables — whose start-up a handed-over command would otherwise pay
// for nothing. Anything it cannot settle (no warden-full, an unreadable
// command line) it leaves to main, which says why.
package handover

import (
	"syscall"

	"github.com/warden-dev/warden/backend/cage/netfwd/early"
	"github.com/warden-dev/warden/backend/hugeheap"
)

// FullName is the full binary's file name, beside the slim one (bin/, and
// /usr/bin in the package: the full binary finds its driver, Node and
// frontend relative to its own folder, as the slim one does).
const FullName = "warden-full"

// Own reports whether the slim build runs the command line args (the
// program, then its arguments) itself: `tool`, `version`, and the cage's
// network forwarder (netfwd), which every caged call with network
// re-executes this binary as.
func Own(args []string) bool {
	if len(args) < 2 {
		return false
	}
	switch args[1] {
	case "tool", "version", "--version", "-v", early.Arg:
		return true
	}
	return false
}

// Full is the path of warden-full beside the running binary, if it is an
// executable file there.
func Full() (string, bool) {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/exe", buf)
	if err != nil || n <= 0 || n >= len(buf) {
		return "", false
	}
	exe := string(buf[:n])
	dir := exe[:lastSlash(exe)+1]
	if dir == "" {
		return "", false
	}
	p := dir + FullName
	var st syscall.Stat_t
	if syscall.Stat(p, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Mode&0o111 == 0 {
		return "", false
	}
	return p, true
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

func init() {
	args, ok := early.Cmdline()
	if ok && len(args) > 1 && args[1] == "tool" {
		// The one-shot call this binary is for: a short process whose
		// heap faults are a good part of its cost (package hugeheap).
		// A failure only leaves the heap in small pages.
		_ = hugeheap.Back()
	}
	if !ok || Own(args) {
		return
	}
	if full, ok := Full(); ok {
		// Returns only on failure; main then reports it.
		_ = syscall.Exec(full, args, syscall.Environ())
	}
}
