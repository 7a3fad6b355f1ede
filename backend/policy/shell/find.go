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

func hFind(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	args := inv.args
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].val != ";" && args[j].val != "+" {
				j++
			}
			w.unknown("find " + v + " runs a command on every match")
			w.nested(args[i+1:j], inv.sc, true)
			i = j
			continue
		case "-delete":
			w.destroy("find -delete: removes every match")
			for _, p := range findRoots(args) {
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
			return
		}
		i += n
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
