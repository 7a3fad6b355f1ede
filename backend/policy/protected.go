package policy

import (
	"path/filepath"
	"strings"
)

// Protected paths come in two tiers (permission-model.md, "Protected paths").
// Matching is by path component, wherever the component sits: a nested
// project's .envrc or a sub-package's lockfile is as dangerous as the root
// one, and a match that is too wide only asks a human once more. Every name
// comes from protectedTable (protected_table.go); the maps below are its
// indexes, built once.

// cageNames are the workspace-relative names the OS cage mounts read-only.
var cageNames = func() []string {
	out := []string{".git/hooks", ".git/config", ".git/config.worktree"}
	for _, e := range protectedTable {
		if e.Match == MatchName && e.Tier == TierCage {
			out = append(out, e.Name)
		}
	}
	return out
}()

// underEntry is a MatchUnder entry keyed by its name.
type underEntry struct {
	parent1, parent2 string // the component right above, and the one above that ("" for any)
	tier             ProtectionTier
	cage             InCage
}

// protectedIndex is protectedTable by how it is matched.
type protectedIndex struct {
	cageBase   map[string]bool   // MatchName, TierCage
	editBase   map[string]InCage // MatchName, TierEdit
	under      map[string][]underEntry
	prefixes   []ProtectedEntry // MatchPrefix
	system     []ProtectedEntry // MatchSystem
	gitdirFile map[string]bool  // MatchGitdir files
	gitdirDir  map[string]bool  // MatchGitdir folders
	gitData    InCage           // the .git folder itself and a worktree's admin folder
}

var protIndex = buildIndex(protectedTable)

func buildIndex(table []ProtectedEntry) protectedIndex {
	ix := protectedIndex{cageBase: map[string]bool{}, editBase: map[string]InCage{}, under: map[string][]underEntry{},
		gitdirFile: map[string]bool{}, gitdirDir: map[string]bool{}, gitData: HeldWritable}
	for _, e := range table {
		switch e.Match {
		case MatchName:
			if e.Name == ".git" {
				ix.gitData = e.Cage
				continue
			}
			if e.Tier == TierCage {
				ix.cageBase[e.Name] = true
			} else {
				ix.editBase[e.Name] = e.Cage
			}
		case MatchUnder:
			u := underEntry{tier: e.Tier, cage: e.Cage}
			if a, b, ok := strings.Cut(e.Parent, "/"); ok {
				u.parent2, u.parent1 = a, b
			} else {
				u.parent1 = e.Parent
			}
			ix.under[e.Name] = append(ix.under[e.Name], u)
		case MatchPrefix:
			ix.prefixes = append(ix.prefixes, e)
		case MatchSystem:
			ix.system = append(ix.system, e)
		case MatchGitdir:
			if e.Dir {
				ix.gitdirDir[e.Name] = true
			} else {
				ix.gitdirFile[e.Name] = true
			}
		}
	}
	return ix
}

// CageProtectedNames returns the workspace-relative paths the OS cage must
// mount read-only (or cover with a placeholder when they do not exist) inside
// the workspace and every writable root. Warden's own folders come from
// Engine.ExtraProtected.
func CageProtectedNames() []string {
	return append([]string(nil), cageNames...)
}

// GitMetaName is one entry of what git reads as configuration or runs,
// relative to a gitdir (the repository's .git, a worktree's
// .git/worktrees/<name>, a submodule's .git/modules/<path>, or a nested
// repository's .git).
type GitMetaName struct {
	Name string
	Dir  bool
}

// GitMetaNames lists, relative to any gitdir, the cage-protected entries:
// the cage protects them in every gitdir it finds at any depth. ProtectedTier
// answers the same for a single path.
func GitMetaNames() []GitMetaName {
	var out []GitMetaName
	for _, e := range protectedTable {
		if e.Match == MatchGitdir {
			out = append(out, GitMetaName{e.Name, e.Dir})
		}
	}
	return out
}

// ProtectedTier says whether path is cage-protected (a write would run code
// outside the sandbox or reconfigure the agent) and whether it is
// edit-protected (cage-protected, a lockfile or a .env file). A relative path
// is taken relative to workspace. Inside the workspace only the components
// below it are matched, so a workspace that itself sits in a folder named
// .vscode or .warden is not protected wholesale. Warden's own folders are
// added by Engine.ProtectedTier.
func ProtectedTier(path, workspace string) (cage, edit bool) {
	match, abs := protectedMatch(path, workspace)
	if cageProtected(match) {
		return true, true
	}
	_, edit = editTier(match, abs)
	return false, edit
}

// protectedMatch is the part of path the names are matched against (below
// the workspace, when it lies inside it) and the absolute path.
func protectedMatch(path, workspace string) (match, abs string) {
	if workspace != "" {
		workspace = filepath.Clean(workspace)
	}
	if !filepath.IsAbs(path) && !strings.HasPrefix(path, "~") && workspace != "" {
		path = filepath.Join(workspace, path)
	}
	match = path
	if workspace != "" && workspace != "/" && within(path, workspace) {
		match = path[len(workspace):]
	}
	return match, path
}

// editTier says whether the edit tier holds match (abs for the system
// folders), and what the cage does with it.
func editTier(match, abs string) (InCage, bool) {
	base := lastComponent(match)
	for _, e := range protIndex.prefixes {
		if strings.HasPrefix(base, e.Name) {
			return e.Cage, true
		}
	}
	if in, ok := editComponents(match); ok {
		return in, true
	}
	if base == ".git" || inWorktreeAdmin(match) {
		return protIndex.gitData, true
	}
	for _, e := range protIndex.system {
		if within(filepath.Clean(abs), e.Name) {
			return e.Cage, true
		}
	}
	return 0, false
}

// CageHeld says whether a caged call that no human approved must not
// create or change p, below the writable root root: the cage tier, and the
// edit tier's entries the table holds read-only in the cage. isDir is the
// entry's kind (a .git file is held, a .git folder is not).
func CageHeld(p, root string, isDir bool) bool {
	if CageProtected(p, root, isDir) {
		return true
	}
	match, abs := protectedMatch(p, root)
	in, ok := editTier(match, abs)
	return ok && in == HeldReadOnly
}

// CageProtected is ProtectedTier's cage tier for a path whose kind the
// caller knows: a .git that is a file (gitdir: ...) points git at another
// repository's config and hooks, and is cage-protected wherever it is; a
// .git directory is not (the rest of .git stays writable).
func CageProtected(path, workspace string, isDir bool) bool {
	cage, _ := ProtectedTier(path, workspace)
	if cage {
		return true
	}
	return !isDir && lastComponent(path) == ".git"
}

// inWorktreeAdmin reports a path inside a linked worktree's admin folder
// (.git/worktrees/<name>/...): git keeps that worktree's HEAD, index and
// pointers there. A visible write to it asks; git's own writes in the cage
// (commit, switch) stay possible, since only its config and hooks are
// cage-protected.
func inWorktreeAdmin(p string) bool {
	i := strings.Index(p, ".git/worktrees/")
	if i < 0 || i > 0 && p[i-1] != '/' {
		return false
	}
	rest := p[i+len(".git/worktrees/"):]
	name, _, _ := strings.Cut(rest, "/")
	return name != "" && rest != name
}

// editComponents walks the components for the edit tier's names (any
// component, or right under its parent components), without allocating.
// The strongest treatment wins: read-only over writable.
func editComponents(p string) (InCage, bool) {
	found := InCage(0)
	prev1, prev2 := "", ""
	for len(p) > 0 {
		var c string
		if i := strings.IndexByte(p, '/'); i >= 0 {
			c, p = p[:i], p[i+1:]
		} else {
			c, p = p, ""
		}
		if c == "" {
			continue
		}
		if in, ok := protIndex.editBase[c]; ok && (found == 0 || in == HeldReadOnly) {
			found = in
		}
		for _, u := range protIndex.under[c] {
			if u.tier == TierEdit && prev1 == u.parent1 && (u.parent2 == "" || prev2 == u.parent2) && (found == 0 || u.cage == HeldReadOnly) {
				found = u.cage
			}
		}
		prev2, prev1 = prev1, c
	}
	return found, found != 0
}

// cageProtected walks the components of p once, without allocating. Inside
// a .git it matches git's metadata only where git reads it: at a gitdir's
// top level (the repository's .git, .git/worktrees/<name>, and the
// submodule gitdirs under .git/modules/, whose names may nest). Once the
// walk enters git's data areas (objects, refs, logs, lfs) a name is data:
// a branch called "hooks" (.git/refs/heads/hooks) or .git/objects/info is
// not configuration and must stay writable for git to work in the cage.
func cageProtected(p string) bool {
	_, _, ok := cageMatch(p)
	return ok
}

// SplitGitdir splits a cage-protected path inside a gitdir into the gitdir
// and the path within it, starting at the metadata entry that makes it
// protected ("hooks/pre-commit", "config", "info/exclude"). ok is false
// for a path that is not git metadata. The OS cage uses it to tell what git
// init wrote (GitInitEntry) from a planted hook, by the same walk that
// decides the path is protected.
func SplitGitdir(p string) (gitdir, rel string, ok bool) {
	at, git, ok := cageMatch(p)
	if !ok || !git || at == 0 {
		return "", "", false
	}
	return strings.TrimRight(p[:at], "/"), p[at:], true
}

// cageMatch is the walk behind cageProtected: at is the offset in p of the
// component that matched, git whether it is git metadata (rather than a
// contract name such as .envrc).
func cageMatch(p string) (at int, git, ok bool) {
	inGit, inData, nameNext := false, false, false
	prev1, prev2 := "", ""
	off := 0
	for off < len(p) {
		start := off
		var c string
		if i := strings.IndexByte(p[off:], '/'); i >= 0 {
			c, off = p[off:off+i], off+i+1
		} else {
			c, off = p[off:], len(p)
		}
		last := off >= len(p)
		if c == "" {
			continue
		}
		for _, u := range protIndex.under[c] {
			if u.tier == TierCage && prev1 == u.parent1 && (u.parent2 == "" || prev2 == u.parent2) {
				return start, false, true
			}
		}
		prev2, prev1 = prev1, c
		switch {
		case protIndex.cageBase[c]:
			return start, false, true
		case c == ".git" || bareName(c):
			// A nested repository (or a .git file) starts a gitdir anew,
			// and so does a bare repository by its conventional name
			// (NAME.git: a local remote whose hooks a later `git push`
			// outside runs). The .git itself, when last: a directory is
			// git's own, a file is a gitdir pointer; CageProtected tells
			// them apart.
			inGit, inData, nameNext = true, false, false
		case !inGit || inData:
			continue
		case nameNext:
			// The name of a worktree or a submodule gitdir, whatever it is.
			nameNext = false
		case c == "worktrees" || c == "modules":
			nameNext = true
		case c == "objects" || c == "refs" || c == "logs" || c == "lfs" || c == "rr-cache":
			inData = true
		case protIndex.gitdirDir[c]:
			// .git/hooks, .git/info/attributes, and the same in
			// .git/worktrees/x/ and .git/modules/**/.
			return start, true, true
		case last && protIndex.gitdirFile[c]:
			// Configuration, and the files that point git at another
			// gitdir, in the repository, its worktrees, its submodules'
			// gitdirs and every nested repository.
			return start, true, true
		}
	}
	return 0, false, false
}

// bareName says whether a folder name is the conventional name of a bare
// repository: NAME.git with a non-empty NAME.
func bareName(c string) bool {
	return len(c) > len(".git") && strings.HasSuffix(c, ".git")
}

func lastComponent(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// within reports whether p is root or lies under it; both are clean and
// absolute.
func within(p, root string) bool {
	if root == "" {
		return false
	}
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, root) && p[len(root)] == '/'
}
