package policy

import "strings"

// The OS cage looks at real files, so it knows what the engine cannot: the
// kind of an entry. These predicates are what the cage asks; they call
// ProtectedTier first, so the engine and the cage share one rule, and add
// only what depends on the kind of a file or on a repository being new.

// gitdirLevel are the entries of a gitdir (the root repository's, a
// worktree's .git/worktrees/NAME, a submodule's .git/modules/NAME) that git
// reads as configuration or runs, besides hooks and config, which
// ProtectedTier already matches: commondir redirects git to another gitdir's
// config and hooks, info/ holds attributes and excludes.
var gitdirLevel = map[string]bool{"commondir": true, "info": true, "config": true, "config.worktree": true, "hooks": true}

// CageProtectedEntry says whether the entry at path (below workspace) is
// cage-protected, knowing whether it is a directory: a ".git" that is not a
// directory (a file with "gitdir:", or a symlink) redirects git to a
// directory of the writer's choice, so it is protected wherever it sits.
func CageProtectedEntry(path, workspace string, isDir bool) bool {
	if cage, _ := ProtectedTier(path, workspace); cage {
		return true
	}
	rel := path
	if workspace != "" && within(path, workspace) {
		rel = path[len(workspace):]
	}
	if lastComponent(rel) == ".git" {
		return !isDir
	}
	return gitLocation(rel)
}

// gitLocation matches the gitdir-level names at any depth: after ".git",
// after ".git/worktrees/NAME" and after every ".git/modules/NAME" (a
// submodule's own modules nest).
func gitLocation(p string) bool {
	comps := strings.Split(p, "/")
	for i := 0; i < len(comps); i++ {
		if comps[i] != ".git" {
			continue
		}
		j := i + 1
		for {
			if j >= len(comps) {
				break
			}
			if gitdirLevel[comps[j]] {
				return true
			}
			if (comps[j] == "worktrees" || comps[j] == "modules") && j+2 < len(comps) {
				j += 2
				continue
			}
			break
		}
	}
	return false
}

// gitInitKeys are the configuration keys git init and git clone write
// themselves. A repository made inside the cage keeps these and loses
// every other key: the rest (core.fsmonitor, core.hooksPath, filters,
// aliases, include.path, ...) can make a later git outside the cage run
// a command.
var gitInitKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "extensions.objectformat": true, "extensions.refstorage": true,
}

// GitInitConfigKey says whether a configuration key (as git config --list
// prints it: section.subsection.name, section and name lower case) is one
// that git init or git clone writes into a new repository.
func GitInitConfigKey(key string) bool {
	k := strings.ToLower(key)
	if gitInitKeys[k] {
		return true
	}
	sec, rest, ok := strings.Cut(k, ".")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return false
	}
	name := rest[i+1:]
	switch sec {
	case "remote":
		return name == "url" || name == "fetch"
	case "branch":
		return name == "remote" || name == "merge"
	}
	return false
}

// GitInitEntry says whether rel, a path inside a gitdir that did not exist
// before a caged call, is something git init or git clone creates there
// itself: the hooks and info folders, sample hooks (git runs a hook only by
// its exact name, never a *.sample), info/exclude and the config file, whose
// keys are checked with GitInitConfigKey.
func GitInitEntry(rel string) bool {
	switch rel {
	case "hooks", "info", "info/exclude", "config":
		return true
	}
	if name, ok := strings.CutPrefix(rel, "hooks/"); ok {
		return !strings.Contains(name, "/") && strings.HasSuffix(name, ".sample")
	}
	return false
}
