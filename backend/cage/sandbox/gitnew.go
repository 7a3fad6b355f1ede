package sandbox

import (
	"path/filepath"
	"sort"

	"github.com/warden-dev/warden/backend/cage/readers"
)

// New repositories a call made, judged when it ends. The watch notes every
// new entry whose name can make a folder a gitdir by git's discovery rules
// (HEAD, objects, refs, commondir) or give it something git acts on later
// (config, hooks, sequencer state); at the end of the call each such folder
// is asked IsGitDir. One that was not a gitdir before and now is, and that
// would make a later git outside the cage run something (readers:
// NewGitdirDanger — a config key git init does not write, a real hook, a
// pointer to another gitdir), has what the call made of it removed again:
// the markers that made it a repository (and its config and hooks when
// the call made those), so git no longer takes it for one. Sequencer state the call left in any gitdir
// with an exec line is removed likewise. Each is a Violation; the call
// fails and says why. `git init` and `git clone` (in any folder, under any
// name) and a rebase without exec lines stay.

// gitMarkerNames are the names noted.
var gitMarkerNames = map[string]bool{"HEAD": true, "objects": true, "refs": true, "commondir": true,
	"config": true, "hooks": true, "rebase-merge": true, "rebase-apply": true, "sequencer": true}

func (w *watcher) noteMarker(p string) {
	if !gitMarkerNames[filepath.Base(p)] {
		return
	}
	w.mu.Lock()
	w.markers = append(w.markers, p)
	w.mu.Unlock()
}

// judgeNew judges the folders of the noted markers, and the gitdirs a walk
// at the end found (after: when the watch may have missed events).
func (w *watcher) judgeNew(after []string) {
	w.mu.Lock()
	markers := append([]string(nil), w.markers...)
	w.mu.Unlock()
	byDir := map[string][]string{}
	for _, m := range markers {
		d := filepath.Dir(m)
		byDir[d] = append(byDir[d], m)
	}
	for _, g := range after {
		if !w.repos[g] {
			if _, ok := byDir[g]; !ok {
				byDir[g] = nil
			}
		}
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if rootOf(w.r.roots, d) == "" {
			continue
		}
		for _, m := range byDir[d] {
			switch filepath.Base(m) {
			case "rebase-merge", "rebase-apply", "sequencer":
				if why := readers.SequencerDanger(d); why != "" {
					w.violate(m, "left sequencer state git would act on outside the cage ("+why+"); removed")
				}
			}
		}
		if w.repos[d] || w.wasRepo(d) || !readers.IsGitDir(d) {
			continue
		}
		why := w.r.git.NewGitdirDanger(d)
		if why == "" {
			continue
		}
		// Undo what the call made of it; a walk at the end (no markers
		// known) removes the metadata that makes it a repository.
		made := byDir[d]
		if len(made) == 0 {
			for _, n := range []string{"HEAD", "config", "hooks", "commondir"} {
				made = append(made, filepath.Join(d, n))
			}
		}
		// Only what this call made goes: a config that was there before
		// stays, and without the new markers the folder is no repository.
		for _, m := range made {
			if _, err := lstatBeneath(rootOf(w.r.roots, m), m); err == nil {
				w.violate(m, "made "+d+" a repository git would take for one and run something from ("+why+"); removed")
			}
		}
	}
}

// wasRepo says whether d is, by identity, a gitdir that existed before the
// call: one the call only carried elsewhere (mv .git .git2) is the user's.
func (w *watcher) wasRepo(d string) bool {
	st, err := lstatBeneath(rootOf(w.r.roots, d), d)
	if err != nil {
		return false
	}
	return w.repoIDs[fileID{dev: st.Dev, ino: st.Ino}]
}
