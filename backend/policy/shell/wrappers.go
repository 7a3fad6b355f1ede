package shell

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Shell builtins that change state, and the wrappers that run another
// command: each is looked through (the wrapped command is classified) or
// refused.

// hCd follows bash's cd: by default logical (cd link/.. is the folder that
// holds link, as $PWD reads), with -P or `set -P` physical (links resolved
// first). Later relative paths are resolved from the logical $PWD the way
// the kernel does, so link/../x after `cd link` is next to link's target.
func hCd(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{})
	physical := w.state.physical
	for _, o := range opts {
		switch o.name {
		case "-P":
			physical = true
		case "-L":
			physical = false
		}
	}
	if len(ops) == 0 || !ops[0].static || ops[0].glob || ops[0].val == "-" || strings.HasPrefix(ops[0].val, "~") {
		inv.sc.known = false // home, OLDPWD or computed: later relative paths are unknown
		return
	}
	w.chdir(inv.sc, ops[0].val, physical)
}

// chdirArg is a program's own chdir(2) (git -C, env -C, tar -C): physical.
func (w *walker) chdirArg(sc *scope, a arg) {
	if !a.static || a.glob || a.val == "" || strings.HasPrefix(a.val, "~") {
		sc.known = false
		return
	}
	w.chdir(sc, a.val, true)
}

// chdir moves sc to dir, logically or physically.
func (w *walker) chdir(sc *scope, dir string, physical bool) {
	var base string
	switch {
	case strings.HasPrefix(dir, "/"):
		base = dir
	case sc.known:
		base = sc.cwd + "/" + dir
	default:
		return
	}
	if physical {
		p, ok := w.resolvePath(sc, base, true)
		if !ok || strings.HasPrefix(p, "~") {
			sc.known = false
			return
		}
		sc.cwd, sc.known = p, true
		return
	}
	sc.cwd, sc.known = filepath.Clean(base), true
}

func hPopd(_ *walker, inv *invocation) { inv.sc.known = false }

func hHash(w *walker, inv *invocation) {
	for _, a := range inv.args {
		if !a.static || strings.HasPrefix(a.val, "-") && strings.Contains(a.val, "p") {
			w.unknown("hash -p points a command name at another file")
			return
		}
	}
}

func hTrap(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{})
	if len(opts) > 0 && len(ops) == 0 {
		return // trap -p, trap -l
	}
	if len(ops) == 0 {
		return
	}
	if !ops[0].static {
		w.unknown("trap runs a command computed at run time")
		return
	}
	if ops[0].val != "-" && ops[0].val != "" {
		w.script(ops[0].val, inv.sc, syntax.LangBash)
	}
}

func hEval(w *walker, inv *invocation) {
	parts := make([]string, 0, len(inv.args))
	for _, a := range inv.args {
		if !a.static {
			w.unknown("eval runs a command computed at run time")
			return
		}
		parts = append(parts, a.val)
	}
	w.script(strings.Join(parts, " "), inv.sc, syntax.LangBash)
}

func hSource(w *walker, inv *invocation) {
	w.unknown(inv.name + " runs code from another file")
}

func hExec(w *walker, inv *invocation) {
	i := 0
	for i < len(inv.args) && strings.HasPrefix(inv.args[i].val, "-") {
		if inv.args[i].val == "-a" {
			i++
		}
		i++
	}
	if i < len(inv.args) {
		w.nested(inv.args[i:], inv.sc, inv.tail)
	}
}

// hCommand: command runs the program or builtin, never a function of that
// name.
func hCommand(w *walker, inv *invocation) {
	i := 0
	for ; i < len(inv.args) && strings.HasPrefix(inv.args[i].val, "-") && inv.args[i].static; i++ {
		if strings.ContainsAny(inv.args[i].val, "vV") {
			return // command -v: a lookup
		}
	}
	w.nestedNoFuncs(inv.args[i:], inv.sc, inv.tail)
}

func hBuiltin(w *walker, inv *invocation) { w.nestedNoFuncs(inv.args, inv.sc, inv.tail) }

func (w *walker) nestedNoFuncs(args []arg, sc *scope, tail bool) {
	saved := w.noFuncs
	w.noFuncs = true
	w.nested(args, sc, tail)
	w.noFuncs = saved
}

// wrapped classifies what follows a wrapper's own options.
func (w *walker) wrapped(inv *invocation, spec optSpec, skipOperands int) []opt {
	w.flagged = true
	var opts []opt
	i := 0
	for i < len(inv.args) {
		a := inv.args[i]
		if !a.static {
			break
		}
		if a.val == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a.val, "-") || a.val == "-" {
			break
		}
		o, _ := parseOpts(inv.args[i:i+1], spec)
		opts = append(opts, o...)
		if len(o) > 0 {
			last := o[len(o)-1]
			takes := strings.HasPrefix(last.name, "--") && spec.longTakes(last.name[2:]) && !strings.Contains(a.val, "=") ||
				len(last.name) == 2 && strings.IndexByte(spec.short, last.name[1]) >= 0 && strings.HasSuffix(a.val, last.name[1:])
			if takes && i+1 < len(inv.args) {
				i++
				opts[len(opts)-1].val = inv.args[i].val
			}
		}
		i++
	}
	i += skipOperands
	if i < len(inv.args) {
		w.nested(inv.args[i:], inv.sc, inv.tail)
	}
	return opts
}

func hNohup(w *walker, inv *invocation) { w.wrapped(inv, optSpec{}, 0) }

func hNice(w *walker, inv *invocation) {
	w.wrapped(inv, optSpec{short: "n", long: []string{"adjustment"}}, 0)
}

func hTimeout(w *walker, inv *invocation) {
	w.wrapped(inv, optSpec{short: "sk", long: []string{"signal", "kill-after"}}, 1)
}

func hTimeBin(w *walker, inv *invocation) {
	opts := w.wrapped(inv, optSpec{short: "of", long: []string{"output", "format"}}, 0)
	for _, o := range values(opts, "-o", "--output") {
		w.writeTo(inv.sc, arg{val: o, static: true}, "time -o")
	}
}

func hStdbuf(w *walker, inv *invocation) {
	w.wrapped(inv, optSpec{short: "ioe", long: []string{"input", "output", "error"}}, 0)
}

func hIonice(w *walker, inv *invocation) {
	w.wrapped(inv, optSpec{short: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}}, 0)
}

func hWatch(w *walker, inv *invocation) {
	w.flagged = true
	// watch's own options come first; everything from the first operand on
	// is the command, flags included.
	i := 0
	exec := false
	for i < len(inv.args) {
		v := inv.args[i].val
		if !inv.args[i].static || !strings.HasPrefix(v, "-") || v == "-" {
			break
		}
		i++
		if v == "--" {
			break
		}
		if v == "-x" || v == "--exec" {
			exec = true
		}
		if v == "-n" || v == "--interval" || v == "-q" || v == "--equexit" {
			i++
		}
	}
	if i >= len(inv.args) {
		return
	}
	ops := inv.args[i:]
	if exec {
		w.nested(ops, inv.sc, false)
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
	w.script(strings.Join(parts, " "), inv.sc, syntax.LangBash)
}

// hEnv: env's own options (with getopt_long prefixes: --ch is --chdir), then
// NAME=value pairs, then the command, run in the -C directory.
func hEnv(w *walker, inv *invocation) {
	w.flagged = true
	opts, ops, ok := w.tableOpts(inv, "env", inv.args)
	if !ok {
		return
	}
	sc := inv.sc
	for _, o := range tagged(opts, "chdir") {
		sc = sc.copy()
		w.chdirArg(sc, arg{val: o.val, static: !o.dynamic})
	}
	i := 0
	for ; i < len(ops); i++ {
		a := ops[i]
		if !a.static {
			w.unknown("env: arguments computed at run time")
			return
		}
		name, _, isAssign := strings.Cut(a.val, "=")
		if !isAssign {
			break
		}
		w.assignName(name)
	}
	if i < len(ops) {
		w.nested(ops[i:], sc, inv.tail)
	}
}

func hSudo(w *walker, inv *invocation) {
	w.destroy(inv.name + ": runs as another user, outside the sandbox's reach")
	opts := w.wrapped(inv, optSpec{short: "CDghpRrTtUu", long: []string{"close-from", "chdir", "group", "host", "prompt", "role", "type", "other-user", "user", "command-timeout"}}, 0)
	if has(opts, "-e", "--edit") {
		w.write = true
	}
}

func hSu(w *walker, inv *invocation) {
	w.destroy("su: runs as another user, outside the sandbox's reach")
	opts, _ := parseOpts(inv.args, optSpec{short: "cgGsw", long: []string{"command", "group", "shell", "session-command"}})
	for _, c := range values(opts, "-c", "--command", "--session-command") {
		w.script(c, inv.sc, syntax.LangBash)
	}
}

func hXargs(w *walker, inv *invocation) {
	w.flagged = true
	spec := optSpec{short: "adEILnPs", shortOpt: "eil",
		long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-lines", "max-chars", "process-slot-var"}}
	i := 0
	for i < len(inv.args) {
		a := inv.args[i]
		if !a.static || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			break
		}
		if a.val == "--" {
			i++
			break
		}
		o, _ := parseOpts(inv.args[i:i+1], spec)
		if len(o) > 0 {
			last := o[len(o)-1].name
			if len(last) == 2 && strings.IndexByte(spec.short, last[1]) >= 0 && strings.HasSuffix(a.val, last[1:]) ||
				strings.HasPrefix(last, "--") && spec.longTakes(last[2:]) && !strings.Contains(a.val, "=") {
				i++
			}
		}
		i++
	}
	if i >= len(inv.args) {
		return // xargs alone runs echo
	}
	w.nested(inv.args[i:], inv.sc, true)
}

// hShell looks into `bash -c SCRIPT` and refuses a shell reading a file or
// stdin.
func hShell(w *walker, inv *invocation) {
	if inv.tail {
		// xargs -I and find -exec paste run-time text (file names, input
		// lines) into the script itself.
		w.unknown(inv.name + " script receives text that arrives at run time")
	}
	lang := syntax.LangBash
	switch inv.name {
	case "zsh":
		lang = syntax.LangZsh
	case "sh", "dash", "ash", "busybox-sh":
		lang = syntax.LangPOSIX
	case "ksh", "mksh":
		lang = syntax.LangMirBSDKorn
	case "fish", "csh", "tcsh":
		w.unknown(inv.name + " scripts are not parsed")
		return
	}
	for i := 0; i < len(inv.args); i++ {
		a := inv.args[i]
		if !a.static {
			w.unknown(inv.name + ": arguments computed at run time")
			return
		}
		v := a.val
		if v == "--" || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
			break
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				w.unknown(inv.name + " " + v + " runs another file")
				return
			}
			continue
		}
		if strings.Contains(v, "c") && strings.HasPrefix(v, "-") {
			if i+1 >= len(inv.args) {
				w.unknown(inv.name + " -c without a script")
				return
			}
			s := inv.args[i+1]
			if !s.static {
				w.unknown(inv.name + " -c runs a script computed at run time")
				return
			}
			w.script(s.val, inv.sc, lang)
			return
		}
		if strings.HasSuffix(v, "o") || strings.HasSuffix(v, "O") {
			i++ // -o NAME, +O NAME
		}
	}
	w.unknown(inv.name + " runs a script file or reads commands from stdin")
}

// More wrappers: each runs the command that follows its own options (and,
// for some, one leading operand such as a lock file, CPU mask, priority or
// fake time). The wrapped command is classified, so `flock l rm -rf x` is rm.
var moreWrappers = map[string]struct {
	spec optSpec
	skip int
}{
	"flock":            {optSpec{short: "wEc", long: []string{"timeout", "conflict-exit-code", "command"}}, 1},
	"taskset":          {optSpec{}, 1},
	"chrt":             {optSpec{short: "T", long: []string{"sched-runtime", "sched-period", "sched-deadline"}}, 1},
	"numactl":          {optSpec{short: "CimNpP", long: []string{"physcpubind", "interleave", "membind", "cpunodebind", "preferred", "preferred-many"}}, 0},
	"prlimit":          {optSpec{short: "op", long: []string{"output", "pid"}}, 0},
	"nocache":          {optSpec{}, 0},
	"eatmydata":        {optSpec{}, 0},
	"fakeroot":         {optSpec{short: "lsi", long: []string{"lib", "faked"}}, 0},
	"faketime":         {optSpec{short: "m", long: []string{}}, 1},
	"xvfb-run":         {optSpec{short: "efnspw", long: []string{"error-file", "xauth-protocol", "server-num", "server-args", "wait", "xauth-file"}}, 0},
	"dbus-run-session": {optSpec{long: []string{"config-file", "dbus-daemon"}}, 0},
	"systemd-inhibit":  {optSpec{long: []string{"what", "who", "why", "mode"}}, 0},
	"strace":           {optSpec{short: "abeEIoOpPsSuUX", long: []string{"output", "trace", "signal", "status", "user", "attach", "trace-path", "string-limit"}}, 0},
	"ltrace":           {optSpec{short: "aeAfnopsuwxDFlL", long: []string{"output", "library", "align", "indent", "user"}}, 0},
	"catchsegv":        {optSpec{}, 0},
	"proxychains":      {optSpec{short: "f"}, 0},
	"proxychains4":     {optSpec{short: "f"}, 0},
	"torsocks":         {optSpec{short: "uapP", long: []string{"user", "pass", "address", "port"}}, 0},
	"tsocks":           {optSpec{}, 0},
	"busybox":          {optSpec{}, 0},
	"toybox":           {optSpec{}, 0},
}

func hMoreWrapper(w *walker, inv *invocation) {
	d := moreWrappers[inv.name]
	switch inv.name {
	case "proxychains", "proxychains4", "torsocks", "tsocks":
		w.network("(proxy)")
	case "flock":
		// flock stops reading options at the lock file ("+" getopt), and
		// takes -c COMMAND before it or right after it.
		i := 0
		for i < len(inv.args) && strings.HasPrefix(inv.args[i].val, "-") && inv.args[i].static {
			v := inv.args[i].val
			if v == "-c" || v == "--command" || strings.HasPrefix(v, "--com") && strings.HasPrefix("--command", v) {
				w.flockScript(inv, i+1)
				return
			}
			if strings.HasPrefix(v, "-c") && !strings.HasPrefix(v, "--") {
				w.flockScript(inv, -1)
				return
			}
			if (v == "-w" || v == "-E" || d.spec.longTakes(strings.TrimPrefix(v, "--"))) && !strings.Contains(v, "=") {
				i++
			}
			i++
		}
		if i+1 < len(inv.args) && (inv.args[i+1].val == "-c" || inv.args[i+1].val == "--command") {
			w.flockScript(inv, i+2)
			return
		}
	}
	opts := w.wrapped(inv, d.spec, d.skip)
	for _, o := range opts {
		if o.name == "-o" || strings.HasPrefix(o.name, "--o") && strings.HasPrefix("--output", o.name) {
			w.writeTo(inv.sc, arg{val: o.val, static: true}, inv.name+" -o")
		}
	}
}

// flockScript classifies flock's -c command line at args[i]; i < 0 means
// it is attached and not followed.
func (w *walker) flockScript(inv *invocation, i int) {
	w.flagged = true
	if i < 0 || i >= len(inv.args) || !inv.args[i].static {
		w.unknown("flock -c runs a command the classifier cannot read")
		return
	}
	w.script(inv.args[i].val, inv.sc, syntax.LangBash)
}
