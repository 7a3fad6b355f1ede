package shell

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// invocation is one program about to run, after wrappers are looked through.
type invocation struct {
	name string
	args []arg
	sc   *scope
	// tail says more arguments arrive at run time (xargs, find -exec).
	tail bool
}

// dynamic reports arguments the classifier cannot see: a program whose
// read-only proof rests on its flags refuses them, since `$X` or a glob
// matching a file named "-delete" can add any flag.
func (inv *invocation) dynamic() bool {
	if inv.tail {
		return true
	}
	for _, a := range inv.args {
		if !a.static || a.glob {
			return true
		}
	}
	return false
}

type handler func(w *walker, inv *invocation)

var handlers = map[string]handler{}

func register(h handler, names ...string) {
	for _, n := range names {
		handlers[n] = h
	}
}

// readOnlyNames have no option that writes, executes or connects.
var readOnlyNames = []string{
	"ls", "dir", "vdir", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "zgrep", "pwd", "echo",
	"which", "whereis", "type", "stat", "du", "df", "cut", "tr", "basename", "dirname",
	"realpath", "readlink", "uname", "printenv", "id", "whoami", "groups", "logname", "true", "false",
	"seq", "nl", "od", "hexdump", "strings", "cmp", "diff", "comm", "paste", "join",
	"column", "fold", "fmt", "expand", "unexpand", "rev", "tac", "md5sum", "sha1sum", "sha224sum",
	"sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "base32", "basenc", "nproc", "arch", "tty",
	"sleep", "lscpu", "lsblk", "lsusb", "lspci", "free", "uptime", "ps", "pgrep", "pidof", "who", "w", "users",
	"locale", "getconf", "jq", "gojq", "numfmt", "factor", "expr", "yes", ":", "exit", "return",
	"break", "continue", "shift", "jobs", "dirs", "times", "caller",
	"unalias", "ulimit", "umask", "disown", "fg", "bg", "help", "tsort",
	"look", "cal", "ncal", "lsof", "vmstat", "iostat", "mpstat", "netstat",
	"zcat", "bzcat", "xzcat", "zstdcat", "lz4cat", "sha1", "shasum", "md5", "objdump", "readelf", "size", "tput", "mountpoint", "findmnt",
	"systemd-detect-virt", "lsmod", "whatis", "apropos",
	"tokei", "scc", "exa", "eza", "lsd",
	"dpkg-query", "lsb_release", "sw_vers", "last", "pstree", "locate", "plocate", "bc",
}

func init() {
	register(hReadOnly, readOnlyNames...)
	register(hAptCache, "apt-cache")
	register(hCd, "cd", "pushd")
	register(hPopd, "popd")
	register(hPrintf, "printf")
	register(hRead, "read")
	register(hMapfile, "mapfile", "readarray")
	register(hGetopts, "getopts")
	register(hUnset, "unset")
	register(hWait, "wait")
	register(hTest, "test", "[")
	register(hGetent, "getent")
	register(hSs, "ss")
	register(hAlias, "alias")
	register(hSet, "set")
	register(hShopt, "shopt")
	register(hHash, "hash")
	register(hTrap, "trap")
	register(hEval, "eval")
	register(hSource, "source", ".", "enable")
	register(hExec, "exec")
	register(hCommand, "command")
	register(hBuiltin, "builtin")
	register(hWrapper, wrapperNames...)
	register(hEnv, "env")
	register(hSu, "su")
	register(hShell, "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh", "fish", "csh", "tcsh")
	register(hFind, "find")
	register(hFd, "fd", "fdfind")
	register(hSed, "sed", "gsed")
	register(hAwk, "awk", "gawk", "mawk", "nawk")
	register(hRg, "rg")
	register(hBase64, "base64")
	register(hSort, "sort")
	register(hUniq, "uniq")
	register(hTree, "tree")
	register(hXxd, "xxd")
	register(hDate, "date")
	register(hHostname, "hostname")
	register(hPager, "less", "more", "most", "pg")
	register(hMan, "man")
	register(hGofmt, "gofmt")
	register(hTee, "tee")
	register(hTouch, "touch")
	register(hMkdir, "mkdir", "rmdir")
	register(hCp, "cp")
	register(hMv, "mv")
	register(hLn, "ln")
	register(hInstall, "install")
	register(hChmod, "chmod", "chown", "chgrp", "chattr", "setfacl")
	register(hRm, "rm", "unlink", "shred", "srm", "truncate", "wipe")
	register(hDd, "dd")
	register(hDevice, "mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "gdisk", "parted", "mkfs.ext4",
		"mkfs.ext3", "mkfs.xfs", "mkfs.vfat", "mkfs.btrfs", "losetup", "mount", "umount", "swapon", "swapoff")
	register(hKill, "kill", "pkill", "killall", "xkill", "shutdown", "reboot", "halt", "poweroff", "init", "telinit")
	register(hSystemctl, "systemctl", "service")
	register(hCrontab, "crontab", "at", "batch", "atq", "atrm", "systemd-run", "launchctl", "anacron", "fcrontab", "incrontab", "schtasks")
	register(hDocker, "docker", "podman", "nerdctl")
	register(hKubectl, "kubectl", "oc", "helm")
	register(hArchive, "tar", "unzip", "zip", "7z")
	for name := range compressors {
		register(hCompress, name)
	}
	register(hPatch, "patch")
	register(hMktemp, "mktemp")
	register(hBat, "bat", "batcat")
	register(hTabled, "file", "diff3", "nm")
	registerNetwork()
	registerPackages()
	register(hGit, "git")
}

// systemBin are the directories whose programs are named by their base name:
// /bin/rm is rm. Anything else with a slash runs a file the model may have
// written.
var systemBin = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true,
	"/usr/local/sbin": true, "/opt/homebrew/bin": true,
}

// invoke classifies one program and its arguments.
func (w *walker) invoke(args []arg, sc *scope, tail bool) {
	if len(args) == 0 {
		return
	}
	p := args[0]
	switch {
	case !p.static:
		w.unknown("the program name is computed at run time")
		return
	case p.glob:
		w.unknown("the program name " + p.val + " is a pattern")
		return
	case p.val == "":
		w.unknown("empty program name")
		return
	}
	name := p.val
	if strings.Contains(name, "/") {
		clean := filepath.Clean(name)
		if !filepath.IsAbs(clean) || !systemBin[filepath.Dir(clean)] {
			w.unknown("runs " + name + ", a file outside the system program directories")
			w.probe(args[1:], sc)
			return
		}
		name = filepath.Base(clean)
	}
	inv := &invocation{name: name, args: args[1:], sc: sc, tail: tail}
	if !strings.Contains(p.val, "/") && !w.noFuncs {
		if w.expandAlias(name, inv.args, sc) && handlers[name] == nil {
			return
		}
		if w.state.funcs[name] != nil && handlers[name] == nil && !isInterpreter(name) {
			w.callFunction(name, sc)
			return
		}
		if w.state.funcs[name] != nil {
			// A function shadows the program: its body runs in this shell.
			// The program's own verdict is kept too (the definition may not
			// have run), but its changes to the shell are not, and where
			// they disagree the directory is no longer known.
			before := *sc
			w.callFunction(name, sc)
			other := before
			w.noFuncs = true
			w.invokeAs(&invocation{name: name, args: args[1:], sc: &other, tail: tail})
			w.noFuncs = false
			if other != *sc {
				sc.known = false
			}
			return
		}
	}
	w.invokeAs(inv)
}

// invokeAs runs the handler of a program named by its base name.
func (w *walker) invokeAs(inv *invocation) {
	name := inv.name
	if versionQuery(inv) {
		return
	}
	if h, ok := handlers[name]; ok {
		h(w, inv)
		return
	}
	if isInterpreter(name) {
		w.unknown(name + " runs code")
		return
	}
	w.unknown(name + " is not a command the classifier knows")
	w.probe(inv.args, inv.sc)
}

func (w *walker) call(ce *syntax.CallExpr, sc *scope) {
	w.res.Segments++
	w.callEnv = nil
	for _, a := range ce.Assigns {
		w.flagged = true
		w.assignedValue(a)
		if a.Name != nil && a.Value != nil && len(ce.Args) > 0 {
			if v, static, _ := wordValue(a.Value); static && inertAssign(a.Name.Value, v) {
				if w.callEnv == nil {
					w.callEnv = map[string]string{}
				}
				w.callEnv[a.Name.Value] = v
				continue
			}
		}
		// IFS= before a command only changes how that command splits
		// (`IFS= read -r line`); a bare IFS= changes every later expansion.
		if a.Name != nil && !(a.Name.Value == "IFS" && len(ce.Args) > 0) {
			w.assignName(a.Name.Value)
		}
		if a.Name != nil && a.Name.Value == "POSIXLY_CORRECT" && len(ce.Args) == 0 {
			// Setting it puts bash in POSIX mode, which expands aliases.
			w.state.expandAliases = true
		}
		w.scanAssign(a, sc)
	}
	if len(ce.Args) == 0 {
		return
	}
	args := make([]arg, 0, len(ce.Args))
	for _, wd := range ce.Args {
		w.scan(wd, sc)
		args = w.expandBraces(args, wd)
	}
	args = w.keywordArgs(ce, args)
	if !w.headSeen {
		w.head, w.headSeen = args, true
		if sc.known {
			w.headCwd = sc.cwd
		}
	}
	w.invoke(args, sc, false)
	w.callEnv = nil
}

// inertAssign are environment settings for one command that keep it from
// running or fetching anything it otherwise might.
func inertAssign(name, value string) bool {
	switch name {
	case "GOTOOLCHAIN":
		return value == "local"
	case "GIT_OPTIONAL_LOCKS":
		return value == "0"
	case "LESSHISTFILE":
		return value == "-" || value == "/dev/null"
	case "PAGER", "GIT_PAGER", "SYSTEMD_PAGER", "MANPAGER":
		return value == "cat" || value == ""
	}
	return false
}

// maxBraceWords bounds brace expansion; a bigger one is refused.
const maxBraceWords = 1024

// expandBraces appends the words a brace expansion produces, so
// `{rm,-rf,x}` is seen as the rm it runs.
func (w *walker) expandBraces(args []arg, wd *syntax.Word) []arg {
	braces, size := 0, 0
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			braces += strings.Count(l.Value, "{")
			size += len(l.Value)
		}
	}
	if braces == 0 {
		return append(args, argOf(wd))
	}
	if braces > 32 || size > 4096 {
		// SplitBraces is quadratic in the number of braces.
		w.unknown("brace expression too complex to follow")
		a := argOf(wd)
		a.static = false
		return append(args, a)
	}
	if !syntax.SplitBraces(wd) {
		return append(args, argOf(wd))
	}
	w.flagged = true
	n := 0
	for ew, err := range expand.BracesSeq(nil, wd) {
		n++
		if err != nil || n > maxBraceWords {
			w.unknown("brace expansion too large to follow")
			return append(args, arg{val: "{...}", static: false})
		}
		args = append(args, argOf(ew))
	}
	return args
}

// script parses and classifies a script given as a string (bash -c, eval,
// trap, watch).
func (w *walker) script(src string, sc *scope, lang syntax.LangVariant) {
	w.flagged = true
	if w.depth >= maxDepth {
		w.unknown("commands nested too deeply")
		return
	}
	f, err := parseScript(src, lang)
	if err != nil {
		w.unknown("cannot parse the inner script: " + err.Error())
		return
	}
	if lang != syntax.LangBash {
		// sh, ksh and zsh expand aliases in scripts too.
		w.state.expandAliases = true
	}
	w.depth++
	outer := w.src
	w.src = src
	w.stmts(f.Stmts, sc)
	w.src = outer
	w.depth--
}

// nested classifies the command a wrapper runs.
func (w *walker) nested(args []arg, sc *scope, tail bool) {
	w.flagged = true
	if w.depth >= maxDepth {
		w.unknown("commands nested too deeply")
		return
	}
	w.depth++
	w.invoke(args, sc, tail)
	w.depth--
}

// writeOps records writes to every operand.
func (w *walker) writeOps(inv *invocation, ops []arg, what string) {
	for _, a := range ops {
		w.writeTo(inv.sc, a, what)
	}
	if inv.tail {
		w.write = true
		w.res.Unresolved = true
		w.unknown(what + ": targets arrive at run time")
	}
}

func (w *walker) refuseDynamic(inv *invocation) bool {
	if inv.dynamic() {
		w.unknown(inv.name + ": arguments computed at run time can add flags")
		return true
	}
	return false
}

var interpreters = []string{
	"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "perl", "ruby", "php", "lua", "luajit",
	"deno", "bun", "Rscript", "R", "java", "osascript", "tclsh", "wish", "julia", "irb", "ghci", "runghc",
	"swift", "kotlin", "scala", "groovy", "dotnet", "pwsh", "powershell", "elixir", "erl", "escript", "guile",
	"racket", "sbcl", "clojure", "ts-node", "tsx", "expect", "gdb", "lldb", "vim", "vi", "nvim", "emacs", "nano",
	"ed", "ex",
}

func isInterpreter(name string) bool {
	for _, n := range interpreters {
		if name == n {
			return true
		}
	}
	// python3.12, perl5.36, ruby3.2
	for _, p := range []string{"python", "perl", "ruby", "php", "node", "lua"} {
		if rest, ok := strings.CutPrefix(name, p); ok && rest != "" && strings.Trim(rest, "0123456789.") == "" {
			return true
		}
	}
	return false
}

// versionQuery lets `python3 --version`, `node -v`, `git --version` and the
// like through: with that one argument these programs print their version
// and read no file of the project. Programs that do (cargo and rustc read
// rust-toolchain.toml and install what it names, mvn reads .mvn/jvm.config,
// go reads go.mod's toolchain line, yarn runs .yarnrc.yml's yarnPath,
// gradle, sbt and bazelisk start what the project pins) keep their usual
// rule. Any other argument keeps the program's usual rule too.
func versionQuery(inv *invocation) bool {
	if len(inv.args) != 1 || inv.tail || !inv.args[0].static {
		return false
	}
	switch inv.args[0].val {
	case "--version", "-V", "-version":
	case "-v":
		if inv.name != "node" && inv.name != "nodejs" && inv.name != "npm" && inv.name != "bun" && inv.name != "deno" {
			return false
		}
	default:
		return false
	}
	if isInterpreter(inv.name) && !isEditor(inv.name) {
		return true
	}
	return versionSafe[inv.name]
}

// versionSafe print their version without reading the project's files.
var versionSafe = map[string]bool{
	"git": true, "docker": true, "podman": true, "npm": true, "bun": true, "pip": true, "pip3": true,
	"gem": true, "make": true, "gmake": true, "cmake": true, "ninja": true, "gcc": true, "g++": true, "cc": true,
	"c++": true, "clang": true, "clang++": true, "javac": true, "tsc": true, "eslint": true, "prettier": true,
	"ruff": true, "black": true, "isort": true, "flake8": true, "mypy": true, "zig": true, "ld": true,
	"meson": true, "just": true, "hugo": true, "staticcheck": true, "golangci-lint": true, "brew": true,
	"apt": true, "apt-get": true, "pipx": true, "uv": true, "helm": true, "kubectl": true, "deno": true,
}

func isEditor(n string) bool {
	switch n {
	case "vim", "vi", "nvim", "emacs", "nano", "ed", "ex", "gdb", "lldb", "expect":
		return true
	}
	return false
}
