package checkpoint

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The mirror is the last snapshot's tree in memory: one node per tracked
// file and folder, each folder with its tree id while nothing under it
// changed. An incremental snapshot updates only the paths the watcher
// named and rehashes only the folders above them, writing the new blobs
// and trees as loose objects in git's own format (zlib of "type size\0
// body", named by its sha1), so git reads them like its own.

// Git's tree-entry modes, as git writes them.
const (
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeGitlink = 0o160000
	modeTree    = 0o040000
)

type oid [20]byte

func (o oid) String() string { return hex.EncodeToString(o[:]) }

func parseOID(s string) (oid, bool) {
	var o oid
	if len(s) != 40 {
		return o, false
	}
	if strings.ToLower(s) != s { // git writes ids in lower case only
		return o, false
	}
	if _, err := hex.Decode(o[:], []byte(s)); err != nil {
		return o, false
	}
	return o, true
}

// gitModes are the entry modes exactly as git writes them.
var gitModes = map[string]uint32{
	"100644": modeFile, "100755": modeExec, "120000": modeSymlink, "160000": modeGitlink,
	"40000": modeTree, "040000": modeTree,
}

// node is a file (mode, id) or a folder (kids; id valid while hashed).
type node struct {
	mode   uint32
	id     oid
	kids   map[string]*node // folders only
	hashed bool             // folders: id is the tree of kids
}

func (n *node) isDir() bool { return n.mode == modeTree }

func newDir() *node { return &node{mode: modeTree, kids: map[string]*node{}} }

// mirror is the tree of the last snapshot.
type mirror struct{ root *node }

func newMirror() *mirror { return &mirror{root: newDir()} }

func splitPath(p string) []string { return strings.Split(p, "/") }

// lookup returns the node at p, or nil.
func (m *mirror) lookup(p string) *node {
	n := m.root
	if p == "" {
		return n
	}
	for _, c := range splitPath(p) {
		if n.kids == nil {
			return nil
		}
		if n = n.kids[c]; n == nil {
			return nil
		}
	}
	return n
}

// set puts a file at p, making the folders above it (replacing a file
// that was where a folder must be) and marking them for rehashing.
func (m *mirror) set(p string, mode uint32, id oid) {
	parts := splitPath(p)
	n := m.root
	n.hashed = false
	for _, c := range parts[:len(parts)-1] {
		k := n.kids[c]
		if k == nil || !k.isDir() {
			k = newDir()
			n.kids[c] = k
		}
		k.hashed = false
		n = k
	}
	n.kids[parts[len(parts)-1]] = &node{mode: mode, id: id}
}

// remove drops p (a file, or a folder and all under it) and prunes the
// folders it leaves empty; it reports whether anything was there.
func (m *mirror) remove(p string) bool {
	parts := splitPath(p)
	chain := []*node{m.root}
	n := m.root
	for _, c := range parts[:len(parts)-1] {
		if n.kids == nil || n.kids[c] == nil {
			return false
		}
		n = n.kids[c]
		chain = append(chain, n)
	}
	last := parts[len(parts)-1]
	if n.kids == nil || n.kids[last] == nil {
		return false
	}
	delete(n.kids, last)
	for i := len(chain) - 1; i >= 0; i-- {
		chain[i].hashed = false
		if i > 0 && len(chain[i].kids) == 0 {
			delete(chain[i-1].kids, parts[i-1])
		}
	}
	return true
}

// files calls fn for every file under the node at p.
func (m *mirror) files(p string, fn func(p string, n *node)) {
	n := m.lookup(p)
	if n == nil {
		return
	}
	var walk func(p string, n *node)
	walk = func(p string, n *node) {
		if !n.isDir() {
			fn(p, n)
			return
		}
		for name, k := range n.kids {
			walk(joinRel(p, name), k)
		}
	}
	walk(p, n)
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// hash computes the tree ids of every folder that changed, handing each
// new tree to put (which stores it), and returns the root tree id.
func (m *mirror) hash(put func(kind string, body []byte) (oid, error)) (oid, error) {
	return hashDir(m.root, put)
}

func hashDir(n *node, put func(kind string, body []byte) (oid, error)) (oid, error) {
	if n.hashed {
		return n.id, nil
	}
	type entry struct {
		name string
		n    *node
	}
	list := make([]entry, 0, len(n.kids))
	for name, k := range n.kids {
		list = append(list, entry{name, k})
	}
	// Git's order: names compared as bytes, a folder as if it ended in /.
	sort.Slice(list, func(i, j int) bool {
		return treeKey(list[i].name, list[i].n) < treeKey(list[j].name, list[j].n)
	})
	var body bytes.Buffer
	for _, e := range list {
		id := e.n.id
		if e.n.isDir() {
			var err error
			if id, err = hashDir(e.n, put); err != nil {
				return oid{}, err
			}
		}
		body.WriteString(strconv.FormatUint(uint64(e.n.mode), 8))
		body.WriteByte(' ')
		body.WriteString(e.name)
		body.WriteByte(0)
		body.Write(id[:])
	}
	id, err := put("tree", body.Bytes())
	if err != nil {
		return oid{}, err
	}
	n.id, n.hashed = id, true
	return id, nil
}

func treeKey(name string, n *node) string {
	if n.isDir() {
		return name + "/"
	}
	return name
}

// objectID is git's id of an object: the sha1 of "kind size\0body".
func objectID(kind string, body []byte) oid {
	h := sha1.New()
	h.Write([]byte(kind + " " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	var o oid
	copy(o[:], h.Sum(nil))
	return o
}

// looseStore reads and writes loose objects in a git object folder.
type looseStore struct{ dir string }

func (r *Repo) objects() looseStore { return looseStore{dir: filepath.Join(r.gitDir, "objects")} }

func (s looseStore) path(o oid) string {
	h := o.String()
	return filepath.Join(s.dir, h[:2], h[2:])
}

func (s looseStore) has(o oid) bool {
	_, err := os.Lstat(s.path(o))
	return err == nil
}

// put stores an object unless it is there, as git does: a temporary file
// (named like git's, so a failed run's leftovers are swept the same way)
// renamed into place, read-only.
func (s looseStore) put(kind string, body []byte) (oid, error) {
	o := objectID(kind, body)
	p := s.path(o)
	if _, err := os.Lstat(p); err == nil {
		return o, nil
	}
	dir := filepath.Dir(p)
	if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
		return o, fmt.Errorf("checkpoint: write object: %w", err)
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return o, fmt.Errorf("checkpoint: write object: %w", err)
	}
	zw, _ := zlib.NewWriterLevel(f, zlib.BestSpeed) // git's core.looseCompression default
	_, err = zw.Write([]byte(kind + " " + strconv.Itoa(len(body)) + "\x00"))
	if err == nil {
		_, err = zw.Write(body)
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return o, fmt.Errorf("checkpoint: write object: %w", err)
	}
	return o, nil
}

// indexEntry is one line of `git ls-files -s -z`.
type indexEntry struct {
	mode  uint32
	id    oid
	stage int
	path  string
}

// parseStage reads `git ls-files -s -z`: "mode oid stage\tpath\0".
func parseStage(out []byte) ([]indexEntry, error) {
	var list []indexEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		head, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(head))
		if !ok || len(f) != 3 || len(path) == 0 {
			return nil, fmt.Errorf("checkpoint: unreadable ls-files line %q", rec)
		}
		mode, okMode := gitModes[f[0]]
		if !okMode || mode == modeTree {
			return nil, fmt.Errorf("checkpoint: unreadable mode in %q", rec)
		}
		id, okID := parseOID(f[1])
		stage, err := strconv.Atoi(f[2])
		if !okID || err != nil || stage < 0 || stage > 3 {
			return nil, fmt.Errorf("checkpoint: unreadable ls-files line %q", rec)
		}
		p := string(path)
		if strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
			return nil, fmt.Errorf("checkpoint: unreadable path in %q", rec)
		}
		list = append(list, indexEntry{mode: uint32(mode), id: id, stage: stage, path: p})
	}
	return list, nil
}
