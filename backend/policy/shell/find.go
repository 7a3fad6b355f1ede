package shell

import "strings"

// find and fd: read-only unless an action runs, deletes or writes; find's
// primaries are a table, fd's options are in options.txt.

// findArity is find's expression, as data: each primary and how many words
// it takes. Actions that run, delete or write are handled by name; a primary
// missing here is not known harmless.
var findArity = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1,
	"-iregex": 1, "-lname": 1, "-ilname": 1, "-type": 1, "-xtype": 1, "-size": 1, "-empty": 0, "-newer": 1,
	"-anewer": 1, "-cnewer": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1,
	"-used": 1, "-user": 1, "-group": 1, "-uid": 1, "-gid": 1, "-nouser": 0, "-nogroup": 0, "-perm": 1,
	"-links": 1, "-inum": 1, "-samefile": 1, "-readable": 0, "-writable": 0, "-executable": 0,
	"-maxdepth": 1, "-mindepth": 1, "-depth": 0, "-d": 0, "-prune": 0, "-quit": 0, "-print": 0, "-print0": 0,
	"-printf": 1, "-ls": 0, "-false": 0, "-true": 0, "-not": 0, "-and": 0, "-or": 0, "-a": 0, "-o": 0,
	"-follow": 0, "-xdev": 0, "-mount": 0, "-noleaf": 0, "-regextype": 1, "-daystart": 0, "-fstype": 1,
	"-warn": 0, "-nowarn": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-context": 1,
	"-help": 0, "--help": 0, "-version": 0, "--version": 0, "-files0-from": 1, "(": 0, ")": 0, "!": 0, ",": 0,
	"-L": 0, "-H": 0, "-P": 0, "-O0": 0, "-O1": 0, "-O2": 0, "-O3": 0, "-D": 1,
}

// hFind walks find's expression. The starting points come first, up to
// the first word that starts with -, ( or !: a pattern or a word computed
// at run time there can expand to a primary (a file named -delete), so it
// makes the command Unknown, but the rest is still read. -exec and its kin
// run their command once per match: the command is classified with {}
// standing for the matches, which lie under the starting points.
func hFind(w *walker, inv *invocation) {
	args := inv.args
	if inv.tail {
		w.unknown("find: more arguments arrive at run time and can be any primary")
	}
	roots := findRoots(args)
	for _, r := range roots {
		if !r.static || r.glob {
			w.unknown("find: the starting point " + r.val + " is a pattern or computed at run time, and can expand to a primary")
			break
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		if !a.static {
			w.unknown("find: an argument computed at run time can be any primary")
			continue
		}
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && !(args[j].static && (args[j].val == ";" || args[j].val == "+")) {
				j++
			}
			// The contract keeps find with -exec off the read-only list
			// whatever it runs; what the command does decides the rest.
			w.unknown("find " + v + " runs a command on every match")
			w.findExec(args[i+1:j], roots, inv.sc)
			i = j
			continue
		case "-delete":
			w.destroy("find -delete: removes every match")
			for _, p := range roots {
				w.writeTo(inv.sc, p, "find -delete")
			}
			continue
		case "-fprint", "-fprint0", "-fls":
			if i+1 < len(args) {
				w.writeTo(inv.sc, args[i+1], "find "+v)
			}
			i++
			continue
		case "-fprintf":
			if i+1 < len(args) {
				w.writeTo(inv.sc, args[i+1], "find "+v)
			}
			i += 2
			continue
		}
		if !strings.HasPrefix(v, "-") && v != "(" && v != ")" && v != "!" && v != "," {
			continue // a starting point
		}
		n, ok := findArity[v]
		if !ok && len(v) == len("-newerXY") && strings.HasPrefix(v, "-newer") {
			n, ok = 1, true
		}
		if !ok {
			w.unknown("find " + v + " is not a known harmless primary")
			continue
		}
		i += n
	}
}

// findExec classifies the command of -exec once per starting point, with
// {} standing for that starting point: what it does to the matches, it does
// under there.
func (w *walker) findExec(cmd, roots []arg, sc *scope) {
	w.flagged = true
	if len(cmd) == 0 {
		return
	}
	uses := false
	for _, a := range cmd {
		if strings.Contains(a.val, "{}") {
			uses = true
		}
	}
	if !uses {
		w.nested(cmd, sc, false)
		return
	}
	for _, r := range roots {
		inst := make([]arg, len(cmd))
		for k, a := range cmd {
			inst[k] = a
			if strings.Contains(a.val, "{}") {
				inst[k] = arg{val: strings.ReplaceAll(a.val, "{}", r.val), static: a.static && r.static, glob: a.glob || r.glob}
				if a.val != "{}" && k > 0 {
					// Text around {} (sh -c 'rm {}'): a file name pasted
					// into code can be code.
					w.unknown("find -exec pastes file names into a command line")
				}
			}
		}
		w.nested(inst, sc, false)
	}
}

// findRoots are the starting points: the operands before the expression.
func findRoots(args []arg) []arg {
	var roots []arg
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" {
			break
		}
		roots = append(roots, a)
	}
	if len(roots) == 0 {
		roots = append(roots, arg{val: ".", static: true})
	}
	return roots
}

func hFd(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	for i, a := range inv.args {
		switch a.val {
		case "-x", "--exec", "-X", "--exec-batch":
			w.unknown(inv.name + " " + a.val + " runs a command on every match")
			w.nested(inv.args[i+1:], inv.sc, true)
			return
		}
	}
	w.tableOpts(inv, inv.name, inv.args)
}
