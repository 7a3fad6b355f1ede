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
		if !w.sinkArg(inv.sc, a) {
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
	switch inv.name {
	case "truncate", "shred", "wipe":
		// They act on what a link points to.
		w.writeOps(inv, ops, why)
	default:
		// rm and unlink remove the name: a link goes, not its target.
		w.removeOps(inv, ops, why)
	}
}

func hDd(w *walker, inv *invocation) {
	w.destroy("dd: writes raw bytes, to devices too")
	for _, a := range inv.args {
		if v, ok := strings.CutPrefix(a.val, "of="); ok {
			w.writeTo(inv.sc, arg{val: v, static: a.static, glob: a.glob}, "dd of=")
		}
	}
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
