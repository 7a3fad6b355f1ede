package shell

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Class is what a shell command would do, ordered from harmless to worst.
type Class uint8

const (
	ClassReadOnly Class = iota
	ClassWrite
	ClassNetwork
	ClassUnknown
	ClassDestructive
)

var classNames = [...]string{"read-only", "write", "network", "unknown", "destructive"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// MarshalText gives the stable kebab-case form.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText accepts what ParseClass accepts.
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ParseClass reads a class in its kebab-case form.
func ParseClass(s string) (Class, error) {
	n := NormName(s)
	for i, name := range classNames {
		if name == n {
			return Class(i), nil
		}
	}
	return 0, fmt.Errorf("policy: unknown class %q (valid: %s)", s, strings.Join(classNames[:], ", "))
}

// Classification is the classifier's verdict on a whole script: the worst
// class of its parts, and every fact the engine needs about them.
type Classification struct {
	Class Class `json:"class"`
	// Writes are the files the script visibly writes or removes: absolute and
	// lexically cleaned, or starting with "~" (the home directory).
	Writes []string `json:"writes,omitempty"`
	// Links are files the script makes reachable under another name (ln,
	// cp -l/-s): a later write through the link lands in them, so the engine
	// checks them like writes.
	Links []string `json:"links,omitempty"`
	// Moves are files moved away (mv): each source leaves its place, and
	// ends up in Dest.
	Moves []Move `json:"moves,omitempty"`
	// Unresolved is set when some write target cannot be known before it runs.
	Unresolved bool `json:"unresolved,omitempty"`
	// Network is set when some part talks to the network; Hosts are those
	// that can be read from the command line.
	Network bool     `json:"network,omitempty"`
	Hosts   []string `json:"hosts,omitempty"`
	// Destructive explains each destructive part ("rm: removes files").
	Destructive []string `json:"destructive,omitempty"`
	// Unknown explains each part that cannot be proven ("python runs code").
	Unknown []string `json:"unknown,omitempty"`
	// Segments counts the simple commands, substitutions included.
	Segments int `json:"segments"`
	// Signature is what an "always" answer remembers for this script.
	Signature string `json:"signature"`
	// Env is the environment (NAME=value) that keeps programs in the
	// script from updating caches and indexes as they read (git status
	// refreshing .git/index, man saving formatted pages): whoever runs the
	// command sets it, so a read-only claim stays true.
	Env []string `json:"env,omitempty"`
}

// Move is one mv: its sources, resolved, and where they go.
type Move struct {
	Sources []string `json:"sources"` // a pattern stays a pattern: /ws/*.go
	Dest    string   `json:"dest"`    // "" when computed at run time
	// Unresolved is set when a source is computed at run time: it may be
	// anywhere, the workspace included.
	Unresolved bool `json:"unresolved,omitempty"`
}

// maxDepth bounds `bash -c "bash -c ..."` recursion.
const maxDepth = 8

// Classify classifies a bash script run in cwd (absolute), with no links on
// disk: see ClassifyWith. It never fails: what it cannot parse or prove is
// ClassUnknown.
func Classify(command, cwd string) Classification { return ClassifyWith(command, cwd, nil) }

// ClassifyWith classifies a bash script run in cwd, resolving its paths
// through links: the symbolic links on disk its paths pass through, by
// absolute path, with their targets as readlink gives them (ResolveLinks
// finds them). Relative paths are joined to cwd and resolved the way the
// kernel will.
func ClassifyWith(command, cwd string, links map[string]string) Classification {
	w := &walker{diskLinks: links}
	return classifyInto(w, command, cwd)
}

func classifyInto(w *walker, command, cwd string) Classification {
	sc := &scope{}
	if filepath.IsAbs(cwd) {
		sc.cwd, sc.known = filepath.Clean(cwd), true
	}
	w.src = command
	f, err := parseScript(command, syntax.LangBash)
	if err != nil {
		w.unknown("cannot parse the command: " + err.Error())
		w.res.Signature = "shell=" + strings.TrimSpace(command)
		return w.finish()
	}
	// Print before walking: the walk splits brace expressions in place.
	norm := normalise(f, command)
	w.stmts(f.Stmts, sc)
	res := w.finish()
	res.Signature = w.signature(f, norm, res.Class)
	return res
}

// Parsers and printers are costly to build (buffers of several KB) and
// reusable but not concurrent-safe; the pools hold no state between calls.
var (
	parserPools = map[syntax.LangVariant]*sync.Pool{}
	printerPool = sync.Pool{New: func() any {
		return syntax.NewPrinter(syntax.SingleLine(true), syntax.SpaceRedirects(true))
	}}
)

func init() {
	for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX, syntax.LangMirBSDKorn, syntax.LangZsh} {
		parserPools[lang] = &sync.Pool{New: func() any {
			return syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(false))
		}}
	}
}

func parseScript(src string, lang syntax.LangVariant) (*syntax.File, error) {
	pool := parserPools[lang]
	if pool == nil {
		pool = parserPools[syntax.LangBash]
	}
	p := pool.Get().(*syntax.Parser)
	defer pool.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

// scope is the part of shell state that changes how later commands resolve.
type scope struct {
	cwd   string
	known bool // cwd is known
}

func (s *scope) copy() *scope { c := *s; return &c }

type walker struct {
	res     Classification
	write   bool
	depth   int
	flagged bool // something beyond one plain command: redirect, substitution, wrapper...
	// first plain command, for the signature
	head     []arg
	headSeen bool
	headCwd  string // the directory the head runs in, "" when unknown
	// ints are variables declared integer (declare -i); assigned are the
	// variables given a value that is not a plain number. Bash evaluates an
	// integer variable's new value as arithmetic, which runs a[$(cmd)].
	ints     map[string]bool
	assigned []string
	// stdin is set while the command being classified reads a redirect or
	// a pipe, not the session's empty input.
	stdin     bool
	stdinNull bool // and that input is /dev/null

	// links are the symbolic links on disk (input); made are those the
	// script creates with ln -s, by the absolute path of the link.
	diskLinks map[string]string
	made      map[string]string
	// fds are the files the script opened on a descriptor (exec 3< f).
	fds map[int]string
	// collect makes resolvePath keep every path it resolves in lookups,
	// for ResolveLinks.
	collect bool
	lookups []string

	// src is the script being walked (for history expansion).
	src string
	// state is the shell's state that changes how later commands run.
	state shellState
	// callEnv are inert environment settings given to the command being
	// classified (GOTOOLCHAIN=local go version).
	callEnv map[string]string
	// noProbe is set in a walker that classifies a hypothetical command.
	noProbe bool
	// noFuncs is set while `command` or `builtin` runs a name: functions
	// do not shadow it there.
	noFuncs bool
}

func (w *walker) unknown(why string) { w.res.Unknown = append(w.res.Unknown, why) }

// quietEnv records environment that keeps a reading program from writing
// its caches.
func (w *walker) quietEnv(kv ...string) { w.res.Env = append(w.res.Env, kv...) }

func (w *walker) destroy(why string) { w.res.Destructive = append(w.res.Destructive, why) }

func (w *walker) network(hosts ...string) {
	w.res.Network = true
	for _, h := range hosts {
		if h != "" {
			w.res.Hosts = append(w.res.Hosts, strings.ToLower(h))
		}
	}
}

// writeTo records a write to a static target, or an unresolved write.
func (w *walker) writeTo(sc *scope, a arg, what string) {
	if !a.static || a.glob {
		w.write = true
		w.res.Unresolved = true
		w.unknown(what + ": target is computed at run time")
		return
	}
	w.writePath(sc, a.val, what, true)
}

// writePath records a write to a static path, resolved the way the kernel
// will; follow is false for operations on the name itself (rm, a rename's
// source).
func (w *walker) writePath(sc *scope, val, what string, follow bool) {
	p, ok := w.resolvePath(sc, val, follow)
	if !ok {
		w.write = true
		w.res.Unresolved = true
		if !strings.HasPrefix(val, "/") && !sc.known {
			w.unknown(what + ": target " + val + " is relative to an unknown directory")
		} else {
			w.unknown(what + ": " + val + " leads through a link that cannot be followed (an open file, another process)")
		}
		return
	}
	if f, sink := w.sinkPath(p); sink {
		return
	} else if f != "" {
		p = f
	}
	switch {
	case strings.HasPrefix(p, "/dev/"):
		w.destroy(what + ": writes to the device " + p)
	case strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/sys/") || p == "/proc" || p == "/sys":
		w.destroy(what + ": writes kernel state " + p)
	}
	w.write = true
	w.res.Writes = append(w.res.Writes, p)
}

func (w *walker) finish() Classification {
	r := &w.res
	r.Writes = dedupe(r.Writes)
	r.Links = dedupe(r.Links)
	if len(w.ints) > 0 {
		for _, n := range w.assigned {
			if w.ints[n] {
				w.unknown("assigns to " + n + ", an integer variable: the value is evaluated as arithmetic")
				break
			}
		}
	}
	r.Hosts = dedupe(r.Hosts)
	r.Env = dedupe(r.Env)
	r.Destructive = dedupeKeep(r.Destructive)
	r.Unknown = dedupeKeep(r.Unknown)
	switch {
	case len(r.Destructive) > 0:
		r.Class = ClassDestructive
	case len(r.Unknown) > 0:
		r.Class = ClassUnknown
	case r.Network:
		r.Class = ClassNetwork
	case w.write || len(r.Writes) > 0:
		r.Class = ClassWrite
	default:
		r.Class = ClassReadOnly
	}
	return *r
}

func dedupe(s []string) []string {
	if len(s) < 2 {
		return s
	}
	sort.Strings(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

func dedupeKeep(s []string) []string {
	if len(s) < 2 {
		return s
	}
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
