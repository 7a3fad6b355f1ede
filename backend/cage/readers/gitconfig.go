package readers

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// What git executes, as git resolves it. For one repository, Git.Held lists
// every file and folder git reads as configuration or runs: its config
// files (system, user, the repository's, config.worktree) and every include
// and includeIf target (whatever the condition: followed as far as git
// would, each relative to the file naming it), core.hooksPath and the hooks
// folder with every hook after following its links, the files that
// core.fsmonitor, core.sshCommand, the editor and pager, filter, diff and
// merge drivers, credential helpers and shell aliases name by path, the
// sequencer state (rebase-merge/, rebase-apply/, sequencer/) and the
// pointers to other gitdirs (commondir, gitdir). Each config file is read
// by git itself (`git config --file F --list --show-origin --no-includes
// -z`, with a scrubbed environment: nothing in it runs anything), so the
// syntax is git's; the includes are followed here, over-approximating
// includeIf (a condition that is false today can be true tomorrow). A
// file's reading is kept until its size, times or inode change, so a call
// in an unchanged repository starts no git at all.

// HeldPath is one file or folder git reads as configuration or runs.
type HeldPath struct {
	Path string // absolute, clean
	Dir  bool   // a folder: everything in it
	Why  string
}

// Git reads repositories' configuration. Safe for concurrent use; the zero
// value uses "git" on PATH and the user's home.
type Git struct {
	Bin  string // the git binary; "" is git on PATH
	Home string // the user's home; "" is os.UserHomeDir

	mu    sync.Mutex
	files map[string]parsed
}

type parsed struct {
	sig     fileSig
	entries []configEntry
	err     error
}

type configEntry struct{ key, value string }

type fileSig struct {
	dev, ino, size, mtime, ctime int64
}

func sigOf(p string) (fileSig, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return fileSig{}, false
	}
	return fileSig{dev: int64(st.Dev), ino: int64(st.Ino), size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}

// maxIncludeDepth is git's own limit on nested includes.
const maxIncludeDepth = 10

// commandKeys are configuration keys whose value is a command git runs
// (or passes to a shell): the files they name by path are held. Section
// and name are lower case; "*" is any subsection.
var commandKeys = map[string]bool{
	"core.fsmonitor": true, "core.sshcommand": true, "core.editor": true, "core.pager": true, "core.askpass": true,
	"core.alternaterefscommand": true, "sequence.editor": true, "diff.external": true, "gpg.program": true,
	"gpg.*.program": true, "credential.helper": true, "credential.*.helper": true, "filter.*.clean": true,
	"filter.*.smudge": true, "filter.*.process": true, "diff.*.textconv": true, "diff.*.command": true,
	"merge.*.driver": true, "pager.*": true, "interactive.difffilter": true, "uploadpack.packobjectshook": true,
	"remote.*.uploadpack": true, "remote.*.receivepack": true, "difftool.*.cmd": true, "mergetool.*.cmd": true,
	"web.browser": true, "browser.*.cmd": true, "man.*.cmd": true, "submodule.*.update": true, "alias.*": true,
	"ssh.command": true, "core.gitproxy": true, "sendemail.*.smtpserver": true, "sendemail.smtpserver": true,
}

// commandKey says whether key (section.sub.name, as git prints it) names
// a command.
func commandKey(key string) bool {
	k := strings.ToLower(key)
	if commandKeys[k] {
		return true
	}
	sec, rest, ok := strings.Cut(k, ".")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return commandKeys[sec+".*"] // alias.x, pager.log
	}
	return commandKeys[sec+".*."+rest[i+1:]] || commandKeys[sec+".*"] && sec == "alias"
}

func (g *Git) home() string {
	if g.Home != "" {
		return g.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// userConfigs are the configuration files every repository's git reads
// before its own, in git's order.
func (g *Git) userConfigs() []string {
	var out []string
	if p := os.Getenv("GIT_CONFIG_SYSTEM"); p != "" {
		out = append(out, p)
	} else if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		out = append(out, "/etc/gitconfig")
	}
	if p := os.Getenv("GIT_CONFIG_GLOBAL"); p != "" {
		return append(out, p)
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && g.home() != "" {
		xdg = filepath.Join(g.home(), ".config")
	}
	if xdg != "" {
		out = append(out, filepath.Join(xdg, "git", "config"))
	}
	if h := g.home(); h != "" {
		out = append(out, filepath.Join(h, ".gitconfig"))
	}
	return out
}

// read returns a config file's entries (nil for one that does not exist).
func (g *Git) read(file string) ([]configEntry, error) {
	sig, ok := sigOf(file)
	if !ok {
		return nil, nil
	}
	g.mu.Lock()
	if g.files == nil {
		g.files = map[string]parsed{}
	}
	if p, hit := g.files[file]; hit && p.sig == sig {
		g.mu.Unlock()
		return p.entries, p.err
	}
	g.mu.Unlock()
	entries, err := g.parse(file)
	g.mu.Lock()
	g.files[file] = parsed{sig: sig, entries: entries, err: err}
	g.mu.Unlock()
	return entries, err
}

// parse has git read one file, following nothing.
func (g *Git) parse(file string) ([]configEntry, error) {
	bin := g.Bin
	if bin == "" {
		bin = "git"
	}
	cmd := exec.Command(bin, "config", "--file", file, "--list", "--no-includes", "-z")
	// A scrubbed environment: no GIT_* of Warden's redirects or widens
	// what this git reads, and nothing in it can start a program.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + g.home(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C"}
	cmd.Dir = "/"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git config --file %s: %v: %s", file, err, strings.TrimSpace(stderr.String()))
	}
	var entries []configEntry
	for _, item := range strings.Split(string(out), "\x00") {
		if item == "" {
			continue
		}
		k, v, _ := strings.Cut(item, "\n")
		entries = append(entries, configEntry{key: strings.ToLower(k), value: v})
	}
	return entries, nil
}

// holder collects held paths without repeats.
type holder struct {
	seen map[string]bool
	out  []HeldPath
}

func (h *holder) add(p string, dir bool, why string) {
	if p == "" || !filepath.IsAbs(p) {
		return
	}
	p = filepath.Clean(p)
	if h.seen[p] {
		return
	}
	h.seen[p] = true
	h.out = append(h.out, HeldPath{Path: p, Dir: dir, Why: why})
}

// expandPath is git's interpolate_path for a path-valued setting: ~/ and
// ~user/ are homes, a relative path is taken relative to base.
func (g *Git) expandPath(v, base string) string {
	switch {
	case v == "":
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		if g.home() == "" {
			return ""
		}
		return filepath.Join(g.home(), strings.TrimPrefix(v, "~"))
	case strings.HasPrefix(v, "~"):
		// ~user/...: another user's home; outside every root Warden
		// makes writable unless it is one, judged by the caller.
		name, rest, _ := strings.Cut(v[1:], "/")
		return filepath.Join("/home", name, rest)
	case strings.HasPrefix(v, "%(prefix)/"):
		return filepath.Join("/usr", strings.TrimPrefix(v, "%(prefix)/"))
	case filepath.IsAbs(v):
		return filepath.Clean(v)
	case base == "":
		return ""
	}
	return filepath.Join(base, v)
}

// commandPaths lists the words of a command that name a file by path
// (a word holding a slash, or starting with . or ~), resolved from base,
// the folder git runs the command in.
func (g *Git) commandPaths(cmd, base string) []string {
	var out []string
	for _, w := range shellWords(strings.TrimPrefix(strings.TrimSpace(cmd), "!")) {
		w = strings.TrimLeft(w, "!")
		if w == "" || w == "-" || strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			continue
		}
		if _, val, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = val // --option=./file
		}
		if !strings.Contains(w, "/") && !strings.HasPrefix(w, ".") && !strings.HasPrefix(w, "~") {
			continue
		}
		if strings.Contains(w, "://") {
			continue
		}
		if p := g.expandPath(w, base); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// shellWords splits a command roughly as a shell would: white space
// separates, quotes group, and so do ;, &, | and parentheses. It only has
// to find the words that look like paths.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == ' ' || r == '\t' || r == ';' || r == '&' || r == '|' {
				// A quoted script (sh -c '…'): its words count too.
				flush()
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|' || r == '(' || r == ')' || r == '`':
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// CommonDir is the folder a gitdir shares objects, refs, config and hooks
// with: the one its commondir file names, or itself.
func CommonDir(gitdir string) string {
	b, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return gitdir
	}
	c := strings.TrimRight(string(b), "\r\n")
	if c == "" {
		return gitdir
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitdir, c)
	}
	return filepath.Clean(c)
}

// Held lists what git reads as configuration or runs for r. Errors (a
// config git cannot read) are reported with what could be listed: the
// caller decides (the cage holds the files it could not read anyway).
func (g *Git) Held(r Repo) ([]HeldPath, error) {
	h := &holder{seen: map[string]bool{}}
	common := CommonDir(r.Gitdir)
	// The repository's own metadata, whatever the gitdir is called.
	for _, d := range []string{r.Gitdir, common} {
		h.add(filepath.Join(d, "config"), false, "the repository's config")
		h.add(filepath.Join(d, "config.worktree"), false, "the worktree's config")
		h.add(filepath.Join(d, "hooks"), true, "the hooks folder")
		h.add(filepath.Join(d, "info"), true, "info/attributes names drivers")
		h.add(filepath.Join(d, "commondir"), false, "points at another gitdir")
		h.add(filepath.Join(d, "gitdir"), false, "points at another gitdir")
	}
	if r.Via != "" {
		h.add(r.Via, false, "the .git file pointing at "+r.Gitdir)
	}
	for _, s := range []string{"rebase-merge", "rebase-apply", "sequencer"} {
		if p := filepath.Join(r.Gitdir, s); isDir(p) {
			h.add(p, true, "sequencer state: git runs its exec lines on --continue")
		}
	}
	files := append(g.userConfigs(), filepath.Join(common, "config"), filepath.Join(r.Gitdir, "config.worktree"))
	// core.worktree (a submodule's gitdir names its worktree), or a
	// linked worktree's gitdir file, decides where relative hooks paths
	// and commands start.
	work := r.Worktree
	if work == "" {
		if b, err := os.ReadFile(filepath.Join(r.Gitdir, "gitdir")); err == nil {
			if t := strings.TrimSpace(string(b)); filepath.IsAbs(t) {
				work = filepath.Dir(t)
			}
		}
	}
	var errs []error
	var all []configEntry
	var origins []string
	visited := map[string]bool{}
	var walk func(file string, depth int)
	walk = func(file string, depth int) {
		if depth > maxIncludeDepth || visited[file] {
			return
		}
		visited[file] = true
		entries, err := g.read(file)
		if err != nil {
			errs = append(errs, err)
		}
		for _, e := range entries {
			all = append(all, e)
			origins = append(origins, file)
			if e.key == "include.path" || strings.HasPrefix(e.key, "includeif.") && strings.HasSuffix(e.key, ".path") {
				t := g.expandPath(e.value, filepath.Dir(file))
				h.add(t, false, "included by "+file+" ("+e.key+")")
				if t != "" {
					walk(t, depth+1)
				}
			}
		}
	}
	for _, f := range files {
		h.add(f, false, "git configuration")
		walk(f, 0)
	}
	for i, e := range all {
		if e.key == "core.worktree" && origins[i] == filepath.Join(common, "config") {
			work = g.expandPath(e.value, r.Gitdir)
		}
	}
	base := work
	if base == "" {
		base = r.Gitdir
	}
	hooks := []string{filepath.Join(common, "hooks")}
	for _, e := range all {
		switch {
		case e.key == "core.hookspath":
			if p := g.expandPath(e.value, base); p != "" {
				h.add(p, true, "core.hooksPath")
				hooks = append(hooks, p)
			}
		case e.key == "core.fsmonitor" && isBool(e.value):
		case commandKey(e.key):
			for _, p := range g.commandPaths(e.value, base) {
				h.add(p, false, "named by "+e.key)
			}
		}
	}
	for _, dir := range hooks {
		g.holdHooks(h, dir)
	}
	return h.out, errors.Join(errs...)
}

// holdHooks holds what every hook in dir runs, after following its links
// (each hop), and the folder a linked hooks folder leads to.
func (g *Git) holdHooks(h *holder, dir string) {
	for _, hop := range linkHops(dir) {
		h.add(hop, true, "the hooks folder "+dir+" leads there")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		for _, hop := range linkHops(p) {
			h.add(hop, false, "hook "+n+" in "+dir+" leads there")
		}
	}
}

// linkHops follows p's symbolic links and lists every path on the way
// (not p itself); at most 40 hops, like the kernel.
func linkHops(p string) []string {
	var out []string
	for i := 0; i < 40; i++ {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return out
		}
		t, err := os.Readlink(p)
		if err != nil {
			return out
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
		out = append(out, p)
	}
	return out
}

func isBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}
