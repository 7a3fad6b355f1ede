package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/warden-dev/warden/backend/policy"
)

// watcher follows the writable roots for the life of one call with
// inotify, recursively: each folder that appears is watched and then read,
// so nothing made inside it in between is missed. Every entry that appears
// is judged by the protected rule; a protected one is removed at once and
// reported. The one exception is what git init and git clone write into a
// gitdir (sample hooks, info/exclude, a config holding only the keys they
// write), so a repository can be made in the cage; any other key in such a
// config is unset again. When the kernel's queue overflows, or a folder
// cannot be watched, the final check walks the roots again instead.
type watcher struct {
	r        *rules
	fd       int
	wakeR    *os.File
	wakeW    *os.File
	before   map[fileID]bool // protected entries that existed before the call
	done     chan struct{}
	mu       sync.Mutex
	dirs     map[int]string // watch descriptor -> folder
	rewalk   bool           // overflow or a failed watch: walk again at the end
	configs  map[string]bool
	found    map[string]Violation
	order    []string
	stopOnce sync.Once
	// reading is held while events are read: by the loop, and by stop,
	// which reads the last ones itself instead of waiting for the loop.
	reading sync.Mutex
	stopped bool
	// markers are new entries whose names can make a folder a gitdir or
	// give one sequencer state (gitnew.go judges their folders at stop);
	// repos are the gitdirs that existed before the call.
	markers []string
	repos   map[string]bool
	repoIDs map[fileID]bool // the same gitdirs by identity (one carried elsewhere is still the user's)
}

// watchMask: IN_MOVED_FROM only to notice a folder renamed inside the
// roots, after which the paths the watch knows for the folders below it
// are stale; the end of the call then walks the roots again.
const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_CLOSE_WRITE | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

func newWatcher(r *rules) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("sandbox: watch the workspace: %w", err)
	}
	wr, ww, err := os.Pipe()
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sandbox: watch the workspace: %w", err)
	}
	return &watcher{r: r, fd: fd, wakeR: wr, wakeW: ww, done: make(chan struct{}),
		dirs: map[int]string{}, configs: map[string]bool{}, found: map[string]Violation{}, before: map[fileID]bool{}}, nil
}

// add watches dir; called before dir is read.
func (w *watcher) add(dir string) error {
	wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		w.rewalk = true
		return nil
	}
	w.dirs[wd] = dir
	return nil
}

// start begins reading events; the walk has added the first watches.
func (w *watcher) start(s scan) {
	w.repos, w.repoIDs = map[string]bool{}, map[fileID]bool{}
	for _, r := range s.repos {
		w.repos[r.Gitdir] = true
		var st syscall.Stat_t
		if syscall.Stat(r.Gitdir, &st) == nil {
			w.repoIDs[fileID{dev: uint64(st.Dev), ino: st.Ino}] = true
		}
	}
	for _, p := range s.protected {
		if fi, err := os.Lstat(p.Path); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				w.before[idOf(p.Path, st)] = true
			}
		}
	}
	go w.loop()
}

// fileID is the identity of a file: its path can be reused, this cannot
// while the file is held (a protected entry is a mount point in the cage,
// so it cannot be removed there).
type fileID struct {
	dev, ino uint64
	// link is the path of a symlink: a link is not bound (guard.go
	// restores it), so a hard link to it made elsewhere in the call would
	// share its identity; a symlink counts only where it was.
	link string
}

func idOf(p string, st *syscall.Stat_t) fileID {
	id := fileID{dev: uint64(st.Dev), ino: st.Ino}
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		id.link = p
	}
	return id
}

// existedBefore says whether the protected entry at p is one of those that
// were there before the call, by identity: the same path is not enough,
// since the folders above them are not pinned (`mv .git x` carries the
// read-only entries along, and a config then made at the old path is new),
// and a protected entry the call carried elsewhere with its folder (`mv
// .git sub/.git`) is still the user's own, unchanged, not to be removed.
func (w *watcher) existedBefore(p string) bool {
	st, err := lstatBeneath(rootOf(w.r.roots, p), p)
	if err != nil {
		return false
	}
	id := fileID{dev: st.Dev, ino: st.Ino}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		id.link = p
	}
	return w.before[id]
}

func (w *watcher) loop() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.wakeR.Fd()), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			w.mu.Lock()
			w.rewalk = true
			w.mu.Unlock()
			return
		}
		if w.drainUnlessStopped(buf) {
			return
		}
	}
}

// drainUnlessStopped handles the queued events unless stop has already
// taken over; it reports whether the watch is over.
func (w *watcher) drainUnlessStopped(buf []byte) bool {
	w.reading.Lock()
	defer w.reading.Unlock()
	if w.stopped {
		unix.Close(w.fd)
		w.wakeR.Close()
		return true
	}
	w.drain(buf)
	return false
}

// drain handles every queued event.
func (w *watcher) drain(buf []byte) {
	for {
		n, err := unix.Read(w.fd, buf)
		if n <= 0 || err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := ""
			if ev.Len > 0 {
				name = strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			w.event(int(ev.Wd), ev.Mask, name)
		}
	}
}

func (w *watcher) event(wd int, mask uint32, name string) {
	w.mu.Lock()
	if mask&unix.IN_Q_OVERFLOW != 0 || mask&(unix.IN_MOVED_FROM|unix.IN_ISDIR) == unix.IN_MOVED_FROM|unix.IN_ISDIR {
		w.rewalk = true
	}
	dir, ok := w.dirs[wd]
	if mask&unix.IN_IGNORED != 0 {
		delete(w.dirs, wd)
	}
	w.mu.Unlock()
	if !ok || name == "" {
		return
	}
	p := filepath.Join(dir, name)
	switch {
	case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		w.appeared(p, mask&unix.IN_ISDIR != 0)
	case mask&unix.IN_CLOSE_WRITE != 0:
		w.mu.Lock()
		known := w.configs[p]
		w.mu.Unlock()
		if known {
			w.checkConfig(p)
		}
	}
}

// appeared judges a new entry and, for a folder, watches and reads it.
func (w *watcher) appeared(p string, isDir bool) {
	w.noteMarker(p)
	if w.r.protected(p, isDir) {
		if w.existedBefore(p) {
			// One of the read-only entries, carried here with a folder
			// above it: its mount holds what it contains.
			return
		}
		if !w.allowedInGitdir(p) {
			w.violate(p, "created a cage-protected path; removed")
			return
		}
	}
	if !isDir {
		return
	}
	_ = w.add(p)
	ents, err := readDirBeneath(rootOf(w.r.roots, p), p)
	if err != nil {
		return // gone, or reached through a symlink: not a folder of the root
	}
	for _, e := range ents {
		w.appeared(filepath.Join(p, e.Name()), e.IsDir())
	}
}

// allowedInGitdir is the git-init exception: true for what git itself
// writes into a gitdir; a config is kept and its keys checked.
func (w *watcher) allowedInGitdir(p string) bool {
	_, rel, ok := policy.SplitGitdir(p)
	if !ok || !policy.GitInitEntry(rel) {
		return false
	}
	st, err := lstatBeneath(rootOf(w.r.roots, p), p)
	if errors.Is(err, unix.ENOENT) {
		return true // already gone
	}
	if err != nil {
		return false
	}
	mode := st.Mode & unix.S_IFMT
	switch rel {
	case "hooks", "info":
		return mode == unix.S_IFDIR
	case "config":
		if mode != unix.S_IFREG {
			return false
		}
		w.mu.Lock()
		w.configs[p] = true
		w.mu.Unlock()
		w.checkConfig(p)
		return true
	}
	return mode == unix.S_IFREG
}

// checkConfig unsets every key of a gitdir config made in the cage that
// git init or clone would not have written. git itself reads and edits the
// file (--file: no includes are followed, nothing is run).
func (w *watcher) checkConfig(p string) {
	root := rootOf(w.r.roots, p)
	data, err := readBeneath(root, p)
	if err != nil {
		if _, serr := lstatBeneath(root, p); errors.Is(serr, unix.ENOENT) {
			return
		}
		w.violate(p, "wrote a git config that cannot be checked; removed")
		return
	}
	// git works on a private copy: the caged process cannot swap it for a
	// link to some other file while git edits it.
	tmp, err := os.CreateTemp("", "warden-gitconfig-")
	if err != nil {
		w.violate(p, "wrote a git config that cannot be checked; removed")
		return
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		w.violate(p, "wrote a git config that cannot be checked; removed")
		return
	}
	out, err := gitConfig(tmp.Name(), "--null", "--list")
	if err != nil {
		w.violate(p, "wrote a git config git cannot read; removed")
		return
	}
	var bad []string
	for _, key := range configKeys(out) {
		if !policy.GitInitConfigKey(key) {
			bad = append(bad, key)
		}
	}
	if len(bad) == 0 {
		return
	}
	for _, k := range bad {
		if _, err := gitConfig(tmp.Name(), "--unset-all", k); err != nil {
			w.violate(p, "set "+k+" in a new repository's config, which could not be undone; the config was removed")
			return
		}
	}
	clean, err := os.ReadFile(tmp.Name())
	if err != nil || writeBeneath(root, p, clean) != nil {
		w.violate(p, "set "+strings.Join(bad, ", ")+" in a new repository's config; the config was removed")
		return
	}
	w.record(p, "set "+strings.Join(bad, ", ")+" in a new repository's config; unset")
}

// configKeys splits `git config --null --list` output (key, newline, value,
// NUL; a key without a value has no newline) into its keys.
func configKeys(out []byte) []string {
	var keys []string
	for _, item := range strings.Split(string(out), "\x00") {
		if item == "" {
			continue
		}
		k, _, _ := strings.Cut(item, "\n")
		keys = append(keys, k)
	}
	return keys
}

func gitConfig(file string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"config", "--file", file}, args...)...)
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "PATH=" + os.Getenv("PATH")}
	return cmd.Output()
}

func (w *watcher) violate(p, detail string) {
	if err := removeBeneath(rootOf(w.r.roots, p), p); err != nil && !errors.Is(err, unix.ENOENT) {
		// A folder on the way was swapped for a link while the call ran:
		// the walk at the end finds the entry where it really is.
		w.mu.Lock()
		w.rewalk = true
		w.mu.Unlock()
		return
	}
	w.record(p, detail)
}

func (w *watcher) record(p, detail string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.found[p]; !ok {
		w.order = append(w.order, p)
	}
	w.found[p] = Violation{Path: p, Detail: detail}
}

// stop ends the watch after the process is gone: the events still queued
// are handled, the configs made in the call checked once more, and the
// roots walked again if the watch may have missed something.
func (w *watcher) stop() []Violation {
	w.stopOnce.Do(func() {
		// The process is gone, so every event it caused is queued: read
		// them here, then let the loop go (it closes the descriptor).
		w.reading.Lock()
		w.drain(make([]byte, 64<<10))
		w.stopped = true
		select {
		case <-w.done: // the loop failed earlier and left the descriptor
			unix.Close(w.fd)
			w.wakeR.Close()
		default:
		}
		w.reading.Unlock()
		_, _ = w.wakeW.Write([]byte{1})
		w.wakeW.Close()
		w.mu.Lock()
		rewalk := w.rewalk
		configs := make([]string, 0, len(w.configs))
		for c := range w.configs {
			configs = append(configs, c)
		}
		w.mu.Unlock()
		sort.Strings(configs)
		for _, c := range configs {
			if _, err := lstatBeneath(rootOf(w.r.roots, c), c); err == nil {
				w.checkConfig(c)
			}
		}
		var after []string
		if rewalk {
			s, _ := w.r.walk(nil)
			for _, p := range s.protected {
				if !w.existedBefore(p.Path) && !w.allowedInGitdir(p.Path) {
					w.violate(p.Path, "created a cage-protected path; removed")
				}
			}
			for _, r := range s.repos {
				after = append(after, r.Gitdir)
			}
		}
		w.judgeNew(after)
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Violation, 0, len(w.order))
	for _, p := range w.order {
		out = append(out, w.found[p])
	}
	return out
}
