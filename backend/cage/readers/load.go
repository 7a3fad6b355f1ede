package readers

import (
	"fmt"
	"path/filepath"
	"strings"
)

// RefusedError is a candidate for code or assets Warden would load that
// lies where a caged command can write: inside a workspace or writable
// root of a session. Warden never loads from there (nothing it loads is
// looked up relative to the working directory either).
type RefusedError struct {
	What string // "the browser driver's Node", "warden serve's static assets", ...
	Path string // the candidate, as found
	Real string // where it resolves to, when that differs
	Root string // the workspace or writable root holding it
}

func (e *RefusedError) Error() string {
	where := e.Path
	if e.Real != "" && e.Real != e.Path {
		where += " (" + e.Real + ")"
	}
	return fmt.Sprintf("refusing %s at %s: it lies inside %s, which a caged command can write, and Warden loads code and assets only from installed locations and explicit settings outside every workspace and writable root",
		e.What, where, e.Root)
}

// CheckLoad refuses path when it, or the file it resolves to through
// symbolic links, lies at or under one of roots (which are resolved too).
// A path that does not exist is judged as written. nil means path may be
// loaded.
func CheckLoad(what, path string, roots []string) error {
	if path == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	cands := []string{filepath.Clean(abs)}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != cands[0] {
		cands = append(cands, real)
	}
	for _, root := range roots {
		if root == "" || !filepath.IsAbs(root) {
			continue
		}
		rs := []string{filepath.Clean(root)}
		if real, err := filepath.EvalSymlinks(root); err == nil && real != rs[0] {
			rs = append(rs, real)
		}
		for _, c := range cands {
			for _, r := range rs {
				if within(r, c) {
					e := &RefusedError{What: what, Path: path, Root: root}
					if c != cands[0] {
						e.Real = c
					}
					return e
				}
			}
		}
	}
	return nil
}

// within reports whether p is root or lies below it (both clean, absolute).
func within(root, p string) bool {
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
