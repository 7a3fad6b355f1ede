package shell

import (
	"path/filepath"
	"strings"
)

// git push, pull, fetch and clone: network, their destructive flags and
// their signature.

// gitFlags are the signature suffixes of push/pull/fetch, from the option
// tags and refspecs, in the contract's order.
func gitFlags(sub string, opts []popt, ops []arg) []string {
	has := map[string]bool{}
	for _, o := range opts {
		has[o.def.tag] = true
	}
	// A refspec's leading + forces its update, for fetch and pull as for
	// push; a push refspec with nothing before the colon deletes.
	for _, a := range ops[min(1, len(ops)):] {
		if strings.HasPrefix(a.val, "+") {
			has["force"] = true
		}
		if sub == "push" && strings.HasPrefix(a.val, ":") {
			has["delete"] = true
		}
	}
	var flags []string
	for _, f := range []string{"force", "delete", "mirror", "prune", "all", "tags", "rebase"} {
		if has[f] {
			flags = append(flags, f)
		}
	}
	return flags
}

func gitRemoteOp(w *walker, sc *scope, sub string, opts []popt, ops []arg) {
	w.network()
	for _, a := range ops {
		w.network(hostOf(a.val))
	}
	switch sub {
	case "push":
		for _, f := range gitFlags(sub, opts, ops) {
			switch f {
			case "force", "delete", "mirror", "prune":
				w.destroy("git push --" + f + ": overwrites or deletes remote history")
			}
		}
	case "pull":
		w.writeTo(sc, arg{val: ".", static: true}, "git pull")
	case "fetch":
		if hasTag(opts, "prune") || hasTag(opts, "force") {
			w.writeTo(sc, arg{val: ".", static: true}, "git fetch --prune/--force")
		}
	case "clone":
		var dirs []arg
		for _, a := range ops {
			if !strings.HasPrefix(a.val, "-") {
				dirs = append(dirs, a)
			}
		}
		dir := ""
		if len(dirs) >= 2 {
			dir = dirs[1].val
		} else if len(dirs) == 1 {
			dir = strings.TrimSuffix(filepath.Base(strings.TrimRight(dirs[0].val, "/")), ".git")
			if i := strings.LastIndexByte(dir, ':'); i >= 0 {
				dir = dir[i+1:]
			}
		}
		if dir != "" {
			w.writeTo(sc, arg{val: dir, static: true}, "git clone")
		}
	}
}

// gitSignature builds git-<verb>:<remote>/<branch>[+force|+delete|...]. ok
// is false when an option is not in git's table: the signature is then exact.
func gitSignature(args []arg) (string, bool) {
	globals, sub, rest, bad := gitSplit(args)
	if bad != "" || sub != "push" && sub != "pull" && sub != "fetch" {
		return "", false
	}
	// The repository is part of what the human saw: -C, --git-dir and
	// --work-tree (and anything else that is not harmless) make the
	// signature the exact command.
	for _, g := range globals {
		if g.def.tag != "" {
			return "", false
		}
	}
	for _, a := range rest {
		if a.val == "--" {
			return "", false
		}
	}
	opts, ops, bad := tableFor("git " + sub).parse(rest)
	if bad != "" {
		return "", false
	}
	for _, o := range opts {
		if o.def.tag == "exec" || o.def.tag == "unknown" || o.def.tag == "sigexact" {
			return "", false
		}
	}
	remote, branch := "(default)", "(current)"
	if len(ops) > 0 {
		remote = ops[0].val
	}
	if len(ops) > 1 {
		var refs []string
		for _, a := range ops[1:] {
			refs = append(refs, strings.TrimLeft(a.val, "+:"))
		}
		branch = strings.Join(refs, ",")
	}
	sig := "git-" + sub + ":" + remote + "/" + branch
	for _, f := range gitFlags(sub, opts, ops) {
		sig += "+" + f
	}
	return sig, true
}
