package shell

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Paths are resolved the way the kernel will resolve them, not lexically:
// component by component from the root, following every symbolic link met on
// the way (the last component too, unless the operation acts on the link
// itself: rm, mv's sources), and applying ".." to what has been resolved so
// far. /proc/self/fd/3/.. is not /proc/self/fd, and link/../x is not x.
//
// The classifier is pure, so it cannot read the disk. The links it follows
// come in three kinds:
//   - the kernel's own, always known: /dev/fd is /proc/self/fd, /dev/stdin,
//     /dev/stdout and /dev/stderr are /proc/self/fd/0..2, /proc/self/cwd is
//     the working directory, /proc/self/root is /;
//   - links the script itself creates (ln -s) before it writes through them;
//   - links already on disk, given as input (ClassifyWith): the caller asks
//     ResolveLinks, which runs the classifier to learn which paths it would
//     resolve, reads the links met on those paths with the function it is
//     given, and repeats until no new path appears.
// A link that cannot be followed (a file descriptor's own folder, another
// process's cwd, a loop) makes the path unresolved: Unknown.

// maxLinkHops is the kernel's limit on links followed in one lookup (ELOOP).
const maxLinkHops = 40

// linkFn answers, for an absolute clean path, whether it is a link and to
// what. more says components follow it. fail means the path leads somewhere
// that cannot be known.
type linkFn func(cur string, more bool) (target string, isLink, fail bool)

// walkPath resolves p (absolute, not cleaned) with links. restart is called
// with the whole remaining path each time a link whose target the caller
// cannot see on disk (a kernel or script-made link) restarts the walk.
func walkPath(p string, follow bool, links linkFn, restart func(string)) (string, bool) {
	rest := splitPath(p)
	out := make([]string, 0, len(rest))
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			continue
		}
		last := len(rest) == 0
		if last && !follow {
			out = append(out, c)
			break
		}
		cur := "/" + strings.Join(append(out, c), "/")
		target, isLink, fail := links(cur, !last)
		if fail {
			return "", false
		}
		if !isLink {
			out = append(out, c)
			continue
		}
		hops++
		if hops > maxLinkHops || target == "" {
			return "", false
		}
		if strings.HasPrefix(target, "~") {
			// A link the script made to the home directory: the rest is
			// under it, and home is the engine's to resolve.
			return filepath.Clean(target + "/" + strings.Join(rest, "/")), true
		}
		if strings.HasPrefix(target, "/") {
			out = out[:0]
		}
		rest = append(splitPath(target), rest...)
		if restart != nil {
			restart("/" + strings.Join(append(append([]string(nil), out...), rest...), "/"))
		}
	}
	return "/" + strings.Join(out, "/"), true
}

func splitPath(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}

// kernelLink is what the kernel itself links, for a process whose working
// directory is cwd ("" when unknown). handled is false for ordinary paths.
func kernelLink(cur, cwd string, more bool) (target string, isLink, fail, handled bool) {
	switch cur {
	case "/dev/fd":
		return "/proc/self/fd", true, false, true
	case "/dev/stdin":
		return "/proc/self/fd/0", true, false, true
	case "/dev/stdout":
		return "/proc/self/fd/1", true, false, true
	case "/dev/stderr":
		return "/proc/self/fd/2", true, false, true
	}
	rest, ok := strings.CutPrefix(cur, "/proc/")
	if !ok {
		return "", false, false, false
	}
	pid, what, _ := strings.Cut(rest, "/")
	self := pid == "self" || pid == "thread-self"
	if !self && !isDigits(pid) {
		return "", false, false, false
	}
	switch {
	case what == "cwd":
		if self && cwd != "" {
			return cwd, true, false, true
		}
		return "", false, true, true
	case what == "root":
		if self {
			return "/", true, false, true
		}
		return "", false, true, true
	case strings.HasPrefix(what, "fd/") || strings.HasPrefix(what, "task/") || what == "exe" || strings.HasPrefix(what, "map_files/"):
		// An open file's own path is whatever it was opened from: below
		// it nothing is known (fd 3 may be a directory).
		if more {
			return "", false, true, true
		}
		if !self {
			return "", false, true, true
		}
	}
	return "", false, false, true
}

// resolvePath turns a static path word into the absolute path the kernel
// will act on: "~" paths stay as written (the engine reads them as the home
// directory). ok is false when the path cannot be known.
func (w *walker) resolvePath(sc *scope, p string, follow bool) (string, bool) {
	switch {
	case p == "":
		return "", false
	case strings.HasPrefix(p, "~"):
		return filepath.Clean(p), true
	case filepath.IsAbs(p):
	case sc.known:
		p = sc.cwd + "/" + p
	default:
		return "", false
	}
	// A trailing slash makes the kernel follow the last component.
	if strings.HasSuffix(p, "/") {
		follow = true
	}
	if w.collect {
		w.lookups = append(w.lookups, p)
	}
	if len(w.diskLinks) == 0 && len(w.made) == 0 && !strings.Contains(p, "/dev/") && !strings.Contains(p, "/proc/") {
		// Nothing to follow: the kernel's walk is the lexical one.
		return filepath.Clean(p), true
	}
	cwd := ""
	if sc.known {
		cwd = sc.cwd
	}
	return walkPath(p, follow, func(cur string, more bool) (string, bool, bool) {
		if t, isLink, fail, ok := kernelLink(cur, cwd, more); ok {
			return t, isLink, fail
		}
		if t, ok := w.made[cur]; ok {
			return t, true, false
		}
		if t, ok := w.diskLinks[cur]; ok {
			return literalTarget(t), true, false
		}
		return "", false, false
	}, func(again string) {
		if w.collect {
			w.lookups = append(w.lookups, again)
		}
	})
}

// fdOf reads a resolved /proc/self/fd/N path.
func fdOf(p string) (int, bool) {
	rest, ok := strings.CutPrefix(p, "/proc/self/fd/")
	if !ok {
		rest, ok = strings.CutPrefix(p, "/proc/thread-self/fd/")
	}
	if !ok || !isDigits(rest) || len(rest) > 4 {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// sinkPath reports a resolved path whose writes go nowhere: /dev/null and
// its like, and a file descriptor the script did not open from a file (the
// session's stdout, stderr or a pipe). A descriptor the script opened from a
// file, even for reading (exec 3< f), is that file: opening
// /proc/self/fd/3 for writing reopens it with write access.
func (w *walker) sinkPath(p string) (file string, sink bool) {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/tty":
		return "", true
	}
	if n, ok := fdOf(p); ok {
		if f, ok := w.fds[n]; ok {
			return f, false
		}
		return "", true
	}
	return "", false
}

// openFd records a file the script opens on descriptor n (a redirection
// that reads or writes a file): a later write to /dev/fd/n writes it.
func (w *walker) openFd(n int, file string) {
	if w.fds == nil {
		w.fds = map[int]string{}
	}
	w.fds[n] = file
}

// ResolveLinks finds the symbolic links on disk that the command's paths
// pass through, for ClassifyWith. readlink is os.Readlink (or a fake): it
// returns an error for anything that is not a link. The classifier runs
// again after each round, since a link can lead to paths not seen before;
// rounds and reads are bounded.
func ResolveLinks(command, cwd string, readlink func(string) (string, error)) map[string]string {
	links := map[string]string{}
	notLink := map[string]bool{}
	seen := map[string]bool{}
	reads := 0
	const maxReads, maxRounds = 2048, 8
	for round := 0; round < maxRounds; round++ {
		w := &walker{diskLinks: links, collect: true}
		classifyInto(w, command, cwd)
		fresh := false
		for _, p := range w.lookups {
			if seen[p] {
				continue
			}
			seen[p], fresh = true, true
			walkPath(p, true, func(cur string, more bool) (string, bool, bool) {
				if _, _, _, ok := kernelLink(cur, "", more); ok {
					// The command's own /proc/self is not this process's:
					// the classifier follows the kernel's links itself.
					return "", false, true
				}
				if t, ok := links[cur]; ok {
					return literalTarget(t), true, false
				}
				if notLink[cur] || reads >= maxReads {
					return "", false, false
				}
				reads++
				t, err := readlink(cur)
				if err != nil {
					notLink[cur] = true
					return "", false, false
				}
				links[cur] = t
				return literalTarget(t), true, false
			}, nil)
		}
		if !fresh {
			break
		}
	}
	if len(links) == 0 {
		return nil
	}
	return links
}

// literalTarget is a link target read from disk: the kernel gives "~" no
// meaning, so a target starting with it is a relative name.
func literalTarget(t string) string {
	if strings.HasPrefix(t, "~") {
		return "./" + t
	}
	return t
}
