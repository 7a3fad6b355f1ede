package policy

import "strings"

// What git init and git clone write into a new gitdir, which the OS cage
// lets a caged call keep: the cage judges entries with CageProtected and
// finds the gitdir holding one with SplitGitdir (protected.go); these say
// which of the new entries are git's own.

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
