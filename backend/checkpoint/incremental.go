package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// An incremental snapshot looks only at the paths the watcher named since
// the last one; everything else is as the mirror remembers it. Anything it
// cannot account for returns a scanError and the snapshot is a full scan
// by git instead, which also sets the watcher and the mirror up again.

// maxIncrementalFile is the largest file an incremental snapshot reads
// into memory; a larger one is left to git's streaming full scan.
const maxIncrementalFile = 64 << 20

// scanError says why a snapshot had to be a full scan. permanent ones
// (a remote file system, the watch limit, no inotify) stop further tries
// for the life of the Repo; a nested repository is tried again after a
// few scans; anything else at the next full scan.
type scanError struct {
	why       string
	permanent bool
	nested    bool
}

func (e *scanError) Error() string { return e.why }

func needScan(format string, args ...any) error {
	return &scanError{why: fmt.Sprintf(format, args...)}
}

// statSig is what a file with more than one link looked like when it was
// hashed. Writing through another link (perhaps outside the workspace)
// raises no event in the workspace's folders, so these files are compared
// by lstat at every snapshot.
type statSig struct {
	ino, size, nlink uint64
	mtime, ctime     int64
	at               int64 // when it was hashed
}

func sigOf(fi fs.FileInfo) statSig {
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st == nil {
		return statSig{}
	}
	return statSig{ino: st.Ino, size: uint64(st.Size), nlink: uint64(st.Nlink),
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), at: time.Now().UnixNano()}
}

// racy: changed so shortly before it was hashed that a later write could
// share its timestamp (the kernel's file clock ticks in milliseconds).
func (s statSig) racy() bool { return s.ctime+int64(50*time.Millisecond) > s.at }

func (s statSig) same(o statSig) bool {
	return s.ino == o.ino && s.size == o.size && s.nlink == o.nlink && s.mtime == o.mtime && s.ctime == o.ctime
}

// incr is a Repo's incremental state.
type incr struct {
	w       *watcher
	m       *mirror
	tree    oid
	multi   map[string]statSig  // tracked files with more than one link
	pending map[string]struct{} // paths to look at again at the next snapshot
	objects looseStore
}

// incHold holds a Repo's incremental state apart from the Repo, so a Repo
// nobody closes can be collected and its inotify instance closed.
type incHold struct {
	inc *incr // nil: the next snapshot is a full scan
}

func (inc *incr) close() {
	if inc != nil {
		inc.w.close()
	}
}

// Mode says how the last snapshot was taken, and why not incrementally.
type Mode struct {
	Incremental bool
	Why         string // why it was a full scan
	Scans       int    // full scans so far
	Increments  int    // incremental snapshots so far
}

// LastMode reports how the last snapshot was taken (tests and benchmarks).
func (r *Repo) LastMode() Mode {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mode
}

// Close stops watching the workspace for good: later snapshots are full
// scans.
func (r *Repo) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropIncremental("closed", true)
}

func (r *Repo) dropIncremental(why string, permanent bool) {
	r.hold.inc.close()
	r.hold.inc = nil
	r.mode.Why = why
	if permanent {
		r.noWatch = why
	}
}

// wantWatch: set the watcher up at this full scan? Not at a Repo's first
// snapshot (a one-shot command such as `warden undo` takes one or two and
// exits: a watcher would only cost it), not after a permanent refusal, and
// after a nested repository only every eighth scan.
func (r *Repo) wantWatch() bool {
	if r.noWatch != "" || r.mode.Scans == 0 {
		return false
	}
	if r.nestedAt > 0 && r.mode.Scans-r.nestedAt < 8 {
		return false
	}
	return true
}

// offAfter records why the watcher could not be set up.
func (r *Repo) offAfter(err error) {
	var se *scanError
	if errors.As(err, &se) {
		if se.permanent {
			r.noWatch = se.why
		}
		if se.nested {
			r.nestedAt = r.mode.Scans
		}
	}
}

// fullScan is git's own `add -A` + `write-tree`; when wanted it sets the
// watcher up before git reads anything (so no change after it is missed)
// and the mirror after (from git's index, checked against its tree).
func (r *Repo) fullScan(ctx context.Context, why string) (string, error) {
	r.hold.inc.close()
	r.hold.inc = nil
	var inc *incr
	var ignored map[string]bool
	note := ""
	if r.wantWatch() {
		var err error
		if inc, ignored, err = r.prepareWatch(ctx); err != nil {
			r.offAfter(err)
			note = "; no watcher: " + err.Error()
			inc = nil
		}
	} else if r.noWatch != "" {
		note = "; no watcher: " + r.noWatch
	}
	tree, err := r.gitScan(ctx)
	r.mode = Mode{Why: why + note, Scans: r.mode.Scans + 1, Increments: r.mode.Increments}
	if err != nil {
		inc.close()
		return "", err
	}
	if inc != nil {
		if err := r.finishWatch(ctx, inc, ignored, tree); err != nil {
			inc.close()
			r.offAfter(err)
			r.mode.Why = why + "; no watcher: " + err.Error()
		} else {
			r.hold.inc = inc
		}
	}
	return tree, nil
}

// prepareWatch watches every folder git would look into: all but the
// ignored ones (git's own list) and the user's .git.
func (r *Repo) prepareWatch(ctx context.Context) (*incr, map[string]bool, error) {
	if kind := remoteKind(r.work); kind != "" {
		return nil, nil, &scanError{why: "the workspace is on a " + kind + " file system, whose changes are not reported", permanent: true}
	}
	out, err := r.run(ctx, nil, "ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory")
	if err != nil {
		return nil, nil, err
	}
	ignored := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if s := string(p); strings.HasSuffix(s, "/") {
			ignored[strings.TrimSuffix(s, "/")] = true
		}
	}
	w, err := newWatcher(r.work)
	if err != nil {
		return nil, nil, &scanError{why: err.Error(), permanent: true}
	}
	inc := &incr{w: w, multi: map[string]statSig{}, pending: map[string]struct{}{},
		objects: r.objects()}
	if err := r.watchTree(inc, "", ignored); err != nil {
		w.close()
		return nil, nil, err
	}
	return inc, ignored, nil
}

// watchTree watches rel and the folders under it (each before it is
// read), noting files with more than one link.
func (r *Repo) watchTree(inc *incr, rel string, ignored map[string]bool) error {
	if err := inc.w.add(rel); err != nil {
		if errors.Is(err, errWatchLimit) {
			return &scanError{why: err.Error(), permanent: true}
		}
		return err
	}
	ents, err := os.ReadDir(filepath.Join(r.work, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := joinRel(rel, e.Name())
		if e.Name() == ".git" {
			if rel == "" {
				continue // the user's repository: never looked into
			}
			return &scanError{why: "a nested repository (" + p + ") is recorded by full scans only", nested: true}
		}
		switch {
		case e.IsDir():
			if ignored[p] {
				continue
			}
			if err := r.watchTree(inc, p, ignored); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if fi, err := e.Info(); err == nil {
				if s := sigOf(fi); s.nlink > 1 {
					inc.multi[p] = s
				}
			}
		}
	}
	return nil
}

// finishWatch builds the mirror from git's index, watches the ignored
// folders that hold tracked files (their files are looked at again next
// time: they were read by git before they were watched), and checks that
// the mirror hashes to git's tree.
func (r *Repo) finishWatch(ctx context.Context, inc *incr, ignored map[string]bool, tree string) error {
	out, err := r.run(ctx, nil, "ls-files", "-s", "-z")
	if err != nil {
		return err
	}
	ents, err := parseStage(out)
	if err != nil {
		return err
	}
	m := newMirror()
	for _, e := range ents {
		switch {
		case e.stage != 0:
			return needScan("the shadow index holds a conflict entry")
		case e.mode == modeGitlink:
			return &scanError{why: "a nested repository (" + e.path + ") is recorded by full scans only", nested: true}
		case e.mode != modeFile && e.mode != modeExec && e.mode != modeSymlink:
			return needScan("unexpected mode %o in the shadow index", e.mode)
		}
		m.set(e.path, e.mode, e.id)
	}
	inc.m = m
	for p := range inc.multi {
		if n := m.lookup(p); n == nil || n.isDir() {
			delete(inc.multi, p)
		}
	}
	for dir := range ignored {
		if n := m.lookup(dir); n != nil && n.isDir() {
			var dirs []string
			m.files(dir, func(p string, _ *node) {
				inc.pending[p] = struct{}{}
				for d := path.Dir(p); d != "." && !inc.w.watched(d); d = path.Dir(d) {
					dirs = append(dirs, d)
				}
			})
			sort.Strings(dirs)
			for _, d := range dirs {
				if !inc.w.watched(d) {
					if err := inc.w.add(d); err != nil {
						return err
					}
				}
			}
		}
	}
	root, err := m.hash(inc.objects.put)
	if err != nil {
		return err
	}
	if root.String() != tree {
		return needScan("the mirror hashes to %s where git wrote %s", root, tree)
	}
	inc.tree = root
	return nil
}

// incremental takes a snapshot from the watcher's events.
func (r *Repo) incremental(ctx context.Context) (string, error) {
	inc := r.hold.inc
	dirty := inc.pending
	inc.pending = map[string]struct{}{}
	lost, err := inc.w.drain(dirty)
	if err != nil {
		return "", needScan("%v", err)
	}
	if lost {
		return "", needScan("change notifications were lost (queue overflow)")
	}
	for p, s := range inc.multi {
		fi, err := os.Lstat(filepath.Join(r.work, filepath.FromSlash(p)))
		if err != nil || s.racy() || !sigOf(fi).same(s) {
			dirty[p] = struct{}{}
		}
	}
	if len(dirty) == 0 {
		if !inc.objects.has(inc.tree) && inc.tree.String() != emptyTree {
			return "", needScan("the last tree is gone from the store")
		}
		return inc.tree.String(), nil
	}
	paths := make([]string, 0, len(dirty))
	for p := range dirty {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var fresh []string // paths not in the mirror: git's ignore rules decide
	for _, p := range paths {
		if p == "" || p == ".git" || strings.HasPrefix(p, ".git/") {
			continue // the root's own events; the user's repository
		}
		switch path.Base(p) {
		case ".git":
			return "", &scanError{why: "a nested repository (" + p + ") appeared", nested: true}
		case ".gitignore":
			return "", needScan("%s changed", p)
		}
		if err := r.update(inc, p, &fresh); err != nil {
			return "", err
		}
	}
	for len(fresh) > 0 {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		kept, err := r.notIgnored(ctx, fresh)
		if err != nil {
			return "", err
		}
		fresh = nil
		for _, p := range kept {
			if err := r.add(inc, p, &fresh); err != nil {
				return "", err
			}
		}
	}
	root, err := inc.m.hash(inc.objects.put)
	if err != nil {
		return "", err
	}
	inc.tree = root
	return root.String(), nil
}

func (r *Repo) abs(p string) string { return filepath.Join(r.work, filepath.FromSlash(p)) }

// update brings one named path of the mirror up to date; paths the mirror
// does not hold go to fresh.
func (r *Repo) update(inc *incr, p string, fresh *[]string) error {
	fi, err := os.Lstat(r.abs(p))
	n := inc.m.lookup(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			r.forget(inc, p)
			return nil
		}
		return needScan("%v", err)
	}
	switch {
	case fi.IsDir():
		if n != nil && !n.isDir() {
			inc.m.remove(p)
			n = nil
		}
		if inc.w.watched(p) {
			return nil // a folder seen before: its entries have their own events
		}
		if n == nil {
			*fresh = append(*fresh, p)
			return nil
		}
		// A tracked folder that was not watched: moved here or made again.
		return r.readFolder(inc, p, fresh)
	case fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0:
		if n != nil && n.isDir() {
			r.forget(inc, p)
			n = nil
		}
		if n == nil {
			*fresh = append(*fresh, p)
			return nil
		}
		return r.hashPath(inc, p, fi)
	default:
		if n != nil {
			return needScan("%s is now a %v", p, fi.Mode().Type())
		}
		return nil // git does not add sockets, pipes or devices
	}
}

// forget drops p and everything under it.
func (r *Repo) forget(inc *incr, p string) {
	inc.m.remove(p)
	inc.w.remove(p)
	for q := range inc.multi {
		if q == p || strings.HasPrefix(q, p+"/") {
			delete(inc.multi, q)
		}
	}
}

// add records a path git's ignore rules keep: a file is hashed, a folder
// watched and its entries handed on to fresh.
func (r *Repo) add(inc *incr, p string, fresh *[]string) error {
	fi, err := os.Lstat(r.abs(p))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return needScan("%v", err)
	}
	switch {
	case fi.IsDir():
		return r.readFolder(inc, p, fresh)
	case fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0:
		return r.hashPath(inc, p, fi)
	}
	return nil
}

// readFolder watches folder p, then reads it: entries the mirror holds are
// brought up to date, the others go to fresh, and what the mirror holds
// that is no longer there is dropped.
func (r *Repo) readFolder(inc *incr, p string, fresh *[]string) error {
	if err := inc.w.add(p); err != nil {
		if errors.Is(err, errWatchLimit) {
			return &scanError{why: err.Error(), permanent: true}
		}
		return needScan("%v", err)
	}
	ents, err := os.ReadDir(r.abs(p))
	if err != nil {
		return needScan("%v", err)
	}
	seen := map[string]bool{}
	for _, e := range ents {
		if e.Name() == ".git" {
			return &scanError{why: "a nested repository (" + joinRel(p, e.Name()) + ") appeared", nested: true}
		}
		seen[e.Name()] = true
		q := joinRel(p, e.Name())
		if inc.m.lookup(q) != nil {
			if err := r.update(inc, q, fresh); err != nil {
				return err
			}
		} else {
			*fresh = append(*fresh, q)
		}
	}
	if n := inc.m.lookup(p); n != nil && n.isDir() {
		for name := range n.kids {
			if !seen[name] {
				r.forget(inc, joinRel(p, name))
			}
		}
	}
	return nil
}

// hashPath stores the blob of a file or symlink and puts it in the mirror.
func (r *Repo) hashPath(inc *incr, p string, fi fs.FileInfo) error {
	var body []byte
	var mode uint32
	var err error
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		var target string
		if target, err = os.Readlink(r.abs(p)); err != nil {
			return needScan("%v", err)
		}
		body, mode = []byte(target), modeSymlink
	default:
		if fi.Size() > maxIncrementalFile {
			return needScan("%s is larger than %d MB", p, maxIncrementalFile>>20)
		}
		if body, err = os.ReadFile(r.abs(p)); err != nil {
			return needScan("%v", err)
		}
		mode = modeFile
		if fi.Mode()&0o100 != 0 {
			mode = modeExec
		}
		if s := sigOf(fi); s.nlink > 1 {
			_, known := inc.multi[p]
			inc.multi[p] = s
			if !known {
				if err := r.linkScan(inc, p, s.ino); err != nil {
					return err
				}
			}
		} else {
			delete(inc.multi, p)
		}
	}
	id, err := inc.objects.put("blob", body)
	if err != nil {
		return err
	}
	inc.m.set(p, mode, id)
	return nil
}

// linkScan finds the tracked files that share inode ino with p, a file
// just seen with more than one link (made by `ln` after they were hashed:
// the link raised no event for them, and a write through p changed them
// too), and hashes them now.
func (r *Repo) linkScan(inc *incr, p string, ino uint64) error {
	var same []string
	inc.m.files("", func(q string, n *node) {
		if q == p || n.mode == modeSymlink {
			return
		}
		if _, known := inc.multi[q]; known {
			return
		}
		if fi, err := os.Lstat(r.abs(q)); err == nil && sigOf(fi).ino == ino {
			same = append(same, q)
		}
	})
	for _, q := range same {
		inc.multi[q] = statSig{ino: ino}
		fi, err := os.Lstat(r.abs(q))
		if err != nil {
			return needScan("%v", err)
		}
		if err := r.hashPath(inc, q, fi); err != nil {
			return err
		}
	}
	return nil
}

// notIgnored returns the paths of list that git's ignore rules (the
// workspace's .gitignore files and Warden's excludes) keep.
func (r *Repo) notIgnored(ctx context.Context, list []string) ([]string, error) {
	var in bytes.Buffer
	for _, p := range list {
		in.WriteString(p)
		in.WriteByte(0)
	}
	// check-ignore refuses pathspec magic, literal included; it reads each
	// line as a path, never a pattern, so it needs none.
	env := slices.DeleteFunc(r.env(), func(v string) bool { return strings.HasPrefix(v, "GIT_LITERAL_PATHSPECS=") })
	out, err := r.runEnv(ctx, env, in.Bytes(), "check-ignore", "--no-index", "-z", "--stdin")
	if err != nil {
		var ge *GitError
		var ee interface{ ExitCode() int }
		if !errors.As(err, &ge) || !errors.As(ge.Err, &ee) || ee.ExitCode() != 1 {
			return nil, needScan("check-ignore: %v", err)
		}
	}
	ign := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		ign[string(p)] = true
	}
	kept := list[:0:0]
	for _, p := range list {
		if !ign[p] {
			kept = append(kept, p)
		}
	}
	return kept, nil
}
