package shell

import "strings"

// Package managers and build tools are never read-only: they run project
// code (scripts, build files, tests). The subcommands that download are
// Network; those that uninstall from the system are Destructive.

type pkgRules struct {
	network     []string // subcommands that download or publish
	destructive []string // subcommands that remove system packages
	readOnly    []string // subcommands that only print
	bareNetwork bool     // the program alone installs (yarn)
}

var pkgTable = map[string]pkgRules{
	"npm": {network: []string{"install", "i", "in", "ci", "add", "update", "up", "upgrade", "publish", "unpublish",
		"login", "adduser", "view", "info", "show", "v", "outdated", "search", "s", "audit", "create",
		"init", "dist-tag", "deprecate", "owner", "access", "team", "token", "whoami", "star", "stars", "repo", "docs", "bugs", "install-test", "it", "install-ci-test", "cit", "fetch", "pack", "doctor", "ping"}},
	"yarn":     {network: []string{"install", "add", "upgrade", "up", "publish", "create", "info", "npm", "outdated", "why-remote", "audit"}, bareNetwork: true},
	"pnpm":     {network: []string{"install", "i", "add", "update", "up", "publish", "create", "fetch", "outdated", "audit", "view", "info", "search"}},
	"bun":      {network: []string{"install", "i", "add", "a", "update", "create", "c", "publish", "upgrade", "pm", "outdated"}},
	"pip":      {network: []string{"install", "download", "wheel", "search", "index", "uninstall"}, readOnly: []string{"show", "freeze", "check"}},
	"pip3":     {network: []string{"install", "download", "wheel", "search", "index", "uninstall"}, readOnly: []string{"show", "freeze", "check"}},
	"pipx":     {network: []string{"install", "upgrade", "upgrade-all", "inject", "reinstall"}},
	"uv":       {network: []string{"add", "sync", "lock", "pip", "tool", "python", "venv", "init", "publish", "self", "export", "tree"}},
	"poetry":   {network: []string{"install", "add", "update", "lock", "publish", "search", "self", "source", "export", "show"}},
	"cargo":    {network: []string{"install", "fetch", "update", "publish", "add", "search", "login", "yank", "owner", "generate-lockfile", "vendor", "outdated", "info"}},
	"go":       {network: []string{"get", "install", "mod", "work"}, readOnly: []string{"version", "env", "doc", "help"}},
	"gem":      {network: []string{"install", "update", "push", "fetch", "search", "sources", "uninstall", "outdated", "info"}, readOnly: []string{"list", "env", "which", "contents"}},
	"bundle":   {network: []string{"install", "update", "add", "outdated", "lock", "cache", "package"}, bareNetwork: true},
	"composer": {network: []string{"install", "update", "require", "create-project", "outdated", "self-update", "global"}},
	"apt":      {network: []string{"install", "update", "upgrade", "full-upgrade", "dist-upgrade", "download", "source", "build-dep"}, destructive: []string{"remove", "purge", "autoremove"}, readOnly: []string{"list", "show", "search", "policy", "depends", "rdepends"}},
	"apt-get":  {network: []string{"install", "update", "upgrade", "dist-upgrade", "download", "source", "build-dep"}, destructive: []string{"remove", "purge", "autoremove", "clean", "autoclean"}},
	"brew":     {network: []string{"install", "update", "upgrade", "fetch", "tap", "reinstall", "bundle", "search", "info", "outdated"}, destructive: []string{"uninstall", "remove", "rm", "untap", "cleanup"}, readOnly: []string{"list", "ls", "--prefix", "config", "--version"}},
	"dnf":      {network: []string{"install", "update", "upgrade", "download", "makecache", "search"}, destructive: []string{"remove", "erase", "autoremove"}},
	"yum":      {network: []string{"install", "update", "upgrade", "download", "makecache", "search"}, destructive: []string{"remove", "erase", "autoremove"}},
	"apk":      {network: []string{"add", "update", "upgrade", "fetch", "search"}, destructive: []string{"del"}},
	"pacman":   {network: []string{"-S", "-Sy", "-Syu", "-Su", "-Sw"}, destructive: []string{"-R", "-Rs", "-Rns"}},
	"conda":    {network: []string{"install", "create", "update", "upgrade", "search", "env"}, destructive: []string{"remove", "uninstall"}},
	"mamba":    {network: []string{"install", "create", "update", "upgrade", "search", "env"}, destructive: []string{"remove", "uninstall"}},
	"dotnet":   {network: []string{"add", "restore", "tool", "new", "nuget", "workload"}},
	"deno":     {network: []string{"install", "add", "cache", "upgrade"}},
	"mvn":      {network: []string{"deploy", "dependency:resolve", "dependency:get"}},
	"gradle":   {network: []string{"dependencies", "publish"}},
	"rustup":   {network: []string{"install", "update", "toolchain", "target", "component", "self"}},
	"nix":      {network: []string{"build", "develop", "shell", "run", "profile", "flake"}},
	"snap":     {network: []string{"install", "refresh", "download"}, destructive: []string{"remove"}},
	"flatpak":  {network: []string{"install", "update"}, destructive: []string{"uninstall"}},
}

// buildTools run project-defined code.
var buildTools = []string{"make", "gmake", "cmake", "ninja", "gradlew", "ant", "bazel", "bazelisk", "meson", "just",
	"task", "tox", "nox", "rake", "mix", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "javac", "tsc",
	"vite", "webpack", "esbuild", "rollup", "jest", "vitest", "mocha", "pytest", "py.test", "mypy", "ruff", "eslint",
	"prettier", "black", "isort", "flake8", "pylint", "golangci-lint", "staticcheck", "swiftc", "zig", "ld",
	"cargo-clippy", "clippy-driver", "pre-commit", "lefthook", "husky", "turbo", "nx", "lerna", "playwright",
	"cypress", "storybook", "next", "nuxt", "astro", "sbt", "lein", "stack", "cabal", "dune", "opam", "xcodebuild",
	"swift-build", "flutter", "dart", "hugo", "jekyll", "mkdocs", "sphinx-build", "direnv", "nvm", "asdf", "mise"}

// dlRunners download a package and run it.
var dlRunners = []string{"npx", "pnpx", "bunx", "uvx", "yarnpkg-dlx"}

func registerPackages() {
	for name := range pkgTable {
		register(hPkg, name)
	}
	register(hBuild, buildTools...)
	register(hDlRunner, dlRunners...)
}

func hPkg(w *walker, inv *invocation) {
	rules := pkgTable[inv.name]
	sub := ""
	for _, a := range inv.args {
		if !a.static {
			break
		}
		if inv.name == "pacman" && strings.HasPrefix(a.val, "-") {
			sub = a.val
			break
		}
		if !strings.HasPrefix(a.val, "-") {
			sub = a.val
			break
		}
		if a.val == "--version" || a.val == "-v" || a.val == "-V" {
			sub = "--version"
		}
	}
	// Asking the index which versions exist is a remote query whatever the
	// subcommand is called (dotnet list package --outdated, deno outdated).
	for _, a := range inv.args {
		if n, _, _ := strings.Cut(a.val, "="); len(n) >= 6 && strings.HasPrefix("--outdated", n) {
			w.network()
		}
	}
	if inv.name == "go" && goToolchainSwitch(w, inv, sub) {
		w.unknown("go " + sub + ": go.mod or go.work can name a toolchain that go downloads and runs (GOTOOLCHAIN=local keeps the installed one)")
	}
	if contains(rules.readOnly, sub) && configLike(inv.args) {
		w.unknown(inv.name + " " + sub + ": an option selects or sets configuration")
	}
	switch {
	case contains(rules.destructive, sub):
		w.network()
		w.destroy(inv.name + " " + sub + ": removes installed packages")
	case contains(rules.network, sub) || sub == "" && rules.bareNetwork:
		w.network(pkgHosts(inv)...)
		w.unknown(inv.name + " " + sub + " runs package scripts")
	case inv.name == "go" && (sub == "env" || sub == "version" || sub == "doc"):
		// go env -w / --w changes the Go configuration; go doc -http serves.
		i := indexOf(inv.args, sub)
		w.tableOpts(inv, "go "+sub, inv.args[i+1:])
	case inv.name == "gem" && sub == "list":
		i := indexOf(inv.args, "list")
		w.tableOpts(inv, "gem list", inv.args[i+1:])
	case (inv.name == "pip" || inv.name == "pip3") && sub == "list":
		// pip list -o/-u asks the index which versions exist.
		i := indexOf(inv.args, "list")
		w.tableOpts(inv, "pip list", inv.args[i+1:])
	case inv.name == "go" && sub == "list":
		i := indexOf(inv.args, "list")
		opts, ops, ok := w.tableOpts(inv, "go list", inv.args[i+1:])
		if ok && isOpt(opts, "-m") && len(ops) > 0 {
			// Module queries other than the main module can download.
			for _, a := range ops {
				if a.val != "." && !strings.HasPrefix(a.val, "./") {
					w.unknown("go list -m " + a.val + " can download modules")
					break
				}
			}
		}
	case contains(rules.readOnly, sub) && !inv.dynamic():
	case inv.name == "go" && (sub == "run" || sub == "test" || sub == "build" || sub == "generate" || sub == "vet"):
		w.unknown("go " + sub + " builds and may run project code or download modules")
	default:
		if sub == "" {
			sub = strings.Join(argVals(inv.args), " ")
		}
		w.unknown(strings.TrimSpace(inv.name+" "+sub) + " runs project code")
		w.probe(inv.args, inv.sc)
	}
}

func pkgHosts(inv *invocation) []string {
	var hs []string
	for _, a := range inv.args {
		if strings.Contains(a.val, "://") {
			hs = append(hs, hostOf(a.val))
		}
	}
	return hs
}

func hBuild(w *walker, inv *invocation) {
	w.unknown(inv.name + " runs project-defined code")
	w.probe(inv.args, inv.sc)
}

// hDlRunner: npx and the like run a package, downloading it when it is not
// installed. Running code is their purpose, not the network: in the cage
// with network off they run what is installed or fail with their own error.
func hDlRunner(w *walker, inv *invocation) {
	w.unknown(inv.name + " runs a package, downloading it if it is not installed")
	w.probe(inv.args, inv.sc)
}

func indexOf(args []arg, v string) int {
	for i, a := range args {
		if a.val == v {
			return i
		}
	}
	return len(args) - 1
}

func contains(list []string, s string) bool {
	if s == "" {
		return false
	}
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func hasAnyArg(args []arg, vals ...string) bool {
	for _, a := range args {
		if contains(vals, a.val) {
			return true
		}
	}
	return false
}

func argVals(args []arg) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if len(out) == 2 {
			break
		}
		out = append(out, a.val)
	}
	return out
}

// The container daemon runs as root outside the cage: anything that starts,
// changes or removes containers can reach the whole host.
var dockerRead = map[string]bool{"ps": true, "images": true, "version": true, "info": true, "inspect": true,
	"logs": true, "stats": true, "top": true, "port": true, "history": true, "diff": true, "events": true}

var dockerNet = map[string]bool{"pull": true, "push": true, "login": true, "logout": true, "search": true}

func hDocker(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, inv.name, inv.args)
	for _, o := range tagged(opts, "dockerhost") {
		// A daemon named on the command line is reached over the network
		// (or a socket of the host): never the sandbox's own.
		w.network(nonEmptyHost(hostOf(o.val)))
	}
	sub := first(ops)
	switch {
	case inv.dynamic():
		w.destroy(inv.name + ": arguments computed at run time; the daemon runs as root")
	case dockerRead[sub] || sub == "" || sub == "container" && len(ops) > 1 && (ops[1].val == "ls" || ops[1].val == "list" || ops[1].val == "inspect") ||
		sub == "image" && len(ops) > 1 && (ops[1].val == "ls" || ops[1].val == "list" || ops[1].val == "inspect"):
	case dockerNet[sub]:
		w.network()
	default:
		w.destroy(inv.name + " " + sub + ": the container daemon runs as root outside the sandbox")
	}
}

func hKubectl(w *walker, inv *invocation) {
	w.network()
	_, ops := parseOpts(inv.args, optSpec{short: "nlocf", long: []string{"namespace", "context", "cluster", "selector", "output", "kubeconfig", "filename", "server", "user", "values", "set", "version"}})
	switch first(ops) {
	case "get", "describe", "logs", "top", "version", "explain", "api-resources", "api-versions", "cluster-info", "status", "list", "show", "search", "history":
	case "delete", "drain", "uninstall", "rollback", "cordon", "taint", "replace":
		w.destroy(inv.name + " " + first(ops) + ": changes or removes cluster resources")
	default:
		w.unknown(inv.name + " " + first(ops) + " changes cluster resources or runs code in them")
	}
}

// goToolchainSwitch reports a go command that may switch toolchains: every
// go command reads go.mod's go and toolchain lines at start and, under the
// default GOTOOLCHAIN=auto, downloads and runs a newer toolchain they name.
// Only `go env GOMOD|GOWORK|GOTOOLCHAIN` are answered by the local one.
func goToolchainSwitch(w *walker, inv *invocation, sub string) bool {
	if w.callEnv["GOTOOLCHAIN"] == "local" {
		return false
	}
	if sub == "env" && len(inv.args) == 2 && inv.args[1].static {
		switch inv.args[1].val {
		case "GOMOD", "GOWORK", "GOTOOLCHAIN":
			return false
		}
	}
	return true
}

// configLike reports an option that selects a configuration file or sets
// configuration: --config-file, --rcfile, -c FILE, -o Key=Value.
func configLike(args []arg) bool {
	for i, a := range args {
		v := a.val
		if !a.static || v == "--" {
			return !a.static
		}
		if name, ok := strings.CutPrefix(v, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			for _, c := range configWords {
				if strings.Contains(name, c) {
					return true
				}
			}
			continue
		}
		if len(v) >= 2 && v[0] == '-' && strings.ContainsAny(v[1:2], "coC") {
			val := v[2:]
			if val == "" && i+1 < len(args) {
				val = args[i+1].val
			}
			if v[1] != 'o' || strings.Contains(val, "=") || strings.Contains(val, "::") {
				return true
			}
		}
	}
	return false
}
