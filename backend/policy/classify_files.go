package policy

import (
	"strings"
)

// Programs that read files, some of which have an option that writes,
// executes or deletes: read-only only when that option is absent.

func hFind(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	args := inv.args
	for i := 0; i < len(args); i++ {
		switch v := args[i].val; v {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].val != ";" && args[j].val != "+" {
				j++
			}
			w.unknown("find " + v + " runs a command on every match")
			w.nested(args[i+1:j], inv.sc, true)
			i = j
		case "-delete":
			w.destroy("find -delete: removes every match")
			for _, p := range findRoots(args) {
				w.writeTo(inv.sc, p, "find -delete")
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				w.writeTo(inv.sc, args[i+1], "find "+v)
			}
			i++
		}
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
}

func hSed(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, ops := parseOpts(inv.args, optSpec{short: "efl", shortOpt: "i",
		long: []string{"expression", "file", "line-length"}})
	if has(opts, "-f", "--file") || longPrefix(opts, "--file", 3) {
		w.unknown("sed -f: the script is in a file")
		return
	}
	scripts := values(opts, "-e", "--expression")
	if len(scripts) == 0 {
		if len(ops) == 0 {
			return
		}
		scripts, ops = []string{ops[0].val}, ops[1:]
	}
	for _, s := range scripts {
		if !sedScriptSafe(s) {
			w.unknown("sed script can run commands or write files (e, w)")
		}
	}
	if has(opts, "-i") || longPrefix(opts, "--in-place", 3) {
		w.writeOps(inv, ops, "sed -i")
	}
}

// sedScriptSafe walks a sed script's commands and refuses e, w, W and the
// s///e and s///w flags. It errs towards false on anything it cannot follow.
func sedScriptSafe(s string) bool {
	i := 0
	skipAddr := func() bool {
		for i < len(s) {
			c := s[i]
			switch {
			case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+' || c == ' ' || c == '!':
				i++
			case c == '/' || c == '\\':
				d := byte('/')
				if c == '\\' {
					if i+1 >= len(s) {
						return false
					}
					i++
					d = s[i]
				}
				i++
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				if i >= len(s) {
					return false
				}
				i++
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			default:
				return true
			}
		}
		return true
	}
	// delimited skips n delimited parts after a command letter and returns
	// the flags that follow.
	delimited := func(n int) (string, bool) {
		if i >= len(s) {
			return "", false
		}
		d := s[i]
		if d == '\\' || d == '\n' {
			return "", false
		}
		i++
		for k := 0; k < n; k++ {
			for i < len(s) && s[i] != d {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(s) {
				return "", false
			}
			i++
		}
		start := i
		for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
			i++
		}
		return s[start:i], true
	}
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	toSep := func() {
		for i < len(s) && s[i] != '\n' && s[i] != ';' {
			i++
		}
	}
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', ';', '{', '}':
			i++
			continue
		case '#':
			toEOL()
			continue
		}
		if !skipAddr() || i >= len(s) {
			return i >= len(s)
		}
		c := s[i]
		i++
		switch c {
		case 's':
			flags, ok := delimited(2)
			if !ok || strings.ContainsAny(flags, "ewW") {
				return false
			}
		case 'y':
			if _, ok := delimited(2); !ok {
				return false
			}
		case 'a', 'i', 'c':
			toEOL()
		case ':', 'b', 't', 'T':
			toSep()
		case 'r', 'R', 'q', 'Q', 'l', 'L':
			toSep()
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F', '{', '}':
		default:
			// e, w, W, v and anything unknown.
			return false
		}
	}
	return true
}

func hAwk(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, ops := parseOpts(inv.args, optSpec{short: "FvfeiElW", shortOpt: "odpDL",
		long: []string{"field-separator", "assign", "file", "source", "include", "load", "exec"}})
	if has(opts, "-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec", "-o", "-p", "-d", "-D",
		"--pretty-print", "--profile", "--dump-variables", "--debug") {
		w.unknown(inv.name + ": program or output in another file")
		return
	}
	progs := values(opts, "-e", "--source")
	if len(progs) == 0 && len(ops) > 0 {
		progs = []string{ops[0].val}
	}
	for _, p := range progs {
		if strings.Contains(p, "system") || strings.ContainsAny(p, "|>@") || strings.Contains(p, "getline") {
			w.unknown(inv.name + " program can run commands or write files")
			return
		}
	}
}

func hRg(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "ABCEMTdefgjmrt",
		long: []string{"after-context", "before-context", "context", "encoding", "max-columns", "type-not",
			"max-depth", "regexp", "file", "glob", "threads", "max-count", "replace", "type", "pre", "pre-glob",
			"hostname-bin", "iglob", "type-add", "sort", "sortr", "color", "colors", "path-separator"}})
	if has(opts, "--pre", "--search-zip", "-z", "--hostname-bin") {
		w.unknown("rg --pre / --search-zip / --hostname-bin run other programs")
	}
}

func hBase64(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "bwoi", long: []string{"wrap", "output", "input", "break"}})
	for _, o := range values(opts, "-o", "--output") {
		w.writeTo(inv.sc, arg{val: o, static: true}, "base64 -o")
	}
}

func hSort(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "kotST",
		long: []string{"key", "output", "field-separator", "buffer-size", "temporary-directory", "compress-program", "batch-size", "files0-from", "random-source", "parallel", "sort"}})
	if has(opts, "--compress-program") || longPrefix(opts, "--compress-program", 4) {
		w.unknown("sort --compress-program runs another program")
	}
	for _, o := range opts {
		if o.name == "-o" || o.name == "--output" || strings.HasPrefix(o.name, "--ou") && strings.HasPrefix("--output", o.name) {
			w.writeTo(inv.sc, arg{val: o.val, static: true}, "sort -o")
		}
	}
}

func hUniq(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	_, ops := parseOpts(inv.args, optSpec{short: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"}})
	if len(ops) >= 2 {
		w.writeTo(inv.sc, ops[1], "uniq output file")
	}
}

func hTree(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "LPIoHT",
		long: []string{"charset", "filelimit", "timefmt", "sort", "infofile", "fromfile"}})
	for _, o := range values(opts, "-o") {
		w.writeTo(inv.sc, arg{val: o, static: true}, "tree -o")
	}
}

func hXxd(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	_, ops := parseOpts(inv.args, optSpec{short: "cglosn"})
	if len(ops) >= 2 {
		w.writeTo(inv.sc, ops[1], "xxd output file")
	}
}

func hDate(w *walker, inv *invocation) {
	opts, _ := parseOpts(inv.args, optSpec{short: "dfrs", shortOpt: "IR",
		long: []string{"date", "file", "reference", "set"}})
	if has(opts, "-s", "--set") || longPrefix(opts, "--set", 3) {
		w.unknown("date -s sets the system clock")
	}
}

func hHostname(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{short: "F", long: []string{"file"}})
	if len(ops) > 0 || has(opts, "-F", "--file", "-b", "--boot") {
		w.unknown("hostname with an argument sets the host name")
	}
}

func hPager(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	for _, a := range inv.args {
		if strings.HasPrefix(a.val, "+") || strings.HasPrefix(a.val, "--lesskey") || a.val == "-k" {
			w.unknown(inv.name + " startup commands can run a shell")
			return
		}
	}
}

func hMan(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "PHCMELmSsRp", long: []string{"pager", "html", "config-file", "manpath", "extension", "locale", "systems", "sections", "recode", "preprocessor"}})
	if has(opts, "-P", "--pager", "-H", "--html", "-C", "--config-file", "-p", "--preprocessor") {
		w.unknown("man --pager / --html / --preprocessor run another program")
	}
}

func hGofmt(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{short: "r"})
	if has(opts, "-w") {
		w.writeOps(inv, ops, "gofmt -w")
	}
}

func hTee(w *walker, inv *invocation) {
	_, ops := parseOpts(inv.args, optSpec{long: []string{"output-error"}})
	var real []arg
	for _, a := range ops {
		if !(a.static && isDevSink(a.val)) {
			real = append(real, a)
		}
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
func target(opts []opt, ops []arg) ([]arg, []arg) {
	if t := values(opts, "-t", "--target-directory"); len(t) > 0 {
		return []arg{{val: t[0], static: true}}, ops
	}
	if len(ops) == 0 {
		return nil, nil
	}
	return ops[len(ops)-1:], ops[:len(ops)-1]
}

var copySpec = optSpec{short: "StTgmo", long: []string{"suffix", "target-directory", "owner", "group", "mode", "backup", "sparse", "reflink", "preserve", "no-preserve"}}

func hCp(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, copySpec)
	dst, _ := target(opts, ops)
	w.writeOps(inv, dst, "cp")
}

func hMv(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, copySpec)
	dst, src := target(opts, ops)
	w.writeOps(inv, append(dst, src...), "mv")
}

func hLn(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, copySpec)
	if len(ops) == 1 && !has(opts, "-t", "--target-directory") {
		a := ops[0]
		a.val = lastComponent(a.val)
		w.writeOps(inv, []arg{a}, "ln")
		return
	}
	dst, _ := target(opts, ops)
	w.writeOps(inv, dst, "ln")
}

func hInstall(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, copySpec)
	if has(opts, "-d", "--directory") {
		w.writeOps(inv, ops, "install -d")
		return
	}
	dst, _ := target(opts, ops)
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
	_, ops := parseOpts(inv.args, optSpec{short: "tpHMnos", long: []string{"type", "property", "host", "machine", "lines", "output", "state"}})
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

func hCrontab(w *walker, inv *invocation) {
	opts, _ := parseOpts(inv.args, optSpec{short: "u"})
	if inv.name == "crontab" && has(opts, "-l") && !has(opts, "-r", "-e", "-i") {
		return
	}
	w.destroy(inv.name + ": schedules or removes jobs that run outside the sandbox")
}

func hArchive(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	for _, a := range inv.args {
		v := a.val
		if strings.HasPrefix(v, "--to-command") || strings.HasPrefix(v, "--use-compress-program") ||
			strings.HasPrefix(v, "--checkpoint-action") || strings.HasPrefix(v, "--info-script") ||
			strings.HasPrefix(v, "--new-volume-script") || strings.HasPrefix(v, "--rsh-command") || v == "-I" || v == "-F" ||
			strings.HasPrefix(v, "-TT") {
			w.unknown(inv.name + " option runs another program")
			return
		}
	}
	switch inv.name {
	case "tar":
		mode := ""
		if len(inv.args) > 0 && !strings.HasPrefix(inv.args[0].val, "-") {
			mode = inv.args[0].val
		}
		for _, a := range inv.args {
			if strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") {
				mode += a.val[1:]
			}
			switch a.val {
			case "--list":
				mode += "t"
			case "--extract", "--get":
				mode += "x"
			case "--create":
				mode += "c"
			}
		}
		if strings.Contains(mode, "t") && !strings.ContainsAny(mode, "xcruA") {
			return
		}
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
	// Extracting or compressing writes files whose names come from data.
	w.writeTo(inv.sc, arg{val: ".", static: true}, inv.name+" writes files named inside the archive")
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
