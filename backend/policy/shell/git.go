package shell

import (
	"path/filepath"
	"strings"
)

// git: read subcommands are read-only unless an option writes a file or
// runs a program; the rest write the repository, talk to a remote, or
// destroy work.

var gitGlobalValue = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true,
	"--namespace": true, "--exec-path": false, "--config-env": true, "--super-prefix": true, "--list-cmds": false}

// gitSplit returns the global options, the subcommand and its arguments.
func gitSplit(args []arg) (globals []opt, sub string, rest []arg, ok bool) {
	i := 0
	for i < len(args) {
		v := args[i].val
		if !args[i].static {
			return nil, "", nil, false
		}
		if !strings.HasPrefix(v, "-") {
			break
		}
		name, val, hasVal := strings.Cut(v, "=")
		if strings.HasPrefix(v, "-C") && len(v) > 2 {
			name, val, hasVal = "-C", v[2:], true
		}
		if strings.HasPrefix(v, "-c") && len(v) > 2 {
			name, val, hasVal = "-c", v[2:], true
		}
		if gitGlobalValue[name] && !hasVal && i+1 < len(args) {
			i++
			val = args[i].val
		}
		globals = append(globals, opt{name: name, val: val})
		i++
	}
	if i >= len(args) {
		return globals, "", nil, true
	}
	return globals, args[i].val, args[i+1:], true
}

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
	"add": true, "commit": true, "mv": true, "merge": true, "cherry-pick": true, "revert": true, "am": true,
	"init": true, "notes": true, "gc": true, "repack": true, "prune-packed": true, "maintenance": true,
	"update-index": true, "bisect": true, "sparse-checkout": true, "pack-refs": true, "commit-tree": true,
	"hash-object": true, "mktree": true, "read-tree": true, "write-tree": true, "replace": true, "rerere": true,
	"stage": true,
}

var gitNetwork = map[string]bool{"fetch": true, "pull": true, "push": true, "clone": true, "ls-remote": true,
	"send-email": true, "svn": true, "request-pull": false}

func hGit(w *walker, inv *invocation) {
	if inv.dynamic() {
		w.unknown("git: arguments computed at run time can add options or aliases")
		return
	}
	globals, sub, rest, _ := gitSplit(inv.args)
	sc := inv.sc
	for _, g := range globals {
		switch g.name {
		case "-c", "--config-env":
			w.unknown("git -c sets configuration that can run programs (core.pager, core.fsmonitor...)")
			return
		case "--exec-path", "--git-dir", "--work-tree", "--super-prefix":
			w.unknown("git " + g.name + " points git at other programs or another repository's config")
			return
		case "-C":
			sc = sc.copy()
			hCd(w, &invocation{args: []arg{{val: g.val, static: true}}, sc: sc})
		}
	}
	if sub == "" {
		return
	}
	opts, ops := parseOpts(rest, optSpec{short: "mFCcSOoXsUxtnbBeI", long: []string{"message", "file", "output",
		"format", "pretty", "since", "until", "author", "committer", "grep", "upload-pack", "receive-pack", "exec",
		"template", "config", "origin", "branch", "depth", "reference", "separate-git-dir", "strategy",
		"strategy-option", "onto", "set-upstream-to", "sort", "contains", "points-at", "merged", "no-merged",
		"ref-format", "object-format", "shallow-since", "shallow-exclude", "jobs", "max-count",
		"skip", "abbrev", "date", "decorate-refs", "encoding", "color-moved", "relative", "src-prefix", "dst-prefix",
		"word-diff-regex", "diff-filter", "find-renames", "find-copies", "stat", "anchored", "ignore-matching-lines"}})
	for _, o := range opts {
		switch o.name {
		case "--output", "-o":
			if sub == "format-patch" || sub == "archive" || o.name == "--output" {
				w.writeTo(sc, arg{val: o.val, static: true}, "git "+sub+" "+o.name)
			}
		case "--upload-pack", "--receive-pack", "--exec", "-u", "--template", "--config", "-x", "--ext-diff-cmd",
			"--open-files-in-pager", "-O", "--interactive", "-i", "--edit-todo", "-e", "--tool":
			if o.name == "-u" && sub != "clone" && sub != "fetch" {
				continue // -u is --set-upstream or --update elsewhere
			}
			if (o.name == "-i" || o.name == "-e" || o.name == "-x") && sub != "rebase" && sub != "grep" {
				continue
			}
			if o.name == "-O" && sub != "grep" {
				continue
			}
			w.unknown("git " + sub + " " + o.name + " runs another program or template")
		}
	}
	repo := arg{val: ".", static: true}
	switch {
	case gitReadOnly[sub]:
	case sub == "branch":
		gitBranch(w, sc, opts, ops, repo)
	case sub == "tag":
		if has(opts, "-d", "--delete", "-f", "--force") || len(ops) > 0 && !has(opts, "-l", "--list", "--contains", "--points-at", "-n") {
			w.writeTo(sc, repo, "git tag")
		}
	case sub == "config":
		gitConfig(w, sc, opts, ops)
	case sub == "remote":
		gitRemote(w, sc, ops)
	case sub == "stash":
		switch first(ops) {
		case "list", "show":
		case "drop", "clear":
			w.destroy("git stash " + first(ops) + ": throws stashed work away")
		default:
			w.writeTo(sc, repo, "git stash")
		}
	case sub == "worktree":
		switch first(ops) {
		case "list":
		case "remove":
			w.destroy("git worktree remove: deletes a working tree")
		default:
			w.writeTo(sc, repo, "git worktree")
			for _, a := range ops[min(1, len(ops)):] {
				w.writeTo(sc, a, "git worktree")
			}
		}
	case sub == "reflog":
		switch first(ops) {
		case "expire", "delete":
			w.destroy("git reflog " + first(ops) + ": drops the history that recovers lost commits")
		}
	case sub == "reset":
		if has(opts, "--hard", "--merge") {
			w.destroy("git reset --hard: discards uncommitted changes")
		}
		w.writeTo(sc, repo, "git reset")
	case sub == "clean":
		if has(opts, "-n", "--dry-run") && !has(opts, "-f", "--force") {
			return
		}
		w.destroy("git clean: deletes untracked files")
		w.writeTo(sc, repo, "git clean")
	case sub == "checkout":
		if has(opts, "-f", "--force", "-p", "--patch", "--ours", "--theirs", "-B") || hasAnyArg(rest, "--") || hasAnyArg(ops, ".") {
			w.destroy("git checkout: overwrites uncommitted changes")
		}
		w.writeTo(sc, repo, "git checkout")
	case sub == "switch":
		if has(opts, "-f", "--force", "--discard-changes", "-C", "--force-create") {
			w.destroy("git switch --discard-changes: overwrites uncommitted changes")
		}
		w.writeTo(sc, repo, "git switch")
	case sub == "restore":
		if !has(opts, "-S", "--staged") || has(opts, "-W", "--worktree") {
			w.destroy("git restore: discards uncommitted changes")
		}
		w.writeTo(sc, repo, "git restore")
	case sub == "rm":
		if has(opts, "-r", "-f", "--force") && !has(opts, "--cached") {
			w.destroy("git rm -r/-f: deletes files")
		}
		w.writeTo(sc, repo, "git rm")
	case sub == "rebase":
		w.writeTo(sc, repo, "git rebase")
	case sub == "update-ref":
		if has(opts, "-d") {
			w.destroy("git update-ref -d: deletes a ref")
		}
		w.writeTo(sc, repo, "git update-ref")
	case sub == "symbolic-ref":
		if len(ops) >= 2 || has(opts, "-d", "--delete") {
			w.writeTo(sc, repo, "git symbolic-ref")
		}
	case sub == "filter-branch" || sub == "filter-repo" || sub == "prune":
		w.destroy("git " + sub + ": rewrites or drops history")
		w.writeTo(sc, repo, "git "+sub)
	case sub == "format-patch":
		if !has(opts, "--stdout") && !has(opts, "-o", "--output-directory") {
			w.writeTo(sc, repo, "git format-patch")
		}
	case sub == "apply":
		if has(opts, "--check", "--stat", "--numstat", "--summary") && !has(opts, "--apply") {
			return
		}
		w.writeTo(sc, repo, "git apply")
	case sub == "archive":
		for _, o := range opts {
			if strings.HasPrefix(o.name, "--remote") {
				w.network(hostOf(o.val))
			}
		}
	case sub == "submodule":
		switch first(ops) {
		case "foreach":
			w.unknown("git submodule foreach runs a command in every submodule")
		case "status", "summary", "":
		default:
			w.network()
			w.writeTo(sc, repo, "git submodule")
		}
	case sub == "lfs":
		w.network()
		w.writeTo(sc, repo, "git lfs")
	case gitNetwork[sub]:
		ropts, rops := parseOpts(rest, gitRemoteSpec)
		gitRemoteOp(w, sc, sub, ropts, rops)
	case gitWrite[sub]:
		w.writeTo(sc, repo, "git "+sub)
	default:
		w.unknown("git " + sub + " is not a known subcommand (it may be an alias that runs a program)")
	}
}

func first(ops []arg) string {
	if len(ops) == 0 {
		return ""
	}
	return ops[0].val
}

func gitBranch(w *walker, sc *scope, opts []opt, ops []arg, repo arg) {
	switch {
	case has(opts, "-D") || has(opts, "-d", "--delete") && has(opts, "-f", "--force"):
		w.destroy("git branch -D: deletes a branch even if unmerged")
	case has(opts, "-d", "--delete", "-m", "-M", "--move", "-c", "--copy", "--set-upstream-to", "-u",
		"--unset-upstream", "--edit-description", "-f", "--force", "--track", "-t", "--no-track"):
		w.writeTo(sc, repo, "git branch")
	case len(ops) > 0 && !has(opts, "-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-a", "--all", "-r", "--remotes"):
		w.writeTo(sc, repo, "git branch")
	}
	if has(opts, "-D", "-M", "-C") && has(opts, "-d") {
		w.destroy("git branch: forced delete or move")
	}
}

func gitConfig(w *walker, sc *scope, opts []opt, ops []arg) {
	if has(opts, "-e", "--edit") {
		w.unknown("git config --edit opens an editor")
		return
	}
	read := has(opts, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color", "--get-colorbool")
	if len(ops) > 0 && (ops[0].val == "get" || ops[0].val == "list") {
		read = true
	}
	if read || len(ops) == 1 && !has(opts, "--unset", "--unset-all", "--remove-section", "--rename-section", "--add", "--replace-all") {
		return
	}
	target := ".git/config"
	switch {
	case has(opts, "--global"):
		target = "~/.gitconfig"
	case has(opts, "--system"):
		target = "/etc/gitconfig"
	case len(values(opts, "-f", "--file")) > 0:
		target = values(opts, "-f", "--file")[0]
	}
	w.writeTo(sc, arg{val: target, static: true}, "git config")
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

// gitForce reports the risky flags of push/pull/fetch, in signature order.
func gitForce(sub string, opts []opt, ops []arg) []string {
	var flags []string
	force := has(opts, "-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror", "-d", "--delete", "--prune")
	for _, o := range opts {
		if strings.HasPrefix(o.name, "--force-with-lease") {
			force = true
		}
	}
	if sub == "push" {
		for _, a := range ops[min(1, len(ops)):] {
			if strings.HasPrefix(a.val, "+") || strings.HasPrefix(a.val, ":") {
				force = true
			}
		}
	}
	if sub == "fetch" || sub == "pull" {
		force = force && !has(opts, "-d") // fetch -d is not a thing; keep push semantics
	}
	if force {
		flags = append(flags, "force")
	}
	if sub == "pull" && (has(opts, "-r", "--rebase") || hasPrefixOpt(opts, "--rebase")) {
		flags = append(flags, "rebase")
	}
	if has(opts, "--all", "--tags", "--mirror") {
		flags = append(flags, "all")
	}
	return flags
}

func hasPrefixOpt(opts []opt, p string) bool {
	for _, o := range opts {
		if strings.HasPrefix(o.name, p) {
			return true
		}
	}
	return false
}

func gitRemoteOp(w *walker, sc *scope, sub string, opts []opt, ops []arg) {
	w.network()
	for _, a := range ops {
		w.network(hostOf(a.val))
	}
	switch sub {
	case "push":
		if contains(gitForce(sub, opts, ops), "force") {
			w.destroy("git push --force/--delete: overwrites or deletes remote history")
		}
	case "pull":
		w.writeTo(sc, arg{val: ".", static: true}, "git pull")
	case "fetch":
		if has(opts, "--prune", "-p") {
			w.writeTo(sc, arg{val: ".", static: true}, "git fetch --prune")
		}
	case "clone":
		dir := ""
		if len(ops) >= 2 {
			dir = ops[1].val
		} else if len(ops) == 1 {
			dir = strings.TrimSuffix(filepath.Base(strings.TrimRight(ops[0].val, "/")), ".git")
			if i := strings.LastIndexByte(dir, ':'); i >= 0 {
				dir = dir[i+1:]
			}
		}
		if dir != "" {
			w.writeTo(sc, arg{val: dir, static: true}, "git clone")
		}
	}
}

var gitRemoteSpec = optSpec{short: "ojbs", long: []string{"repo", "upload-pack", "receive-pack", "exec",
	"push-option", "depth", "strategy", "strategy-option", "jobs", "recurse-submodules-default", "negotiation-tip",
	"branch", "origin", "template", "config", "reference", "separate-git-dir", "shallow-since", "shallow-exclude",
	"filter", "server-option", "refmap"}}

// gitSignature builds git-<verb>:<remote>/<branch>[+force|+rebase|+all].
func gitSignature(args []arg) (string, bool) {
	_, sub, rest, ok := gitSplit(args)
	if !ok || sub != "push" && sub != "pull" && sub != "fetch" {
		return "", false
	}
	opts, ops := parseOpts(rest, gitRemoteSpec)
	remote, branch := "(default)", "(current)"
	if len(ops) > 0 {
		remote = ops[0].val
	}
	if len(ops) > 1 {
		var refs []string
		for _, a := range ops[1:] {
			refs = append(refs, strings.TrimPrefix(a.val, "+"))
		}
		branch = strings.Join(refs, ",")
	}
	sig := "git-" + sub + ":" + remote + "/" + branch
	for _, f := range gitForce(sub, opts, ops) {
		sig += "+" + f
	}
	return sig, true
}
