package policy

import (
	"path/filepath"
	"strings"
)

// Protected paths come in two tiers (permission-model.md, "Protected paths").
// Matching is by path component, wherever the component sits: a nested
// project's .envrc or a sub-package's lockfile is as dangerous as the root
// one, and a match that is too wide only asks a human once more.

// cageNames are the workspace-relative names the OS cage mounts read-only.
var cageNames = []string{
	".git/hooks", ".git/config", ".git/config.worktree",
	".mcp.json", ".warden", ".vscode", ".envrc",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
	".kshrc", ".cshrc", ".tcshrc", ".inputrc",
}

// cageBase are the names matched as any path component.
var cageBase = map[string]bool{
	".mcp.json": true, ".warden": true, ".vscode": true, ".envrc": true,
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true, ".profile": true,
	".zshrc": true, ".zshenv": true, ".zprofile": true, ".zlogin": true, ".zlogout": true,
	".kshrc": true, ".cshrc": true, ".tcshrc": true, ".inputrc": true,
}

// editBase are names outside the cage's list whose writes still need a
// human in every sandbox: where a write lets code or credentials reach past
// the session (ssh keys and config, git's user config, credential stores,
// per-user service and autostart folders).
var editBase = map[string]bool{
	".ssh": true, ".gnupg": true, ".gitconfig": true, ".git-credentials": true, ".netrc": true,
	".pypirc": true, ".pam_environment": true, "authorized_keys": true,
	// Tools whose user config names a program they run for credentials.
	".docker": true, ".kube": true, ".aws": true,
}

// editSystem are absolute folders every write into which is edit-protected.
var editSystem = []string{"/etc", "/usr", "/boot", "/var/spool/cron", "/Library/LaunchDaemons"}

// editConfig are folders under a user's .config whose files run code.
var editConfig = map[string]bool{"git": true, "systemd": true, "autostart": true, "environment.d": true, "fish": true, "pip": true}

// lockfiles are the supply-chain files of the edit-protected tier.
var lockfiles = map[string]bool{
	"package-lock.json": true, "npm-shrinkwrap.json": true, "yarn.lock": true, "pnpm-lock.yaml": true,
	"bun.lockb": true, "bun.lock": true, "deno.lock": true, "go.sum": true, "go.work.sum": true,
	"Cargo.lock": true, "poetry.lock": true, "Pipfile.lock": true, "uv.lock": true, "pdm.lock": true,
	"composer.lock": true, "Gemfile.lock": true, "mix.lock": true, "pubspec.lock": true,
	"Podfile.lock": true, "flake.lock": true, "packages.lock.json": true, "gradle.lockfile": true,
	".npmrc": true, ".yarnrc": true, ".yarnrc.yml": true, ".pnpmfile.cjs": true,
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
	return []GitMetaName{{"config", false}, {"config.worktree", false}, {"commondir", false},
		{"gitdir", false}, {"hooks", true}, {"info", true}}
}

// ProtectedTier says whether path is cage-protected (a write would run code
// outside the sandbox or reconfigure the agent) and whether it is
// edit-protected (cage-protected, a lockfile or a .env file). A relative path
// is taken relative to workspace. Inside the workspace only the components
// below it are matched, so a workspace that itself sits in a folder named
// .vscode or .warden is not protected wholesale. Warden's own folders are
// added by Engine.ProtectedTier.
func ProtectedTier(path, workspace string) (cage, edit bool) {
	if workspace != "" {
		workspace = filepath.Clean(workspace)
	}
	if !filepath.IsAbs(path) && !strings.HasPrefix(path, "~") && workspace != "" {
		path = filepath.Join(workspace, path)
	}
	match := path
	if workspace != "" && workspace != "/" && within(path, workspace) {
		match = path[len(workspace):]
	}
	cage = cageProtected(match)
	if cage {
		return true, true
	}
	base := lastComponent(match)
	if lockfiles[base] || strings.HasPrefix(base, ".env") || base == ".git" || editProtected(match) || inWorktreeAdmin(match) {
		return false, true
	}
	for _, d := range editSystem {
		if within(filepath.Clean(path), d) {
			return false, true
		}
	}
	return false, false
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

// editProtected walks the components for the edit-only names.
func editProtected(p string) bool {
	prev := ""
	for len(p) > 0 {
		var c string
		if i := strings.IndexByte(p, '/'); i >= 0 {
			c, p = p[:i], p[i+1:]
		} else {
			c, p = p, ""
		}
		// ~/.local/bin is on PATH: a program put there runs later.
		if editBase[c] || prev == ".config" && editConfig[c] || prev == ".local" && c == "bin" {
			return true
		}
		if c != "" {
			prev = c
		}
	}
	return false
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
		switch {
		case c == "":
			continue
		case cageBase[c]:
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
		case c == "hooks" || c == "info":
			// .git/hooks, .git/info/attributes, and the same in
			// .git/worktrees/x/ and .git/modules/**/.
			return start, true, true
		case last && (c == "config" || c == "config.worktree" || c == "commondir" || c == "gitdir"):
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
