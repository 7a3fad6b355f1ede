package shell

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// subcommandPrograms are the programs whose first word names what they do:
// `npm test` and `npm publish` must not share a grant.
var subcommandPrograms = map[string]bool{
	"git": true, "npm": true, "yarn": true, "pnpm": true, "bun": true, "cargo": true, "go": true, "docker": true,
	"podman": true, "kubectl": true, "make": true, "gmake": true, "pip": true, "pip3": true, "uv": true,
	"poetry": true, "gradle": true, "gradlew": true, "mvn": true, "dotnet": true, "deno": true, "rustup": true,
	"gh": true, "brew": true, "apt": true, "apt-get": true, "systemctl": true, "just": true, "task": true,
	"tox": true, "nox": true, "terraform": true, "helm": true, "composer": true, "bundle": true, "rake": true,
	"mix": true, "swift": true, "zig": true, "flutter": true, "dart": true, "nx": true, "turbo": true,
	"bazel": true, "cmake": true, "conda": true, "gem": true, "pytest": false,
}

var runVerbs = map[string]bool{"run": true, "exec": true, "x": true, "run-script": true, "dlx": true}

// Compiled on first use: every `warden tool` process links this package;
// few of its calls need the expression.
var subcommandWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9._:-]*$`) })

// signature is computed after classification: a head signature only for one
// plain command that is read-only or unproven-but-not-an-interpreter.
func (w *walker) signature(f *syntax.File, norm string, class Class) string {
	exact := "shell=" + norm
	if w.res.Segments != 1 || w.flagged || len(f.Stmts) != 1 || !w.headSeen || len(w.head) == 0 {
		return exact
	}
	for _, a := range w.head {
		if !a.static || a.glob {
			return exact
		}
	}
	prog := w.head[0].val
	script := ""
	if strings.Contains(prog, "/") {
		clean := filepath.Clean(prog)
		switch {
		case filepath.IsAbs(clean) && systemBin[filepath.Dir(clean)]:
		case filepath.IsAbs(clean):
			script = clean
		case w.headCwd != "":
			script = filepath.Join(w.headCwd, clean)
		default:
			return exact // a script relative to a directory the engine cannot see
		}
		prog = filepath.Base(clean)
	}
	args := w.head[1:]
	if script != "" {
		// A script keeps its resolved path: ./scripts/test.sh is not
		// /tmp/test.sh. It has no option table: only the bare script has
		// a head signature.
		if len(args) > 0 {
			return exact
		}
		return "shell:" + script
	}
	switch prog {
	case "ssh":
		if class == ClassUnknown || class == ClassDestructive {
			return exact
		}
		user, host, port, cmd, opts, bad := sshTarget(args)
		if bad != "" {
			return exact
		}
		for _, o := range opts {
			// Jump hosts, forwardings, other configs or identities change
			// where and how it connects, and -A/-X/-Y hand the remote side
			// the agent or the display: only -p, -l and flags known harmless
			// are in the signature.
			if o.def.val != valNone && o.def.tag != "port" && o.def.tag != "user" || o.def.tag == "sigexact" {
				return exact
			}
		}
		dest := host + ":" + port
		if user != "" {
			dest = user + "@" + dest
		}
		return strings.TrimSpace("ssh:" + dest + " " + strings.Join(argValsAll(cmd), " "))
	case "git":
		if class != ClassUnknown {
			if sig, ok := gitSignature(args); ok {
				return sig
			}
		}
	}
	if class != ClassReadOnly && class != ClassUnknown || isInterpreter(prog) || isShellName(prog) {
		return exact
	}
	// An unproven command shares a head only when the program itself is what
	// is unproven (make, npm test, an unknown tool). When a known program is
	// unproven because of an option (git -c, rg --pre, sed -f), the option is
	// the risk and the signature is exact.
	_, pkg := pkgTable[prog]
	if class == ClassUnknown && handlers[prog] != nil && !pkg && !contains(buildTools, prog) {
		return exact
	}
	if subcommandPrograms[prog] && len(args) > 0 && !subcommandWord().MatchString(args[0].val) {
		return exact // npm --prefix x test, git -C x push: options first
	}
	head := prog
	rest := args
	if subcommandPrograms[prog] && len(args) > 0 {
		head += " " + args[0].val
		rest = args[1:]
		if runVerbs[args[0].val] && len(args) > 1 && subcommandWord().MatchString(args[1].val) {
			head += " " + args[1].val
			rest = args[2:]
		}
	}
	if !harmlessRest(head, prog, rest) {
		return exact
	}
	return "shell:" + head
}

// harmlessRest reports whether the words after a head signature's program
// and subcommand are options known harmless for it (from its option table)
// and operands that stay in the project. A program without a table has no
// known words: only the head alone. Words after "--" go to what the program
// runs (npm test -- --watch), which no table describes. Anything else could
// change what runs, and a grant must not cover a call the prompt did not
// show.
func harmlessRest(head, prog string, rest []arg) bool {
	if len(rest) == 0 {
		return true
	}
	t := tableFor(head)
	if t == nil {
		if f := strings.Fields(head); len(f) >= 2 {
			t = tableFor(f[0] + " " + f[1])
		}
	}
	if t == nil {
		t = tableFor(prog)
	}
	if t == nil {
		return false
	}
	for _, a := range rest {
		if a.val == "--" {
			return false
		}
	}
	opts, ops, bad := t.parse(rest)
	if bad != "" {
		return false
	}
	for _, o := range opts {
		if o.def.tag != "" {
			return false
		}
	}
	return projectOperands(ops)
}

func anyOption(args []arg) bool {
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") && a.val != "-" {
			return true
		}
	}
	return false
}

// projectOperands: relative words without "..": targets, packages and
// files of the project, not programs from elsewhere. NAME=value is a
// variable override (make test CC=...), which changes what runs.
func projectOperands(ops []arg) bool {
	for _, a := range ops {
		if strings.Contains(a.val, "=") {
			return false
		}
		// "./..." is Go's package pattern, not a parent directory.
		if filepath.IsAbs(a.val) || strings.HasPrefix(a.val, "~") || strings.Contains(strings.ReplaceAll(a.val, "...", ""), "..") {
			return false
		}
	}
	return true
}

func isShellName(n string) bool {
	switch n {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "eval", "source", ".", "env",
		"xargs", "sudo", "doas", "su", "exec", "command", "builtin", "nohup", "nice", "timeout", "time", "watch",
		"npx", "pnpx", "bunx", "uvx", "find", "fd":
		return true
	}
	return false
}

// normalise prints the parsed script in the printer's canonical form, so
// spacing and quoting variants of one command share a signature.
func normalise(f *syntax.File, src string) (out string) {
	var b strings.Builder
	b.Grow(len(src) + 8)
	pr := printerPool.Get().(*syntax.Printer)
	defer func() {
		// The printer panics on a few odd trees the parser accepts; the raw
		// text is then the signature, and the printer is not reused.
		if recover() != nil {
			out = strings.TrimSpace(src)
			return
		}
		printerPool.Put(pr)
	}()
	if err := pr.Print(&b, f); err != nil {
		return strings.TrimSpace(src)
	}
	return strings.TrimSpace(b.String())
}
