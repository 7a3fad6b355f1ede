package shell

import (
	"path/filepath"
	"strings"
)

// Programs that read files, some of which have an option that writes,
// executes or deletes: read-only only when that option is absent.

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

func hTee(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{long: []string{"output-error"}})
	var real []arg
	for _, a := range ops {
		if !(a.static && isDevSink(a.val)) {
			real = append(real, a)
		}
	}
	if len(real) > 0 && w.noInput() && !has(opts, "-a", "--append") && !longPrefix(opts, "--append", 2) {
		w.destroy("tee with no input empties " + real[0].val)
	}
	w.writeOps(inv, real, "tee")
}

func hTouch(w *walker, inv *invocation) {
	_, ops := parseOpts(inv.args, optSpec{short: "dtr", long: []string{"date", "reference", "time"}})
	w.writeOps(inv, ops, "touch")
}

func hMkdir(w *walker, inv *invocation) {
	_, ops := parseOpts(inv.args, optSpec{short: "mZ", long: []string{"mode", "context"}})
	w.writeOps(inv, ops, inv.name)
}

// target picks the destination of cp/mv/ln/install: -t DIR, or the last
// operand.
func target(opts []popt, ops []arg) ([]arg, []arg) {
	if t := tagged(opts, "target"); len(t) > 0 {
		return []arg{{val: t[0].val, static: !t[0].dynamic}}, ops
	}
	if len(ops) == 0 {
		return nil, nil
	}
	return ops[len(ops)-1:], ops[:len(ops)-1]
}

// fromNothing reports a copy source that is empty: copying it over a file
// truncates that file.
func fromNothing(srcs []arg) bool {
	for _, a := range srcs {
		if a.static && (a.val == "/dev/null" || a.val == "/dev/zero") {
			return true
		}
	}
	return false
}

func hCp(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "cp", inv.args)
	dst, src := target(opts, ops)
	if fromNothing(src) {
		w.destroy("cp from " + src[0].val + ": empties the destination")
	}
	if hasTag(opts, "link") {
		w.links(inv.sc, src, dst)
	}
	w.writeOps(inv, dst, "cp")
}

func hMv(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "mv", inv.args)
	dst, src := target(opts, ops)
	if len(dst) == 1 && dst[0].static && strings.HasPrefix(dst[0].val, "/dev/") {
		w.destroy("mv to " + dst[0].val + ": discards the files moved")
		w.writeOps(inv, src, "mv")
		return
	}
	w.writeOps(inv, append(dst, src...), "mv")
	if len(dst) == 1 && (len(src) > 0 || inv.tail) {
		m := Move{Unresolved: inv.tail}
		if d, ok := w.resolved(inv.sc, dst[0]); ok {
			m.Dest = d
		}
		for _, a := range src {
			// A pattern is resolved as text: ./* under /ws is /ws/*, which
			// lies in the workspace like every file it matches.
			if p, ok := inv.sc.resolve(a.val); ok && a.static {
				m.Sources = append(m.Sources, p)
			} else {
				m.Unresolved = true
			}
		}
		w.res.Moves = append(w.res.Moves, m)
	}
}

// resolved is a static argument as the path the engine checks.
func (w *walker) resolved(sc *scope, a arg) (string, bool) {
	if !a.static || a.glob {
		return "", false
	}
	return sc.resolve(a.val)
}

// links records what links created by ln or cp -l/-s make reachable: a write
// through the link lands in the target, so the target counts as written.
// A symbolic link's relative target is relative to the link's directory.
func (w *walker) links(sc *scope, targets, linkDst []arg) {
	dir := ""
	if len(linkDst) == 1 {
		if d, ok := w.resolved(sc, linkDst[0]); ok {
			dir = d
		}
	}
	for _, t := range targets {
		if !t.static || t.glob {
			w.unknown("link to a target computed at run time")
			continue
		}
		p, ok := sc.resolve(t.val)
		if !filepath.IsAbs(t.val) && dir != "" && len(targets) == 1 && !strings.HasSuffix(linkDst[0].val, "/") {
			p, ok = filepath.Join(filepath.Dir(dir), t.val), true
		}
		if ok {
			w.res.Links = append(w.res.Links, p)
		}
	}
}

func hLn(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "ln", inv.args)
	symbolic := hasTag(opts, "symbolic")
	if symbolic && len(ops) > 0 {
		if t := ops[0].val; !ops[0].static || filepath.IsAbs(t) || strings.HasPrefix(t, "~") || strings.Contains(t, "..") {
			// Later writes through the link leave the workspace while
			// looking like workspace paths.
			w.unknown("ln -s to " + t + " can lead later writes out of the workspace")
		}
	}
	if len(ops) == 1 && len(tagged(opts, "target")) == 0 {
		a := ops[0]
		a.val = lastComponent(a.val)
		w.links(inv.sc, ops, nil)
		w.writeOps(inv, []arg{a}, "ln")
		return
	}
	dst, src := target(opts, ops)
	if fromNothing(src) && isOpt(opts, "--force") {
		w.destroy("ln -f from " + src[0].val + ": replaces the destination with an empty file")
	}
	w.links(inv.sc, src, dst)
	w.writeOps(inv, dst, "ln")
}

func hInstall(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "install", inv.args)
	if hasTag(opts, "directory") {
		w.writeOps(inv, ops, "install -d")
		return
	}
	dst, src := target(opts, ops)
	if fromNothing(src) {
		w.destroy("install from " + src[0].val + ": empties the destination")
	}
	w.writeOps(inv, dst, "install")
}

func hChmod(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{long: []string{"reference", "from"}})
	if has(opts, "-R", "--recursive") {
		w.destroy(inv.name + " -R: changes permissions of a whole tree")
	}
	hasRef := false
	for _, o := range opts {
		if strings.HasPrefix(o.name, "--reference") {
			hasRef = true
		}
	}
	if !hasRef && len(ops) > 0 && inv.name != "chattr" {
		ops = ops[1:] // the mode or owner
	}
	if inv.name == "chattr" || inv.name == "setfacl" {
		var files []arg
		for _, a := range ops {
			if !strings.HasPrefix(a.val, "+") && !strings.HasPrefix(a.val, "=") {
				files = append(files, a)
			}
		}
		ops = files
	}
	w.writeOps(inv, ops, inv.name)
}

func hRm(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{short: "snuo", long: []string{"size", "iterations", "random-source", "reference"}})
	why := inv.name + ": removes or destroys files"
	if inv.name == "rm" && has(opts, "-r", "-R", "--recursive") {
		why = "rm -r: removes a whole tree"
	}
	w.destroy(why)
	if inv.name == "truncate" {
		w.writeOps(inv, ops, why)
		return
	}
	w.writeOps(inv, ops, why)
}

func hDd(w *walker, inv *invocation) {
	w.destroy("dd: writes raw bytes, to devices too")
	for _, a := range inv.args {
		if v, ok := strings.CutPrefix(a.val, "of="); ok {
			w.writeTo(inv.sc, arg{val: v, static: a.static, glob: a.glob}, "dd of=")
		}
	}
}

func hDevice(w *walker, inv *invocation) {
	w.destroy(inv.name + ": changes disks, partitions or mounts")
}

func hKill(w *walker, inv *invocation) {
	w.destroy(inv.name + ": stops processes or the machine")
}

func hSystemctl(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{short: "tpHMnos", long: []string{"type", "property", "host", "machine", "lines", "output", "state"}})
	for _, o := range opts {
		// -H user@host runs systemctl on another machine over ssh.
		if o.name == "-H" || strings.HasPrefix(o.name, "--ho") && strings.HasPrefix("--host", o.name) {
			w.network(nonEmptyHost(remoteHostOrName(o.val)))
		}
	}
	if len(ops) == 0 {
		return
	}
	switch ops[0].val {
	case "status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets",
		"list-dependencies", "is-active", "is-enabled", "is-failed", "is-system-running", "help", "--help":
		return
	}
	if inv.name == "service" && len(ops) >= 2 && ops[1].val == "status" {
		return
	}
	w.destroy(inv.name + ": changes system services")
}

// hCrontab: anything that schedules work runs it later, outside the session
// and its sandbox; only listing is read-only.
func hCrontab(w *walker, inv *invocation) {
	opts, _ := parseOpts(inv.args, optSpec{short: "uqf"})
	switch inv.name {
	case "crontab":
		if has(opts, "-l") && !has(opts, "-r", "-e", "-i") && len(opts) == 1+len(values(opts, "-u")) {
			return
		}
	case "at":
		if has(opts, "-l") || has(opts, "-c") {
			return
		}
	case "atq":
		return
	}
	w.destroy(inv.name + ": schedules or removes jobs that run outside the sandbox")
}

func hArchive(w *walker, inv *invocation) {
	if inv.name == "tar" {
		hTar(w, inv)
		return
	}
	if inv.name == "zip" {
		hZip(w, inv)
		return
	}
	if w.refuseDynamic(inv) {
		return
	}
	extract := inv.name == "unzip" || inv.name == "7z" && hasAnyArg(inv.args, "x", "e")
	switch inv.name {
	case "unzip":
		for _, a := range inv.args {
			if a.val == "-l" || a.val == "-v" || a.val == "-t" || a.val == "-Z" || a.val == "-p" {
				return
			}
		}
	case "gzip", "bzip2", "xz", "zstd":
		for _, a := range inv.args {
			if a.val == "-l" || a.val == "--list" || a.val == "-c" || a.val == "--stdout" || a.val == "-t" || a.val == "--test" {
				return
			}
		}
	}
	// Extracting writes files whose names come from the archive, protected
	// ones included; only the cage bounds it. unzip -d names the folder.
	dir := arg{val: ".", static: true}
	for i, a := range inv.args {
		if inv.name == "unzip" && a.val == "-d" && i+1 < len(inv.args) {
			dir = inv.args[i+1]
		} else if inv.name == "unzip" && strings.HasPrefix(a.val, "-d") && len(a.val) > 2 {
			dir = arg{val: a.val[2:], static: a.static}
		}
	}
	w.writeTo(inv.sc, dir, inv.name)
	if extract {
		w.unknown(inv.name + " writes files named inside the archive")
	}
}

// tarArgs turns tar's old-style first word (`tar xzf a.tgz`) into options:
// each letter is an option and those that take a value take the next words.
func tarArgs(args []arg) []arg {
	if len(args) == 0 || !args[0].static || strings.HasPrefix(args[0].val, "-") {
		return args
	}
	t := tableFor("tar")
	out := []arg{}
	rest := args[1:]
	for _, c := range []byte(args[0].val) {
		out = append(out, arg{val: "-" + string(c), static: true})
		if c < 128 && t.short[c] != nil && t.short[c].val == valRequired && len(rest) > 0 {
			out = append(out, rest[0])
			rest = rest[1:]
		}
	}
	return append(out, rest...)
}

func hTar(w *walker, inv *invocation) {
	args := tarArgs(inv.args)
	opts, _, _ := w.tableOpts(inv, "tar", args)
	mode := ""
	for _, o := range opts {
		if m, ok := strings.CutPrefix(o.def.tag, "mode-"); ok {
			mode = m
		}
	}
	for _, f := range tagged(opts, "archive") {
		// tar reads host:path as a remote archive over rsh/ssh.
		if h := remoteHost(f.val); h != "" && !hasTag(opts, "local") {
			w.network(h)
		}
	}
	sc := inv.sc
	if d := tagged(opts, "chdir"); len(d) > 0 {
		sc = sc.copy()
		hCd(w, &invocation{args: []arg{{val: d[len(d)-1].val, static: !d[len(d)-1].dynamic}}, sc: sc})
	}
	switch mode {
	case "list", "":
		if mode == "" {
			w.unknown("tar without a mode option")
		}
	case "create", "write":
		archives := tagged(opts, "archive")
		if len(archives) == 0 {
			w.writeTo(sc, arg{val: ".", static: true}, "tar")
		}
		for _, f := range archives {
			if f.val != "-" && remoteHost(f.val) == "" {
				w.writeTo(inv.sc, arg{val: f.val, static: !f.dynamic}, "tar archive")
			}
		}
	case "extract":
		if hasTag(opts, "stdout") {
			return
		}
		if hasTag(opts, "overwrite") {
			w.destroy("tar --overwrite/--unlink-first: replaces existing files with the archive's")
		}
		w.writeTo(sc, arg{val: ".", static: true}, "tar")
		w.unknown("tar writes files named inside the archive")
	}
}

func hZip(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "zip", inv.args)
	if hasTag(opts, "zipdelete") || len(ops) > 0 {
		if len(ops) > 0 {
			w.writeTo(inv.sc, ops[0], "zip archive")
		} else {
			w.writeTo(inv.sc, arg{val: ".", static: true}, "zip")
		}
	}
}

func hMktemp(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{short: "p", long: []string{"tmpdir", "suffix"}})
	if has(opts, "-u", "--dry-run") {
		return
	}
	dir := "/tmp"
	if d := values(opts, "-p", "--tmpdir"); len(d) > 0 && d[0] != "" {
		dir = d[0]
	} else if len(ops) > 0 && strings.Contains(ops[0].val, "/") && !has(opts, "-t") {
		dir = filepath.Dir(ops[0].val)
	}
	w.writeTo(inv.sc, arg{val: dir, static: true}, "mktemp")
}

func hPatch(w *walker, inv *invocation) {
	opts, _ := parseOpts(inv.args, optSpec{short: "dDiopBYzrFVg"})
	if has(opts, "--dry-run", "-C", "--check") {
		return
	}
	w.write = true
	w.res.Unresolved = true
	w.unknown("patch writes the files named inside the diff")
}

// remoteHostOrName reads [user@]host[:port].
func remoteHostOrName(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}
