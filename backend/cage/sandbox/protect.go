package sandbox

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/warden-dev/warden/backend/cage/readers"
	"github.com/warden-dev/warden/backend/policy"
)

// Protected is one cage-protected location: a place where a write would
// later run code outside the cage or reconfigure the agent.
type Protected struct {
	Path string `json:"path"` // absolute
	Dir  bool   `json:"dir"`
}

// rules decides, for one call, what is protected or hidden inside the
// writable roots. The protected rule is the policy's (CageProtected, the
// engine's ProtectedTier plus the kind of the entry), so the engine and
// the cage never disagree.
type rules struct {
	roots  []string // writable roots, parents first
	hidden []string // hidden paths (secrets, Warden's folders)
	held   heldSet  // what git reads or runs here (gitset.go)
	git    *readers.Git
	// approved are protected paths a human approved writing in this call
	// (policy.Cage.Approved): not held.
	approved []string
	// judge, when set, replaces the policy's rule below the roots (the
	// home guard of a full-access cage, shape.go).
	judge func(p string) bool
}

// protected says whether p, below one of the roots, must not be created or
// changed by a caged process: the one list's entries the cage holds
// (policy.CageHeld: the cage tier, and the edit tier's read-only entries,
// whatever the root is — the user's home included), the hidden paths, and
// what the repositories' real config makes git read or run.
func (r *rules) protected(p string, isDir bool) bool {
	root := rootOf(r.roots, p)
	if root == "" {
		return false
	}
	if _, ok := hiddenUnder(r.hidden, p); ok {
		return true
	}
	for _, a := range r.approved {
		// The approved path itself, and the folders on the way to it
		// (their other entries are judged one by one).
		if Within(p, a) {
			return false
		}
	}
	if r.judge != nil {
		return r.judge(p)
	}
	return policy.CageHeld(p, root, isDir) || r.held.holds(p)
}

// scan is what the walk of the writable roots found before a call.
type scan struct {
	protected []Protected    // existing protected and hidden entries, bound over
	dirs      []string       // every other real folder, watched
	repos     []readers.Repo // the repositories git would use in the roots
}

// walk lists the protected entries inside the roots at any depth, without
// descending into them (their bind covers what they hold) or into
// symlinks (a link is an entry of its own; the cage does not follow it).
// visit is called for each folder before it is read, so a watch added
// there misses nothing created while the walk goes on.
func (r *rules) walk(visit func(dir string) error) (scan, error) {
	var s scan
	seen := map[string]bool{}
	var rec func(dir string) error
	rec = func(dir string) error {
		if seen[dir] {
			return nil
		}
		seen[dir] = true
		if visit != nil {
			if err := visit(dir); err != nil {
				return err
			}
		}
		s.dirs = append(s.dirs, dir)
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil // unreadable or gone: nothing to protect below it
		}
		if readers.LooksLikeGitDir(ents) && readers.IsGitDir(dir) {
			// A gitdir by git's discovery rules, whatever its name.
			s.repos = append(s.repos, readers.Repo{Gitdir: dir})
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			isDir := e.IsDir()
			if e.Name() == ".git" {
				if isDir {
					s.repos = append(s.repos, readers.Repo{Gitdir: p, Worktree: dir})
				} else if t, ok := readers.GitFileTarget(p); ok {
					s.repos = append(s.repos, readers.Repo{Gitdir: t, Worktree: dir, Via: p})
				}
			}
			if r.protected(p, isDir) {
				s.protected = append(s.protected, Protected{Path: p, Dir: isDir})
				continue
			}
			if isDir {
				if err := rec(p); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, root := range r.roots {
		if err := rec(root); err != nil {
			return s, err
		}
	}
	sort.Slice(s.protected, func(i, j int) bool { return s.protected[i].Path < s.protected[j].Path })
	return s, nil
}

// CageProtected lists the existing cage-protected entries inside the given
// writable roots at any depth, with the extra paths (Warden's own folders)
// that lie below a root and exist.
func CageProtected(roots, extra []string) []Protected {
	r := &rules{roots: sortedRoots(roots), hidden: hiddenPaths("", nil, extra)}
	s, _ := r.walk(nil)
	return s.protected
}

func sortedRoots(roots []string) []string {
	out := append([]string(nil), roots...)
	sort.Slice(out, func(i, j int) bool { return len(out[i]) < len(out[j]) })
	return out
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
