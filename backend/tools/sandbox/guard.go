package sandbox

import (
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// What guards the protected paths beyond plain read-only binds: pins on the
// folders above them, and the state of the symlinks among them, which a
// mount cannot hold (it lands on the target; the link itself can be
// swapped), checked and restored after the call.

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

// between lists the folders strictly between p's writable root and p.
func between(roots []string, p string) []string {
	root := rootOf(roots, p)
	var out []string
	for d := filepath.Dir(p); root != "" && d != root && Within(root, d); d = filepath.Dir(d) {
		out = append(out, d)
	}
	return out
}

// pins are the real folders between the roots and the protected paths,
// parents first.
func pins(roots []string, protected []Protected) []string {
	seen := map[string]bool{}
	var out []string
	for _, pr := range protected {
		for _, d := range between(roots, pr.Path) {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() && !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return len(out[i]) < len(out[j]) || (len(out[i]) == len(out[j]) && out[i] < out[j])
	})
	return out
}
