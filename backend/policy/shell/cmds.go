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
	"break", "continue", "shift", "jobs", "dirs", "times", "caller", "set", "shopt",
	"unalias", "ulimit", "umask", "disown", "fg", "bg", "help", "tsort",
	"look", "cal", "ncal", "lsof", "vmstat", "iostat", "mpstat", "netstat",
	"zcat", "bzcat", "xzcat", "zstdcat", "lz4cat", "sha1", "shasum", "md5", "objdump", "readelf", "size", "tput", "mountpoint", "findmnt",
	"systemd-detect-virt", "lsmod", "whatis", "apropos",
	"tokei", "scc", "exa", "eza", "lsd",
	"apt-cache", "dpkg-query", "lsb_release", "sw_vers", "last", "pstree", "locate", "plocate", "bc",
}

func init() {
	register(func(*walker, *invocation) {}, readOnlyNames...)
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
	register(hHash, "hash")
	register(hTrap, "trap")
	register(hEval, "eval")
	register(hSource, "source", ".", "enable")
	register(hExec, "exec")
	register(hCommand, "command")
	register(hBuiltin, "builtin")
	register(hNohup, "nohup", "setsid", "unbuffer", "caffeinate", "chronic", "ts-exec")
	register(hNice, "nice")
	for name := range moreWrappers {
		register(hMoreWrapper, name)
	}
	register(hTimeout, "timeout", "gtimeout")
	register(hTimeBin, "time")
	register(hStdbuf, "stdbuf")
	register(hIonice, "ionice")
	register(hWatch, "watch")
	register(hEnv, "env")
	register(hSudo, "sudo", "doas", "pkexec", "run0")
	register(hSu, "su")
	register(hXargs, "xargs")
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
	register(hArchive, "tar", "unzip", "zip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "7z")
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
	w.collect(args, tail)
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
			return
		}
		name = filepath.Base(clean)
	}
	inv := &invocation{name: name, args: args[1:], sc: sc, tail: tail}
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
}

func (w *walker) call(ce *syntax.CallExpr, sc *scope) {
	w.res.Segments++
	for _, a := range ce.Assigns {
		w.flagged = true
		w.assignedValue(a)
		// IFS= before a command only changes how that command splits
		// (`IFS= read -r line`); a bare IFS= changes every later expansion.
		if a.Name != nil && !(a.Name.Value == "IFS" && len(ce.Args) > 0) {
			w.assignName(a.Name.Value)
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
	if !w.headSeen {
		w.head, w.headSeen = args, true
		if sc.known {
			w.headCwd = sc.cwd
		}
	}
	w.invoke(args, sc, false)
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
	w.depth++
	w.stmts(f.Stmts, sc)
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

// versionQuery lets `python3 --version`, `node -v`, `cargo --version` and the
// like through: with that one argument these programs print their version and
// run no project code. Any other argument keeps the program's usual rule.
func versionQuery(inv *invocation) bool {
	if len(inv.args) != 1 || inv.tail || !inv.args[0].static {
		return false
	}
	switch inv.args[0].val {
	case "--version", "-V", "-version":
	case "-v":
		if inv.name != "node" && inv.name != "nodejs" && inv.name != "npm" && inv.name != "yarn" && inv.name != "pnpm" && inv.name != "bun" && inv.name != "deno" {
			return false
		}
	default:
		return false
	}
	if isInterpreter(inv.name) && !isEditor(inv.name) {
		return true
	}
	_, pkg := pkgTable[inv.name]
	return pkg || contains(buildTools, inv.name) || contains(dlRunners, inv.name) || inv.name == "git" || inv.name == "docker" || inv.name == "kubectl"
}

func isEditor(n string) bool {
	switch n {
	case "vim", "vi", "nvim", "emacs", "nano", "ed", "ex", "gdb", "lldb", "expect":
		return true
	}
	return false
}
