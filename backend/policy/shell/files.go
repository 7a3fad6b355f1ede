package shell

import (
	"path/filepath"
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
	if has(opts, "-s", "--symbolic") && len(ops) > 0 {
		if t := ops[0].val; !ops[0].static || filepath.IsAbs(t) || strings.HasPrefix(t, "~") || strings.Contains(t, "..") {
			// Later writes through the link leave the workspace while
			// looking like workspace paths.
			w.unknown("ln -s to " + t + " can lead later writes out of the workspace")
		}
	}
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
	extract := inv.name == "unzip" || inv.name == "7z" && hasAnyArg(inv.args, "x", "e")
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
		extract = strings.Contains(mode, "x")
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
	// Extracting writes files whose names come from the archive, protected
	// ones included; only the cage bounds it.
	w.writeTo(inv.sc, arg{val: ".", static: true}, inv.name)
	if extract {
		w.unknown(inv.name + " writes files named inside the archive")
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
