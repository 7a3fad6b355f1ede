// Package postcall is the check the gate runs after every call that could
// change files (gate.PostCall): nothing a call writes may run outside the
// cage. The cage holds what git executes at set-up and judges the
// repositories a caged command makes (backend/cage/sandbox); this check
// judges every call by its change set as the checkpoint recorded it — the
// file tools (fs.write, patch.apply), MCP tools and unconfined calls
// included — and reverts from the call's checkpoint, before the call
// returns, what a program outside would read as code or configuration:
//
//   - a folder that git's discovery rules now take for a gitdir and that
//     the call made one (a new HEAD, objects/, refs/ or commondir), whose
//     config, hooks or pointers would make a later git run something
//     (readers.NewGitdirDanger): everything the call changed in it;
//   - in any gitdir, what git reads as configuration or runs (config,
//     config.worktree, hooks/, info/, commondir, gitdir) and sequencer state
//     with an exec line;
//   - what the repositories' real config makes git run (readers.Git.Held:
//     a core.hooksPath folder, a hook's link target, an include target, a
//     file a configured command names), found from each changed path's
//     repository by git's own discovery;
//   - a file of the one protected list (policy.CageHeld) or of the above,
//     written through another name (a hard link).
//
// A call a human approved (its decision's source is human:…) keeps its
// changes: the human saw the write. Each revert is one
// store.UnsafeChangeReverted event and a note in the model's result.
// Limits: the change set holds what git would track, so a file written in a
// .gitignore'd folder is judged only when the tool declared it (a file
// tool's write paths) or when the cage saw it (shell commands).
package postcall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/warden-dev/warden/backend/cage/readers"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Reverter is the checkpoint of a call, able to put paths back
// (*checkpoint.Call).
type Reverter interface {
	Revert(ctx context.Context, paths []string) ([]string, error)
}

// Check is the post-call check. Safe for concurrent use.
type Check struct {
	git *readers.Git
}

// New returns the check; git reads repositories' configuration (nil: git
// on PATH, the user's home).
func New(git *readers.Git) *Check {
	if git == nil {
		git = &readers.Git{}
	}
	return &Check{git: git}
}

// changed is one path the call changed.
type changed struct {
	rel     string // workspace-relative, slash-separated
	abs     string
	created bool
	deleted bool
}

// finding is one thing to revert, and why.
type finding struct {
	revert []string // workspace-relative paths
	store.UnsafeFinding
}

// AfterCall implements gate.PostCall.
func (c *Check) AfterCall(ctx context.Context, info gate.CallInfo, ch gate.Changes) (gate.PostReport, error) {
	ev := ch.Event
	ws := ev.Workspace
	if !filepath.IsAbs(ws) {
		// No checkpoint could be taken: what the call declared it wrote
		// is still judged (and removed when it must go).
		ws = info.Workspace
	}
	if ws == "" || !filepath.IsAbs(ws) {
		return gate.PostReport{}, nil
	}
	if strings.HasPrefix(info.Decision.Source, "human:") {
		return gate.PostReport{}, nil // the human saw the write
	}
	var list []changed
	seen := map[string]bool{}
	for _, f := range ev.Files {
		rel := filepath.ToSlash(f.Path)
		seen[rel] = true
		list = append(list, changed{rel: rel, abs: filepath.Join(ws, filepath.FromSlash(rel)),
			created: f.Change == store.ChangeCreated, deleted: f.Change == store.ChangeDeleted})
	}
	// What a file tool declared it writes, where the change set does not
	// reach (an ignored folder).
	for _, e := range info.Effects {
		if e.Kind != policy.EffectWrite {
			continue
		}
		for _, p := range e.Paths {
			if !filepath.IsAbs(p) {
				p = filepath.Join(ws, p)
			}
			rel, err := filepath.Rel(ws, p)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			if !seen[rel] {
				seen[rel] = true
				list = append(list, changed{rel: rel, abs: p, created: true})
			}
		}
	}
	if len(list) == 0 {
		return gate.PostReport{}, nil
	}
	found := c.judge(ws, list)
	if len(found) == 0 {
		return gate.PostReport{}, nil
	}
	out := store.UnsafeChangeReverted{CallID: info.CallID, Tool: info.Tool, Workspace: ws}
	var paths []string
	for _, f := range found {
		out.Findings = append(out.Findings, f.UnsafeFinding)
		paths = append(paths, f.revert...)
	}
	paths = dedupe(paths)
	if r, ok := ch.Checkpoint.(Reverter); ok && ev.Error == "" {
		done, err := r.Revert(ctx, paths)
		out.Reverted = done
		if err != nil {
			out.Error = err.Error()
		}
	} else if ev.Error != "" {
		out.Error = "no checkpoint to revert from (" + ev.Error + "); what the call wrote was removed instead"
	}
	// What the checkpoint does not track (an ignored folder) is removed.
	reverted := map[string]bool{}
	for _, p := range out.Reverted {
		reverted[p] = true
	}
	for _, p := range paths {
		if reverted[p] {
			continue
		}
		abs := filepath.Join(ws, filepath.FromSlash(p))
		if _, err := os.Lstat(abs); err == nil && !tracked(ev, p) {
			if err := os.RemoveAll(abs); err == nil {
				out.Reverted = append(out.Reverted, p)
			}
		}
	}
	sort.Strings(out.Reverted)
	return gate.PostReport{Events: []store.Event{out}, Note: note(out)}, nil
}

// tracked says whether the change set lists p (or something below it).
func tracked(ev store.WorkspaceChanged, p string) bool {
	for _, f := range ev.Files {
		if f.Path == p || strings.HasPrefix(f.Path, p+"/") {
			return true
		}
	}
	return false
}

func note(u store.UnsafeChangeReverted) string {
	var b strings.Builder
	b.WriteString("\n[warden] This call changed files that a program outside the sandbox would run, so the changes were reverted:")
	for _, f := range u.Findings {
		fmt.Fprintf(&b, "\n- %s (%s): %s", f.Path, f.Reader, f.Why)
	}
	if len(u.Reverted) > 0 {
		b.WriteString("\nReverted: " + strings.Join(u.Reverted, ", ") + ".")
	}
	if u.Error != "" {
		b.WriteString("\nNot everything could be reverted: " + u.Error)
	}
	b.WriteString("\nDo not retry this; if the change is needed, ask the user to make it.")
	return b.String()
}

func dedupe(ps []string) []string {
	sort.Strings(ps)
	var out []string
	for _, p := range ps {
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

// gitMetaNames are what git reads or runs at a gitdir's top level.
var gitMetaNames = map[string]bool{"config": true, "config.worktree": true, "hooks": true, "info": true,
	"commondir": true, "gitdir": true}

// markerNames make a folder a gitdir.
var markerNames = map[string]bool{"HEAD": true, "objects": true, "refs": true, "commondir": true}

// judge finds what to revert among the changed paths.
func (c *Check) judge(ws string, list []changed) []finding {
	var out []finding
	byRel := map[string]changed{}
	for _, ch := range list {
		byRel[ch.rel] = ch
	}
	// 1. Gitdirs: every folder holding a changed path, up to the workspace.
	gitdirs := map[string]bool{}
	for _, ch := range list {
		for d := filepath.Dir(ch.abs); within(ws, d); d = filepath.Dir(d) {
			if _, done := gitdirs[d]; done {
				break
			}
			gitdirs[d] = readers.IsGitDir(d)
			if d == ws {
				break
			}
		}
	}
	var dirs []string
	for d, is := range gitdirs {
		if is {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		var inside, meta []string
		isNew := false
		for _, ch := range list {
			if !within(d, ch.abs) || ch.abs == d {
				continue
			}
			rel, _ := filepath.Rel(d, ch.abs)
			top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
			inside = append(inside, ch.rel)
			if markerNames[top] && ch.created {
				isNew = true
			}
			if gitMetaNames[top] && !ch.deleted {
				meta = append(meta, ch.rel)
			}
		}
		if isNew {
			if why := c.git.NewGitdirDanger(d); why != "" {
				out = append(out, finding{revert: inside, UnsafeFinding: store.UnsafeFinding{Path: d, Reader: policy.ReaderGit,
					Why: "the call made " + d + " a repository git takes for one, and " + why}})
				continue
			}
		}
		if !isNew && len(meta) > 0 {
			out = append(out, finding{revert: meta, UnsafeFinding: store.UnsafeFinding{Path: d, Reader: policy.ReaderGit,
				Why: "the call changed what git reads as configuration or runs in " + d + " (" + strings.Join(meta, ", ") + ")"}})
		}
		if why := readers.SequencerDanger(d); why != "" {
			var seq []string
			for _, p := range inside {
				for _, s := range readers.SequencerDirs {
					if strings.Contains("/"+p+"/", "/"+s+"/") {
						seq = append(seq, p)
					}
				}
			}
			if len(seq) > 0 {
				out = append(out, finding{revert: seq, UnsafeFinding: store.UnsafeFinding{Path: d, Reader: policy.ReaderGit,
					Why: "sequencer state: " + why}})
			}
		}
	}
	// 2. What the repositories' real config makes git run, found from each
	// changed path's repositories; and the one list's held paths reached
	// through another name.
	held := c.heldFor(list)
	for _, ch := range list {
		if ch.deleted || insideAny(dirs, ch.abs) {
			continue // in a gitdir: judged above, by its own rules
		}
		if h, ok := holds(held, ch.abs); ok {
			out = append(out, finding{revert: []string{ch.rel}, UnsafeFinding: store.UnsafeFinding{Path: ch.abs, Reader: policy.ReaderGit,
				Why: "git runs or reads it: " + h.Why}})
			continue
		}
		if other := c.linkedHeld(ws, ch, held); other != "" {
			out = append(out, finding{revert: []string{ch.rel}, UnsafeFinding: store.UnsafeFinding{Path: ch.abs, Reader: policy.ReaderGit,
				Why: "it is another name (a hard link) of " + other + ", which a program outside the sandbox reads as code or configuration"}})
		}
	}
	return out
}

// heldFor is what git reads or runs for the repositories git would use at
// each changed path's folder.
func (c *Check) heldFor(list []changed) []readers.HeldPath {
	var out []readers.HeldPath
	repos := map[readers.Repo]bool{}
	dirs := map[string]bool{}
	for _, ch := range list {
		d := filepath.Dir(ch.abs)
		if dirs[d] {
			continue
		}
		dirs[d] = true
		for _, r := range readers.DiscoverUp(existingDir(d)) {
			if repos[r] {
				continue
			}
			repos[r] = true
			h, _ := c.git.Held(r)
			out = append(out, h...)
		}
	}
	return out
}

// existingDir is d or its nearest existing parent.
func existingDir(d string) string {
	for {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			return d
		}
		d = p
	}
}

func holds(held []readers.HeldPath, p string) (readers.HeldPath, bool) {
	for _, h := range held {
		if h.Path == p || h.Dir && within(h.Path, p) {
			return h, true
		}
	}
	return readers.HeldPath{}, false
}

// linkedHeld: a changed file with more than one name, one of which is a
// held path (by git's config, or the one list in the call's workspace).
func (c *Check) linkedHeld(ws string, ch changed, held []readers.HeldPath) string {
	var st syscall.Stat_t
	if syscall.Lstat(ch.abs, &st) != nil || st.Nlink < 2 || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return ""
	}
	same := func(p string) bool {
		var o syscall.Stat_t
		return syscall.Lstat(p, &o) == nil && o.Dev == st.Dev && o.Ino == st.Ino && p != ch.abs
	}
	for _, h := range held {
		if !h.Dir && same(h.Path) {
			return h.Path
		}
	}
	// The repository's own metadata is held whatever its config says.
	for _, r := range readers.DiscoverUp(filepath.Dir(ch.abs)) {
		for n := range gitMetaNames {
			if p := filepath.Join(r.Gitdir, n); same(p) {
				return p
			}
		}
	}
	_ = ws
	return ""
}

// insideAny says whether p lies below one of dirs.
func insideAny(dirs []string, p string) bool {
	for _, d := range dirs {
		if p != d && within(d, p) {
			return true
		}
	}
	return false
}

// within reports whether p is root or lies below it (both clean, absolute).
func within(root, p string) bool {
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
