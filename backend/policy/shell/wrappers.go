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
	cdable := w.state.cdableVars && len(ops) > 0 && !strings.HasPrefix(ops[0].val, "/") && !strings.HasPrefix(ops[0].val, ".")
	if len(ops) == 0 || !ops[0].static || ops[0].glob || ops[0].val == "-" || strings.HasPrefix(ops[0].val, "~") || cdable {
		// cdable_vars: a name that is no folder is a variable holding one.
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

// hEnv: env's own options (with getopt_long prefixes: --ch is --chdir), then
// NAME=value pairs, then the command, run in the -C directory.
func hEnv(w *walker, inv *invocation) {
	w.flagged = true
	opts, ops, ok := w.tableOpts(inv, "env", inv.args)
	if !ok {
		return
	}
	sc := inv.sc
	for _, o := range tagged(opts, "exec") {
		// env -S splits its value into the command and its arguments.
		if o.hasVal && !o.dynamic {
			w.script(o.val, sc, syntax.LangBash)
		}
	}
	for _, o := range tagged(opts, "chdir") {
		sc = sc.copy()
		w.chdirArg(sc, arg{val: o.val, static: !o.dynamic})
	}
	var env map[string]string
	i := 0
	for ; i < len(ops); i++ {
		a := ops[i]
		if !a.static {
			w.unknown("env: arguments computed at run time")
			return
		}
		name, val, isAssign := strings.Cut(a.val, "=")
		if !isAssign {
			break
		}
		if inertAssign(name, val) {
			if env == nil {
				env = map[string]string{}
			}
			env[name] = val
			continue
		}
		w.assignName(name)
	}
	if i < len(ops) {
		w.callEnv = env
		w.nested(ops[i:], sc, inv.tail)
		w.callEnv = nil
	}
}

func hSu(w *walker, inv *invocation) {
	w.destroy("su: runs as another user, outside the sandbox's reach")
	opts, _ := parseOpts(inv.args, optSpec{short: "cgGsw", long: []string{"command", "group", "shell", "session-command"}})
	for _, c := range values(opts, "-c", "--command", "--session-command") {
		w.script(c, inv.sc, syntax.LangBash)
	}
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
