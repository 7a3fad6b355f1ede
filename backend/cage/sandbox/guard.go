package sandbox

import (
	"os"
	"syscall"
)

// What guards the protected paths beyond plain read-only binds: the state
// of the symlinks among them, which a mount cannot hold (it lands on the
// target; the link itself can be swapped), checked and restored after the
// call.

// Violation is a cage-protected path a process created although it must not.
// It has been removed again.
type Violation struct {
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

// watched is a protected symlink with its state before the run.
type watched struct {
	Protected
	existed bool
	link    string // symlink target, when it was one
	dev     uint64
	ino     uint64
}

func stateOf(p Protected) watched {
	w := watched{Protected: p}
	fi, err := os.Lstat(p.Path)
	if err != nil {
		return w
	}
	w.existed = true
	if fi.Mode()&os.ModeSymlink != 0 {
		w.link, _ = os.Readlink(p.Path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		w.dev, w.ino = uint64(st.Dev), st.Ino
	}
	return w
}

// changed compares the path now with its state before the run.
func (w watched) changed() bool {
	now := stateOf(w.Protected)
	return now.existed != w.existed || now.link != w.link || (w.existed && (now.dev != w.dev || now.ino != w.ino))
}

// restore undoes a change to a protected symlink.
func (w watched) restore() (Violation, bool) {
	if !w.changed() {
		return Violation{}, false
	}
	_ = os.RemoveAll(w.Path)
	detail := "created a cage-protected path; removed"
	if w.existed {
		detail = "replaced a cage-protected path; the replacement was removed"
		if w.link != "" && os.Symlink(w.link, w.Path) == nil {
			detail = "replaced a cage-protected symlink; restored"
		}
	}
	return Violation{Path: w.Path, Detail: detail}, true
}

// rootOf is the deepest writable root holding p.
func rootOf(roots []string, p string) string {
	best := ""
	for _, r := range roots {
		if Within(r, p) && len(r) > len(best) {
			best = r
		}
	}
	return best
}
