package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// Protected is one cage-protected location: a place where a write would
// later run code outside the cage or reconfigure the agent.
type Protected struct {
	Path string `json:"path"` // absolute
	Dir  bool   `json:"dir"`  // the kind of placeholder when it does not exist
}

// protectedDirs are the cage-protected names that are folders; the others
// get a file placeholder when they do not exist.
var protectedDirs = map[string]bool{".git/hooks": true, ".warden": true, ".vscode": true}

// protectedNames are cage-protected relative to every writable root: the
// policy's list, so the engine and the cage never disagree. Rc files matter
// when a writable root is a home directory; the git entries when it holds a
// repository.
func protectedNames() []Protected {
	var out []Protected
	for _, n := range policy.CageProtectedNames() {
		out = append(out, Protected{Path: n, Dir: protectedDirs[n]})
	}
	return out
}

// CageProtected lists the cage-protected paths inside the given writable
// roots: the fixed names under each root, the config and hooks of the gitdir
// a worktree's .git file points to (and of its common dir), and every extra
// path (Warden's own config and data folders) that lies under a root. Paths
// outside every root are read-only in the cage anyway and are left out.
func CageProtected(roots, extra []string) []Protected {
	seen := map[string]bool{}
	var out []Protected
	add := func(p Protected) {
		if seen[p.Path] || !underAny(p.Path, roots) {
			return
		}
		seen[p.Path] = true
		out = append(out, p)
	}
	for _, root := range roots {
		for _, n := range protectedNames() {
			add(Protected{Path: filepath.Join(root, n.Path), Dir: n.Dir})
		}
		for _, gd := range gitDirs(root) {
			add(Protected{Path: filepath.Join(gd, "hooks"), Dir: true})
			add(Protected{Path: filepath.Join(gd, "config")})
			add(Protected{Path: filepath.Join(gd, "config.worktree")})
		}
	}
	for _, e := range extra {
		if e != "" && filepath.IsAbs(e) {
			add(Protected{Path: filepath.Clean(e), Dir: true})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// gitDirs follows a worktree's ".git" file ("gitdir: ...") to its gitdir and
// that gitdir's common dir. A plain .git directory yields nothing extra: the
// fixed names already cover it.
func gitDirs(root string) []string {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil || fi.IsDir() {
		return nil
	}
	gd := readGitdirLine(dotgit, "gitdir:")
	if gd == "" {
		return nil
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(root, gd)
	}
	if r, err := filepath.EvalSymlinks(gd); err == nil {
		gd = r
	}
	dirs := []string{gd}
	if common := readGitdirLine(filepath.Join(gd, "commondir"), ""); common != "" {
		if !filepath.IsAbs(common) {
			common = filepath.Join(gd, common)
		}
		if r, err := filepath.EvalSymlinks(common); err == nil {
			common = r
		}
		dirs = append(dirs, filepath.Clean(common))
	}
	return dirs
}

func readGitdirLine(path, prefix string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return ""
	}
	line := strings.TrimSpace(sc.Text())
	if !strings.HasPrefix(line, prefix) {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(line, prefix))
}

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if Within(r, p) {
			return true
		}
	}
	return false
}

// Within reports whether p is root or lies below it (both clean, absolute).
func Within(root, p string) bool {
	if p == root {
		return true
	}
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
