package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Wrappers run the command that follows their own options (and, for some,
// one operand: a duration, a CPU mask, a lock file). Their options are
// tables in options.txt, resolved like getopt_long, prefixes included: in
// `watch --int 1 rm -rf src` the 1 is --interval's value and rm is the
// command. The command is classified as if it ran alone.

var wrapperNames = []string{
	"nice", "nohup", "catchsegv", "eatmydata", "ts-exec", "timeout", "gtimeout", "time", "stdbuf", "setsid",
	"flock", "taskset", "chrt", "ionice", "watch", "xargs", "prlimit", "strace", "ltrace", "numactl",
	"nocache", "fakeroot", "faketime", "xvfb-run", "dbus-run-session", "systemd-inhibit", "proxychains",
	"proxychains4", "torsocks", "tsocks", "busybox", "toybox", "unbuffer", "chronic", "caffeinate",
	"sudo", "doas", "pkexec", "run0", "parallel",
}

func hWrapper(w *walker, inv *invocation) {
	w.flagged = true
	switch inv.name {
	case "sudo", "doas", "pkexec", "run0":
		w.destroy(inv.name + ": runs as another user, outside the sandbox's reach")
	case "proxychains", "proxychains4", "torsocks", "tsocks":
		w.network("(proxy)")
	}
	t := tableFor(inv.name)
	opts, ops, bad := t.parse(inv.args)
	if bad != "" {
		w.unknown(inv.name + ": " + bad + " (not a known option, so where its command starts is not known)")
		w.probe(inv.args, inv.sc)
		return
	}
	w.applyTags(inv, inv.name, opts)
	if hasTag(opts, "nocmd") {
		return
	}
	sc := inv.sc
	switch inv.name {
	case "watch":
		w.watchCommand(ops, sc, hasTag(opts, "execmode"))
		return
	case "flock":
		w.flockCommand(opts, ops, sc)
		return
	case "xargs":
		if len(ops) > 0 {
			w.nested(ops, sc, true)
		}
		return // xargs alone runs echo
	case "parallel":
		w.parallelCommand(ops, sc)
		return
	case "sudo", "doas", "pkexec", "run0":
		if isOpt(opts, "--edit") {
			w.writeOps(inv, ops, inv.name+" -e")
			return
		}
		if isOpt(opts, "--chdir") {
			sc = sc.copy()
			for _, d := range optVals(opts, "--chdir") {
				w.chdirArg(sc, arg{val: d, static: true})
			}
		}
	}
	if len(ops) <= t.skip {
		return
	}
	w.nested(ops[t.skip:], sc, inv.tail)
}

// applyTags applies the tags every handler understands to parsed options.
func (w *walker) applyTags(inv *invocation, table string, opts []popt) {
	for _, o := range opts {
		what := table + " " + o.as
		switch o.def.tag {
		case "exec":
			w.unknown(what + " runs another program")
		case "unknown":
			w.unknown(what + " cannot be proven harmless")
		case "config":
			w.unknown(what + " selects a configuration file or sets configuration, which can make it run or write anything")
		case "destroy":
			w.destroy(what + ": destroys data")
		case "net":
			w.network(hostOf(o.val))
		case "env":
			if !o.hasVal || o.dynamic {
				w.unknown(what + ": an environment computed at run time")
				continue
			}
			name, _, _ := strings.Cut(o.val, "=")
			w.assignName(name)
		case "write":
			// A value-less write option is the handler's to resolve.
			if o.hasVal && o.val != "-" {
				w.outputOpt(inv.sc, o.val, o.dynamic, what)
			}
		}
	}
}

// outputOpt records the file an output option names. Programs such as
// strace, psql and perf read a value starting with | or ! as a command line
// to pipe their output into.
func (w *walker) outputOpt(sc *scope, val string, dynamic bool, what string) {
	if !dynamic && (strings.HasPrefix(val, "|") || strings.HasPrefix(val, "!")) {
		w.unknown(what + " " + val + ": an output that starts with | or ! runs a command")
		w.probeScript(strings.TrimLeft(val, "|! "), sc)
		return
	}
	w.writeTo(sc, arg{val: val, static: !dynamic}, what)
}

// watchCommand: watch joins its operands into one line for `sh -c`, or runs
// them directly with -x.
func (w *walker) watchCommand(ops []arg, sc *scope, execMode bool) {
	if len(ops) == 0 {
		return
	}
	if execMode {
		w.nested(ops, sc, false)
		return
	}
	parts := make([]string, len(ops))
	for i, a := range ops {
		if !a.static {
			w.unknown("watch runs a command computed at run time")
			return
		}
		parts[i] = a.val
	}
	w.script(strings.Join(parts, " "), sc, syntax.LangPOSIX)
}

// flockCommand: flock FILE COMMAND..., flock FILE -c LINE, flock -c LINE
// FILE, or flock FD (no command).
func (w *walker) flockCommand(opts []popt, ops []arg, sc *scope) {
	for _, o := range tagged(opts, "script") {
		if o.dynamic {
			w.unknown("flock -c runs a command computed at run time")
			continue
		}
		w.script(o.val, sc, syntax.LangPOSIX)
		return
	}
	if len(ops) < 2 {
		return
	}
	rest := ops[1:]
	if v := rest[0].val; rest[0].static && (v == "-c" || strings.HasPrefix(v, "--c") && strings.HasPrefix("--command", v)) {
		if len(rest) < 2 || !rest[1].static {
			w.unknown("flock -c runs a command the classifier cannot read")
			return
		}
		w.script(rest[1].val, sc, syntax.LangPOSIX)
		return
	}
	w.nested(rest, sc, false)
}

// parallelCommand: GNU parallel runs its command words (through a shell)
// once per argument given after ::: or read from stdin; with no command,
// each argument is itself a command line.
func (w *walker) parallelCommand(ops []arg, sc *scope) {
	i := 0
	for i < len(ops) && !isParallelSep(ops[i]) {
		i++
	}
	cmd := ops[:i]
	if len(cmd) > 0 {
		parts := make([]string, len(cmd))
		for k, a := range cmd {
			if !a.static {
				w.unknown("parallel runs a command computed at run time")
				return
			}
			parts[k] = a.val
		}
		w.unknown("parallel pastes its arguments into the command line it runs")
		line := strings.Join(parts, " ")
		if !strings.Contains(line, "{") {
			// Without a replacement string each argument is appended.
			line += " {}"
		}
		w.script(line, sc, syntax.LangBash)
		return
	}
	for _, a := range ops[min(i+1, len(ops)):] {
		if isParallelSep(a) {
			continue
		}
		if !a.static {
			w.unknown("parallel runs a command computed at run time")
			continue
		}
		w.script(a.val, sc, syntax.LangBash)
	}
	if i == len(ops) {
		w.unknown("parallel runs the command lines it reads from stdin")
	}
}

func isParallelSep(a arg) bool {
	switch a.val {
	case ":::", "::::", ":::+", "::::+":
		return a.static
	}
	return false
}

// probe looks, in the words of a program the classifier cannot follow, for
// a command it may run: a word naming a known program starts one (`ifne rm
// -rf x`, `poetry run rm -rf x`), and a word holding a command line is one
// (`hyperfine 'rm -rf x'`). What such a command destroys is destructive
// here too; the program stays Unknown either way.
func (w *walker) probe(args []arg, sc *scope) {
	if w.noProbe {
		return // a probed command's own unknown programs are not probed again
	}
	probes := 0
	for i, a := range args {
		if probes >= 4 || w.depth >= maxDepth {
			return
		}
		if !a.static || a.glob || a.val == "" || strings.HasPrefix(a.val, "-") {
			continue
		}
		name := a.val
		if strings.ContainsAny(name, " \t\n;&|") {
			probes++
			w.probeScript(name, sc)
			continue
		}
		if strings.HasPrefix(name, "/") && systemBin[strings.TrimSuffix(name, "/"+lastComponent(name))] {
			name = lastComponent(name)
		}
		if h := handlers[name]; h == nil || strings.Contains(name, "/") {
			continue
		}
		probes++
		sub := w.sub()
		sub.invoke(args[i:], sc.copy(), true)
		w.adopt(sub, "may run "+name)
	}
}

// probeScript classifies a command line a program may run, keeping what it
// destroys.
func (w *walker) probeScript(src string, sc *scope) {
	if w.depth >= maxDepth || w.noProbe {
		return
	}
	sub := w.sub()
	f, err := parseScript(src, syntax.LangBash)
	if err != nil {
		return
	}
	sub.stmts(f.Stmts, sc.copy())
	w.adopt(sub, "may run `"+src+"`")
}

// sub is a walker for a hypothetical command: it sees the same disk and
// shell state, and its verdict is adopted selectively.
func (w *walker) sub() *walker {
	return &walker{depth: w.depth + 1, diskLinks: w.diskLinks, made: w.made, fds: w.fds, state: w.state, noProbe: true}
}

// adopt keeps what a probed command destroys: that is asked for whatever
// runs it. Its writes stay hypotheses (the program is Unknown and confined
// by the cage), so they do not become denials.
func (w *walker) adopt(sub *walker, why string) {
	r := sub.finish()
	for _, d := range r.Destructive {
		w.destroy(why + ": " + d)
	}
}
