package shell

import (
	"path/filepath"
	"strings"
)

// Programs that read files, some of which have an option that writes,
// executes or deletes: read-only only when that option is absent.

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

func hMktemp(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "mktemp", inv.args)
	if hasTag(opts, "dry") {
		return
	}
	dir := "/tmp"
	if d := tagged(opts, "tmpdir"); len(d) > 0 && d[0].val != "" {
		dir = d[0].val
	} else if len(ops) > 0 && strings.Contains(ops[0].val, "/") && !isOpt(opts, "-t") {
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
