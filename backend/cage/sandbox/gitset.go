package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/warden-dev/warden/backend/cage/readers"
)

// What git executes, held read-only at cage set-up. The walk of the
// writable roots finds every repository git would use in them (a .git
// folder or file at any depth, a folder git takes for a gitdir by its
// discovery rules whatever it is called, the gitdirs of linked worktrees
// and submodules), and git's own discovery from each root upwards finds the
// repository a root lies in. For each, readers.Git lists what git reads as
// configuration or runs, from the repository's real config (includes,
// core.hooksPath, every hook after its links, the files commands in the
// config name, sequencer state); what of that lies in a writable root is
// bound read-only when it exists and removed when a call creates it, like
// the protected names. New repositories a call makes are judged after it
// (readers.Judge, watch.go's stop).

// gitHooks are the names git runs as hooks (githooks(5)): in a hooks
// folder that holds a writable root itself (core.hooksPath = .), only these
// are held, not the whole workspace.
var gitHooks = []string{"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push",
	"pre-receive", "update", "proc-receive", "post-receive", "post-update", "reference-transaction",
	"push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate", "fsmonitor-watchman",
	"p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit", "post-index-change"}

// gitHeld lists what git reads or runs for the repositories in and above
// the roots, limited to what lies inside a root.
func (c *Cage) gitHeld(repos []readers.Repo, roots []string) []readers.HeldPath {
	seen := map[string]bool{}
	all := append([]readers.Repo(nil), repos...)
	for _, r := range roots {
		all = append(all, readers.DiscoverUp(r)...)
	}
	var out []readers.HeldPath
	add := func(h readers.HeldPath) {
		if seen[h.Path] || rootOf(roots, h.Path) == "" {
			return
		}
		seen[h.Path] = true
		out = append(out, h)
	}
	done := map[readers.Repo]bool{}
	for _, repo := range all {
		// One gitdir may be found twice (by its .git file, with its
		// worktree, and by the walk): relative paths differ per worktree.
		if done[repo] {
			continue
		}
		done[repo] = true
		// A config git cannot read is held all the same (Held lists it).
		held, _ := c.git.Held(repo)
		for _, h := range held {
			if h.Dir && holdsRoot(h.Path, roots) {
				// core.hooksPath = . (or above): the hooks by name only.
				for _, n := range gitHooks {
					add(readers.HeldPath{Path: filepath.Join(h.Path, n), Why: h.Why})
				}
				continue
			}
			add(h)
			if h.Dir && filepath.Base(h.Path) == "_" && h.Why == "core.hooksPath" {
				// husky's layout: the hooks in .husky/_ run the
				// scripts in .husky.
				add(readers.HeldPath{Path: filepath.Dir(h.Path), Dir: true, Why: "the scripts husky's hooks run"})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// holdsRoot says whether dir is a root or lies above one.
func holdsRoot(dir string, roots []string) bool {
	for _, r := range roots {
		if Within(dir, r) {
			return true
		}
	}
	return false
}

// heldSet is the git-held paths of one call, for the rules.
type heldSet struct {
	exact map[string]bool // files and folders
	dirs  []string        // folders, sorted
}

func newHeldSet(held []readers.HeldPath) heldSet {
	s := heldSet{exact: map[string]bool{}}
	for _, h := range held {
		s.exact[h.Path] = true
		if h.Dir {
			s.dirs = append(s.dirs, h.Path)
		}
	}
	sort.Strings(s.dirs)
	return s
}

// holds says whether p is a held path or lies in a held folder.
func (s heldSet) holds(p string) bool {
	if s.exact[p] {
		return true
	}
	for _, d := range s.dirs {
		if Within(d, p) {
			return true
		}
	}
	return false
}

// mergeHeld adds the existing held paths to the protected entries the
// cage binds, leaving out what a bound entry already covers.
func mergeHeld(protected []Protected, held []readers.HeldPath) []Protected {
	out := append([]Protected(nil), protected...)
	have := map[string]bool{}
	for _, p := range out {
		have[p.Path] = true
	}
	for _, h := range held {
		if have[h.Path] || coveredBy(out, h.Path) {
			continue
		}
		fi, err := os.Lstat(h.Path)
		if err != nil {
			continue // missing: the watch removes it when it appears
		}
		out = append(out, Protected{Path: h.Path, Dir: fi.IsDir()})
		have[h.Path] = true
	}
	// A folder bound read-only covers the entries in it: drop those.
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	var kept []Protected
	for _, p := range out {
		if coveredBy(kept, p.Path) {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// coveredBy says whether a bound folder among ps holds p (not p itself).
func coveredBy(ps []Protected, p string) bool {
	return slices.ContainsFunc(ps, func(q Protected) bool {
		return q.Dir && q.Path != p && Within(q.Path, p)
	})
}
