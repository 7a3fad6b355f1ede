package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// What guards the protected paths beyond plain read-only binds: pins on the
// folders above them, placeholders over the missing ones, and the check
// after exit for what mounts cannot hold.

// Violation is a cage-protected path a process created although it must not.
// It has been removed again.
type Violation struct {
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

// watched is a protected path the mounts alone cannot hold, with its state
// before the run: one whose parent is missing (no placeholder possible), a
// symlink (a mount lands on its target; the link itself can be swapped), or
// one below a symlinked folder (the folder can be swapped).
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

// Finish removes placeholder mount points and undoes the creation of any
// protected path that did not exist before, reporting each as a violation.
// Call it after the process has been waited for.
func (p *Prepared) Finish() []Violation {
	for _, f := range p.temp {
		_ = os.Remove(f)
	}
	var out []Violation
	for _, m := range p.mount {
		if emptyPlaceholder(m) {
			_ = os.Remove(m.Path)
			continue
		}
		if _, err := os.Lstat(m.Path); err == nil {
			_ = os.RemoveAll(m.Path)
			out = append(out, Violation{Path: m.Path, Detail: "created a cage-protected path; removed"})
		}
	}
	for _, w := range p.watch {
		if !w.changed() {
			continue
		}
		_ = os.RemoveAll(w.Path)
		detail := "created a cage-protected path; removed"
		if w.existed {
			detail = "replaced a cage-protected path; the replacement was removed"
			if w.link != "" && os.Symlink(w.link, w.Path) == nil {
				detail = "replaced a cage-protected symlink; restored"
			}
		}
		out = append(out, Violation{Path: w.Path, Detail: detail})
	}
	return out
}

func emptyPlaceholder(p Protected) bool {
	fi, err := os.Lstat(p.Path)
	if err != nil {
		return false
	}
	if p.Dir {
		if !fi.IsDir() {
			return false
		}
		ents, err := os.ReadDir(p.Path)
		return err == nil && len(ents) == 0
	}
	return fi.Mode().IsRegular() && fi.Size() == 0
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

// linkedAncestor says whether a folder between p's root and p is a symlink.
func linkedAncestor(roots []string, p string) bool {
	for _, d := range between(roots, p) {
		if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
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

type placeholderSrc struct{ file, dir string }

// placeholders makes (once) the empty read-only file and folder bound over
// protected paths that do not exist.
func (c *Cage) placeholders() (placeholderSrc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phDir != "" {
		if _, err := os.Stat(c.phFile); err == nil {
			return placeholderSrc{c.phFile, c.phFolder}, nil
		}
	}
	d, err := os.MkdirTemp("", "warden-cage-")
	if err != nil {
		return placeholderSrc{}, fmt.Errorf("sandbox: placeholder: %w", err)
	}
	f := filepath.Join(d, "empty")
	if err := os.WriteFile(f, nil, 0o444); err != nil {
		return placeholderSrc{}, fmt.Errorf("sandbox: placeholder: %w", err)
	}
	folder := filepath.Join(d, "emptydir")
	if err := os.Mkdir(folder, 0o555); err != nil {
		return placeholderSrc{}, fmt.Errorf("sandbox: placeholder: %w", err)
	}
	c.phDir, c.phFile, c.phFolder = d, f, folder
	return placeholderSrc{f, folder}, nil
}

// Close removes the cage's private placeholder folder.
func (c *Cage) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phDir == "" {
		return nil
	}
	_ = os.Chmod(c.phFolder, 0o755)
	err := os.RemoveAll(c.phDir)
	c.phDir = ""
	return err
}
