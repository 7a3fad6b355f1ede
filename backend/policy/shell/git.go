package shell

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// git: global options and each subcommand's options resolve against the
// tables in options.txt (git's parse-options accepts unambiguous prefixes
// and --no- negations). Read subcommands are read-only only when every option
// is known harmless; the rest write the repository, talk to a remote, run a
// program or destroy work.

var gitReadOnly = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "rev-parse": true, "ls-files": true, "ls-tree": true,
	"cat-file": true, "blame": true, "annotate": true, "shortlog": true, "describe": true, "grep": true,
	"whatchanged": true, "name-rev": true, "merge-base": true, "rev-list": true, "for-each-ref": true,
	"show-ref": true, "show-branch": true, "count-objects": true, "verify-commit": true, "verify-tag": true,
	"diff-tree": true, "diff-files": true, "diff-index": true, "help": true, "version": true, "var": true,
	"check-ignore": true, "check-attr": true, "check-ref-format": true, "cherry": true, "range-diff": true,
	"fsck": true, "show-index": true, "get-tar-commit-id": true,
}

var gitWrite = map[string]bool{
	"add": true, "commit": true, "mv": true, "cherry-pick": true, "revert": true, "am": true,
	"init": true, "notes": true, "repack": true, "prune-packed": true,
	"update-index": true, "sparse-checkout": true, "pack-refs": true, "commit-tree": true,
	"hash-object": true, "mktree": true, "write-tree": true, "replace": true, "rerere": true,
	"stage": true,
}

var gitNetwork = map[string]bool{"fetch": true, "pull": true, "push": true, "clone": true, "ls-remote": true,
	"send-email": true, "svn": true}

// gitDanger are the options of the write and network subcommands that run
// another program (their value is a command line, a template with hooks, or
// configuration). Matched with getopt_long prefixes; these subcommands are
// never read-only, so the list only decides Unknown over Write.
var gitDanger = map[string][]string{
	"clone":      {"--upload-pack", "-u", "--template", "--config", "-c", "--separate-git-dir"},
	"fetch":      {"--upload-pack"},
	"pull":       {"--upload-pack"},
	"ls-remote":  {"--upload-pack"},
	"push":       {"--receive-pack", "--exec"},
	"archive":    {"--exec"},
	"rebase":     {"--exec", "-x", "--interactive", "-i", "--edit-todo"}, // -x's command is classified too
	"init":       {"--template", "--separate-git-dir"},
	"commit":     {"--template", "-t", "--edit", "-e"},
	"merge":      {"--edit", "-e"},
	"send-email": {"--smtp-server", "--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"},
	"am":         {"--interactive", "-i"},
	"svn":        {""},
}

// gitSplit returns the global options, the subcommand and its arguments.
func gitSplit(args []arg) (globals []popt, sub string, rest []arg, bad string) {
	globals, ops, bad := tableFor("git").parse(args)
	if len(ops) == 0 {
		return globals, "", nil, bad
	}
	if !ops[0].static {
		return globals, "", nil, "the subcommand is computed at run time"
	}
	return globals, ops[0].val, ops[1:], bad
}

func hGit(w *walker, inv *invocation) {
	// git status, diff and the like refresh .git/index as they read unless
	// optional locks are off.
	w.quietEnv("GIT_OPTIONAL_LOCKS=0")
	globals, sub, rest, bad := gitSplit(inv.args)
	if bad != "" {
		w.unknown("git: " + bad)
		return
	}
	sc := inv.sc
	for _, g := range globals {
		switch g.def.tag {
		case "exec":
			w.unknown("git " + g.as + " sets configuration or a path that can run programs (core.pager, core.fsmonitor...)")
			return
		case "unknown":
			w.unknown("git " + g.as + " points git at another repository's config")
			return
		case "chdir":
			sc = sc.copy()
			w.chdirArg(sc, arg{val: g.val, static: !g.dynamic})
		}
	}
	if sub == "" {
		return
	}
	if inv.tail {
		w.unknown("git " + sub + ": more arguments arrive at run time")
	}
	var opts []popt
	var ops []arg
	table := tableFor("git " + sub)
	if table != nil {
		// An unknown option is recorded as Unknown; the subcommand's own
		// effects are still classified below.
		opts, ops, _ = w.tableOpts(&invocation{name: "git", args: rest, sc: sc}, "git "+sub, rest)
	} else {
		ops = rest
	}
	for _, d := range gitDanger[sub] {
		if d == "" {
			w.unknown("git " + sub + " runs configured programs")
			continue
		}
		if hasOptPrefix(rest, d) {
			w.unknown("git " + sub + " " + d + " runs another program")
		}
	}
	repo := arg{val: ".", static: true}
	switch {
	case gitReadOnly[sub]:
		if table == nil {
			w.unknown("git " + sub + ": no option table")
		}
	case sub == "branch":
		gitBranch(w, sc, opts, ops, repo)
	case sub == "tag":
		if hasTag(opts, "wtag") || len(ops) > 0 && !isOpt(opts, "--list", "--contains", "--points-at", "-n", "--merged", "--no-merged", "--no-contains") {
			w.writeTo(sc, repo, "git tag")
		}
	case sub == "config":
		gitConfig(w, sc, opts, ops)
	case sub == "remote":
		gitRemote(w, sc, ops)
	case sub == "stash":
		// git stash [-q] <verb> ...: the verb's own options follow it.
		for len(ops) > 0 && ops[0].static && (ops[0].val == "-q" || ops[0].val == "--quiet") {
			ops = ops[1:]
		}
		switch first(ops) {
		case "list", "show":
			w.tableOpts(&invocation{name: "git", args: ops[1:], sc: sc}, "git log", ops[1:])
		case "drop", "clear":
			w.destroy("git stash " + first(ops) + ": throws stashed work away")
		default:
			w.writeTo(sc, repo, "git stash")
		}
	case sub == "worktree":
		switch first(ops) {
		case "list":
		case "remove", "prune":
			w.destroy("git worktree " + first(ops) + ": deletes a working tree")
		default:
			w.writeTo(sc, repo, "git worktree")
			for _, a := range ops[min(1, len(ops)):] {
				if !strings.HasPrefix(a.val, "-") {
					w.writeTo(sc, a, "git worktree")
				}
			}
		}
	case sub == "reflog":
		switch first(ops) {
		case "expire", "delete", "drop":
			w.destroy("git reflog " + first(ops) + ": drops the history that recovers lost commits")
		case "", "show", "list", "exists":
		default:
			w.unknown("git reflog " + first(ops) + " is not a known reflog command")
		}
	case sub == "reset":
		if hasTag(opts, "force") {
			w.destroy("git reset --hard/--merge: discards uncommitted changes")
		}
		w.writeTo(sc, repo, "git reset")
	case sub == "clean":
		if hasTag(opts, "dry") && !hasTag(opts, "force") {
			return
		}
		w.destroy("git clean: deletes untracked files")
		w.writeTo(sc, repo, "git clean")
	case sub == "checkout":
		gitCheckout(w, sc, opts, ops, rest)
	case sub == "switch":
		if hasTag(opts, "force") {
			w.destroy("git switch --discard-changes/--force: overwrites uncommitted changes")
		}
		w.writeTo(sc, repo, "git switch")
	case sub == "restore":
		if !hasTag(opts, "staged") || hasTag(opts, "worktree") {
			w.destroy("git restore: discards uncommitted changes in the working tree")
		}
		w.writeTo(sc, repo, "git restore")
	case sub == "read-tree":
		if hasTag(opts, "reset") || hasTag(opts, "force") || hasTag(opts, "update") && !hasTag(opts, "dry") {
			w.destroy("git read-tree -u/--reset: overwrites the index and working tree")
		}
		w.writeTo(sc, repo, "git read-tree")
	case sub == "checkout-index":
		if hasTag(opts, "force") {
			w.destroy("git checkout-index -f: overwrites working tree files")
		}
		w.writeTo(sc, repo, "git checkout-index")
	case sub == "gc":
		if hasTag(opts, "prune") {
			w.destroy("git gc --prune: drops unreachable objects, the last copy of lost work")
		}
		w.writeTo(sc, repo, "git gc")
	case sub == "rm":
		if hasShortOrLong(rest, "-r", "-f", "--force") && !hasOptPrefix(rest, "--cached") {
			w.destroy("git rm -r/-f: deletes files")
		}
		w.writeTo(sc, repo, "git rm")
	case sub == "merge":
		if hasOptPrefix(rest, "--abort") {
			w.destroy("git merge --abort: resets the working tree, uncommitted changes included")
		}
		w.writeTo(sc, repo, "git merge")
	case sub == "rebase":
		w.writeTo(sc, repo, "git rebase")
		for i, a := range rest {
			if !a.static {
				continue
			}
			cmd, ok := optValue(a.val, "--exec")
			switch {
			case ok:
			case (a.val == "-x" || a.val == "--exec") && i+1 < len(rest) && rest[i+1].static:
				cmd = rest[i+1].val
			case strings.HasPrefix(a.val, "-x") && len(a.val) > 2:
				cmd = a.val[2:]
			default:
				continue
			}
			w.script(cmd, sc, syntax.LangPOSIX)
		}
	case sub == "mv":
		if hasShortOrLong(rest, "-f", "--force") {
			w.destroy("git mv -f: overwrites the destination")
		}
		w.writeTo(sc, repo, "git mv")
	case sub == "bisect":
		// git bisect run CMD runs CMD at every step: it is classified.
		for i, a := range rest {
			if a.static && a.val == "run" {
				w.unknown("git bisect run runs a command at every step")
				if i+1 < len(rest) {
					w.nested(rest[i+1:], sc, false)
				}
				break
			}
		}
		w.writeTo(sc, repo, "git bisect")
	case sub == "maintenance":
		switch first(ops) {
		case "start", "register":
			w.destroy("git maintenance " + first(ops) + ": schedules jobs that run outside the session")
		}
		w.writeTo(sc, repo, "git maintenance")
	case sub == "update-ref":
		// Moving a ref (a branch back to an older commit) drops what it
		// pointed to from the branch, as reset --hard or branch -f do.
		if hasShortOrLong(rest, "-d") {
			w.destroy("git update-ref -d: deletes a ref")
		} else {
			w.destroy("git update-ref: moves a ref, and the commits it pointed to can be lost")
		}
		w.writeTo(sc, repo, "git update-ref")
	case sub == "init":
		// git init [DIR]: the repository is created in DIR.
		dir := repo
		for _, a := range ops {
			dir = a
		}
		w.writeTo(sc, dir, "git init")
	case sub == "symbolic-ref":
		if len(ops) >= 2 || hasShortOrLong(rest, "-d", "--delete") {
			w.writeTo(sc, repo, "git symbolic-ref")
		}
	case sub == "filter-branch" || sub == "filter-repo" || sub == "prune":
		w.destroy("git " + sub + ": rewrites or drops history")
		w.writeTo(sc, repo, "git "+sub)
	case sub == "format-patch":
		if !isOpt(opts, "--stdout") && len(optVals(opts, "-o")) == 0 {
			w.writeTo(sc, repo, "git format-patch")
		}
	case sub == "apply" || sub == "am":
		if sub == "apply" && (hasOptPrefix(rest, "--check") || hasOptPrefix(rest, "--stat") || hasOptPrefix(rest, "--numstat") || hasOptPrefix(rest, "--summary")) {
			if !hasOptPrefix(rest, "--apply") {
				return
			}
		}
		// The files written are named inside the patch, under
		// --directory's folder when given, anywhere with --unsafe-paths.
		w.writeTo(sc, repo, "git "+sub)
		for _, a := range rest {
			if v, ok := optValue(a.val, "--directory"); ok {
				w.writeTo(sc, arg{val: v, static: a.static}, "git "+sub+" --directory")
				w.unknown("git " + sub + " --directory puts the patch's files under " + v)
			}
			if a.static && a.val == "--directory" {
				w.unknown("git " + sub + " --directory puts the patch's files elsewhere")
			}
		}
		if hasOptPrefix(rest, "--unsafe-paths") {
			w.unknown("git " + sub + " --unsafe-paths writes the patch's files wherever it names")
		}
		w.unknown("git " + sub + " writes the files named inside the patch")
	case sub == "archive":
		// --output, --remote and --exec are tagged in the table.
	case sub == "submodule":
		gitSubmodule(w, sc, ops, rest, repo)
	case sub == "lfs":
		w.network()
		w.writeTo(sc, repo, "git lfs")
	case gitNetwork[sub]:
		gitRemoteOp(w, sc, sub, opts, ops)
	case gitWrite[sub]:
		w.writeTo(sc, repo, "git "+sub)
	default:
		w.unknown("git " + sub + " is not a known subcommand (it may be an alias that runs a program)")
	}
}

// optValue reads --name=value or an unambiguous --nam=value spelling.
func optValue(word, name string) (string, bool) {
	n, v, ok := strings.Cut(word, "=")
	if !ok || len(n) < 3 || !strings.HasPrefix(n, "--") || !strings.HasPrefix(name, n) {
		return "", false
	}
	return v, true
}

// hasOptPrefix reports an argument that getopt_long could read as name: the
// name itself, an abbreviation of at least "--x", or a short option in a
// cluster.
func hasOptPrefix(args []arg, name string) bool {
	for _, a := range args {
		v := a.val
		if v == "--" {
			return false
		}
		if !strings.HasPrefix(name, "--") {
			if len(name) == 2 && strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.IndexByte(v[1:], name[1]) >= 0 {
				return true
			}
			continue
		}
		n, _, _ := strings.Cut(v, "=")
		if len(n) >= 3 && strings.HasPrefix(n, "--") && strings.HasPrefix(name, n) {
			return true
		}
	}
	return false
}

func hasShortOrLong(args []arg, names ...string) bool {
	for _, n := range names {
		if hasOptPrefix(args, n) {
			return true
		}
	}
	return false
}

func first(ops []arg) string {
	if len(ops) == 0 {
		return ""
	}
	return ops[0].val
}

// gitCheckout: switching branches keeps work, but naming paths (after --,
// after a tree-ish, or a word that looks like a file) overwrites them.
func gitCheckout(w *walker, sc *scope, opts []popt, ops []arg, raw []arg) {
	paths := hasAnyArg(raw, "--") || len(ops) >= 2
	if !paths && len(ops) == 1 {
		v := ops[0].val
		base := lastComponent(v)
		paths = v == "." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasSuffix(v, "/") ||
			strings.ContainsAny(v, "*?[") || strings.Contains(base, ".") && !strings.HasPrefix(base, "v") && !strings.Contains(v, "..")
	}
	if hasTag(opts, "force") || paths && !isOpt(opts, "-b") {
		w.destroy("git checkout: overwrites uncommitted changes")
	}
	w.writeTo(sc, arg{val: ".", static: true}, "git checkout")
}

func gitBranch(w *walker, sc *scope, opts []popt, ops []arg, repo arg) {
	switch {
	case hasTag(opts, "forcedelete") || hasTag(opts, "delete") && hasTag(opts, "force"):
		w.destroy("git branch -D: deletes a branch even if unmerged")
	case hasTag(opts, "forcemove") || hasTag(opts, "force") && len(ops) > 0:
		w.destroy("git branch -M/-C/-f: overwrites an existing branch")
	case hasTag(opts, "delete") || hasTag(opts, "wbranch"):
		w.writeTo(sc, repo, "git branch")
	case len(ops) > 0 && !isOpt(opts, "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--all", "--remotes"):
		w.writeTo(sc, repo, "git branch")
	}
}

func gitConfig(w *walker, sc *scope, opts []popt, ops []arg) {
	if hasTag(opts, "read") || len(ops) > 0 && (ops[0].val == "get" || ops[0].val == "list") {
		return
	}
	if len(ops) == 1 && !isOpt(opts, "--unset", "--unset-all", "--remove-section", "--rename-section", "--add", "--replace-all") {
		return
	}
	target := arg{val: ".git/config", static: true}
	switch {
	case hasTag(opts, "global"):
		target.val = "~/.gitconfig"
	case hasTag(opts, "system"):
		target.val = "/etc/gitconfig"
	case hasTag(opts, "worktree"):
		target.val = ".git/config.worktree"
	case len(tagged(opts, "file")) > 0:
		f := tagged(opts, "file")[0]
		target = arg{val: f.val, static: !f.dynamic}
	}
	w.writeTo(sc, target, "git config")
}

func gitRemote(w *walker, sc *scope, ops []arg) {
	switch first(ops) {
	case "", "-v", "--verbose", "get-url":
	case "show", "update", "prune", "set-head":
		w.network()
	default:
		w.writeTo(sc, arg{val: ".git/config", static: true}, "git remote "+first(ops))
	}
}

// gitSubmodule: foreach runs its command in every submodule, where git's
// metadata is the submodule's gitdir; the command is classified there.
func gitSubmodule(w *walker, sc *scope, ops, rest []arg, repo arg) {
	switch first(ops) {
	case "foreach":
		w.unknown("git submodule foreach runs a command in every submodule")
		var parts []string
		i := 0
		for i < len(rest) && rest[i].val != "foreach" {
			i++
		}
		for _, a := range rest[min(i+1, len(rest)):] {
			if strings.HasPrefix(a.val, "-") && len(parts) == 0 {
				continue
			}
			if !a.static {
				return
			}
			parts = append(parts, a.val)
		}
		inner := sc.copy()
		if inner.known {
			inner.cwd = filepath.Join(inner.cwd, "(each submodule)")
		}
		w.script(strings.Join(parts, " "), inner, syntax.LangBash)
	case "status", "summary", "":
	default:
		if (first(ops) == "deinit" || first(ops) == "update") && hasShortOrLong(rest, "-f", "--force") {
			w.destroy("git submodule " + first(ops) + " --force: discards the submodules' local changes")
		}
		w.network()
		w.writeTo(sc, repo, "git submodule")
	}
}
