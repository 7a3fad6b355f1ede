package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A fresh process has no watcher, so its snapshots used to be git's full
// scan (`add -A` + `write-tree`: two git processes) even when nothing had
// changed since the last process. The stat record is what the last full
// scan saw: the lstat data of every entry of the workspace, walked before
// git read it, and the tree git wrote. When a new process walks the
// workspace and every entry's stat data is the same, the tree is the same,
// and no git process starts. Any difference, a record taken too close to a
// change (racy), other excludes, or a tree no longer in the store, and the
// snapshot is git's full scan, which writes a new record.

const statRecordName = "stat-record"

type statEntry struct {
	Path         string
	Mode         uint32
	Ino, Size    uint64
	Mtime, Ctime int64
}

type statRecord struct {
	Key     string // the excludes and the shadow configuration it was taken under
	Tree    string
	Entries []statEntry
}

// walkStats lstat-walks the workspace as git would look at it (the user's
// .git folders aside) in a fixed order. racy reports an entry changed so
// recently that a later change could share its timestamps.
func (r *Repo) walkStats() (entries []statEntry, racy bool, err error) {
	now := time.Now().UnixNano()
	err = filepath.WalkDir(r.work, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" && p != r.work {
			if d.IsDir() {
				// git reads a nested repository's HEAD: a commit there
				// changes the tree, so its .git's own stat data is kept.
				fi, err := d.Info()
				if err != nil {
					return err
				}
				e, r2 := statOf(p, fi, now)
				entries, racy = append(entries, e), racy || r2
				files := []string{"HEAD", "packed-refs"}
				if head, err := os.ReadFile(filepath.Join(p, "HEAD")); err == nil {
					if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok && !strings.Contains(ref, "..") {
						files = append(files, filepath.FromSlash(ref)) // a commit moves the branch, not HEAD
					}
				}
				for _, f := range files {
					if fi, err := os.Lstat(filepath.Join(p, f)); err == nil {
						e, r2 := statOf(filepath.Join(p, f), fi, now)
						entries, racy = append(entries, e), racy || r2
					}
				}
				return filepath.SkipDir
			}
			// A .git file points at a repository elsewhere, whose commits
			// this walk would not see: no record for this workspace.
			racy = true
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e, r2 := statOf(p, fi, now)
		entries, racy = append(entries, e), racy || r2
		return nil
	})
	return entries, racy, err
}

func statOf(p string, fi fs.FileInfo, now int64) (statEntry, bool) {
	e := statEntry{Path: p, Mode: uint32(fi.Mode())}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.Ino, e.Size, e.Mtime, e.Ctime = st.Ino, uint64(st.Size), st.Mtim.Nano(), st.Ctim.Nano()
	}
	racy := max(e.Mtime, e.Ctime)+int64(50*time.Millisecond) > now
	return e, racy
}

// recordKey names what else decides the tree: Warden's excludes and the
// files writeInfo keeps (an edit there means a full scan).
func (r *Repo) recordKey() string {
	h := sha256.New()
	h.Write([]byte(strings.Join(r.excludes, "\x00")))
	for _, f := range []string{"config", "info/exclude", "info/attributes"} {
		b, _ := os.ReadFile(filepath.Join(r.gitDir, f))
		h.Write([]byte{0})
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// unchangedTree returns the recorded tree when the workspace's stat data
// equals the record's, with entries the walk of now (for the next record).
func (r *Repo) unchangedTree() (tree string, entries []statEntry, racy bool, ok bool) {
	entries, racy, err := r.walkStats()
	if err != nil {
		return "", nil, true, false
	}
	b, err := os.ReadFile(filepath.Join(r.dir, statRecordName))
	if err != nil {
		return "", entries, racy, false
	}
	rec, err := unmarshalStatRecord(b)
	if err != nil || rec.Key != r.recordKey() || len(rec.Tree) < 3 {
		return "", entries, racy, false
	}
	if len(rec.Entries) != len(entries) {
		return "", entries, racy, false
	}
	for i := range entries {
		if entries[i] != rec.Entries[i] {
			return "", entries, racy, false
		}
	}
	// The tree must still be in the store (gc auto is off: it is loose).
	if _, err := os.Stat(filepath.Join(r.gitDir, "objects", rec.Tree[:2], rec.Tree[2:])); err != nil {
		return "", entries, racy, false
	}
	return rec.Tree, entries, racy, true
}

// keepRecord writes the record of a full scan whose walk came before git
// read the workspace; a racy walk removes it instead.
func (r *Repo) keepRecord(tree string, entries []statEntry, racy bool) {
	path := filepath.Join(r.dir, statRecordName)
	if racy || entries == nil {
		_ = os.Remove(path)
		return
	}
	b := statRecord{Key: r.recordKey(), Tree: tree, Entries: entries}.marshal()
	tmp := path + ".tmp"
	if os.WriteFile(tmp, b, 0o600) != nil || os.Rename(tmp, path) != nil {
		_ = os.Remove(tmp)
	}
}
