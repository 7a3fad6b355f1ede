package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const maxSymlinkHops = 40

// ResolvePath turns a path argument into the absolute path it really names:
// relative to the workspace, ".." and every symlink followed component by
// component, the way the kernel would. A symlink inside the workspace that
// points outside resolves outside, so the policy sees where a write lands. For
// a path that does not exist yet, the deepest existing parent is resolved and
// the rest appended.
func ResolvePath(workspace, p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains a NUL byte")
	}
	if !filepath.IsAbs(p) {
		if !filepath.IsAbs(workspace) {
			return "", fmt.Errorf("workspace %q is not absolute", workspace)
		}
		// Not filepath.Join: it would clean "link/.." lexically, before the
		// link is followed.
		p = workspace + "/" + p
	}
	todo := splitPath(p)
	resolved := "/"
	hops := 0
	for len(todo) > 0 {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, part)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			// Missing or not a link: nothing below a missing name can be a
			// link, so the rest is appended lexically.
			resolved = next
			continue
		}
		hops++
		if hops > maxSymlinkHops {
			return "", fmt.Errorf("%s: too many levels of symbolic links", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		todo = append(splitPath(target), todo...)
	}
	return resolved, nil
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// within reports whether p is root or lies below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// display shows a path relative to the workspace when it lies inside.
func display(workspace, p string) string {
	if within(workspace, p) {
		if rel, err := filepath.Rel(workspace, p); err == nil {
			return rel
		}
	}
	return p
}
