package checkpoint

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// A call's change set is read from the store's loose objects by Warden
// itself, like the snapshot is written: comparing two trees that differ in
// one file reads a few small trees and no git process starts. An object
// that is not loose (git packs nothing here, but a store copied or repacked
// by hand may be packed) sends the whole comparison back to git.

var errNotLoose = errors.New("checkpoint: object is not a loose object")

// readHeader opens a loose object and reads its header: kind and size.
// The returned reader yields the body.
func (s looseStore) open(o oid) (kind string, size int64, body io.Reader, closeFn func(), err error) {
	f, err := os.Open(s.path(o))
	if err != nil {
		return "", 0, nil, nil, errNotLoose
	}
	zr, err := zlib.NewReader(f)
	if err != nil {
		f.Close()
		return "", 0, nil, nil, fmt.Errorf("checkpoint: object %s: %w", o, err)
	}
	var hdr [64]byte
	n := 0
	for n < len(hdr) {
		if _, err := io.ReadFull(zr, hdr[n:n+1]); err != nil {
			zr.Close()
			f.Close()
			return "", 0, nil, nil, fmt.Errorf("checkpoint: object %s: %w", o, err)
		}
		if hdr[n] == 0 {
			break
		}
		n++
	}
	kind, size, err = parseHeader(hdr[:min(n, len(hdr))], n < len(hdr))
	if err != nil {
		zr.Close()
		f.Close()
		return "", 0, nil, nil, fmt.Errorf("checkpoint: object %s: %w", o, err)
	}
	return kind, size, zr, func() { zr.Close(); f.Close() }, nil
}

// parseHeader reads "kind size" (terminated says the NUL was found).
func parseHeader(h []byte, terminated bool) (string, int64, error) {
	kind, num, ok := bytes.Cut(h, []byte{' '})
	if !terminated || !ok {
		return "", 0, errors.New("unreadable object header")
	}
	switch string(kind) {
	case "blob", "tree", "commit", "tag":
	default:
		return "", 0, fmt.Errorf("unknown object kind %q", kind)
	}
	size, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil || size < 0 || (len(num) > 1 && num[0] == '0') {
		return "", 0, fmt.Errorf("unreadable object size %q", num)
	}
	return string(kind), size, nil
}

// read returns a loose object's kind and body.
func (s looseStore) read(o oid) (string, []byte, error) {
	kind, size, r, closeFn, err := s.open(o)
	if err != nil {
		return "", nil, err
	}
	defer closeFn()
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return "", nil, fmt.Errorf("checkpoint: object %s: %w", o, err)
	}
	return kind, body, nil
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode uint32
	name string
	id   oid
}

// parseTree reads a tree object's body: "mode name\0<20 bytes>"...
func parseTree(b []byte) ([]treeEntry, error) {
	var list []treeEntry
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp <= 0 {
			return nil, errors.New("checkpoint: unreadable tree entry")
		}
		mode, ok := gitModes[string(b[:sp])]
		if !ok || sp == 6 && mode == modeTree { // trees are written "40000"
			return nil, errors.New("checkpoint: unreadable tree entry mode")
		}
		b = b[sp+1:]
		nul := bytes.IndexByte(b, 0)
		if nul <= 0 || len(b) < nul+1+20 {
			return nil, errors.New("checkpoint: unreadable tree entry name")
		}
		e := treeEntry{mode: mode, name: string(b[:nul])}
		copy(e.id[:], b[nul+1:nul+21])
		b = b[nul+21:]
		list = append(list, e)
	}
	return list, nil
}

func (s looseStore) tree(id string) ([]treeEntry, error) {
	if id == emptyTree {
		return nil, nil
	}
	o, ok := parseOID(id)
	if !ok {
		return nil, fmt.Errorf("checkpoint: %q is not an object id", id)
	}
	kind, body, err := s.read(o)
	if err != nil {
		return nil, err
	}
	if kind != "tree" {
		return nil, fmt.Errorf("checkpoint: %s is a %s, not a tree", id, kind)
	}
	return parseTree(body)
}

func modeString(m uint32) string {
	if m == 0 {
		return "000000"
	}
	return fmt.Sprintf("%06o", m)
}

// looseDiff is `git diff-tree -r --no-renames --raw --full-index from to`
// read from loose objects: the same entries in the same order.
func (s looseStore) looseDiff(from, to string) ([]rawEntry, error) {
	a, err := s.tree(from)
	if err != nil {
		return nil, err
	}
	b, err := s.tree(to)
	if err != nil {
		return nil, err
	}
	var out []rawEntry
	return out, s.diffEntries("", a, b, &out)
}

func entryKey(e treeEntry) string {
	if e.mode == modeTree {
		return e.name + "/"
	}
	return e.name
}

func (s looseStore) diffEntries(prefix string, a, b []treeEntry, out *[]rawEntry) error {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && entryKey(a[i]) < entryKey(b[j])):
			if err := s.side(prefix, a[i], true, out); err != nil {
				return err
			}
			i++
		case i >= len(a) || entryKey(b[j]) < entryKey(a[i]):
			if err := s.side(prefix, b[j], false, out); err != nil {
				return err
			}
			j++
		default:
			x, y := a[i], b[j]
			i, j = i+1, j+1
			if x.mode == y.mode && x.id == y.id {
				continue
			}
			p := prefix + x.name
			if x.mode == modeTree {
				xa, err := s.tree(x.id.String())
				if err != nil {
					return err
				}
				yb, err := s.tree(y.id.String())
				if err != nil {
					return err
				}
				if err := s.diffEntries(p+"/", xa, yb, out); err != nil {
					return err
				}
				continue
			}
			status := byte('M')
			if x.mode&0o170000 != y.mode&0o170000 {
				status = 'T'
			}
			*out = append(*out, rawEntry{oldMode: modeString(x.mode), newMode: modeString(y.mode),
				oldID: x.id.String(), newID: y.id.String(), status: status, path: p})
		}
	}
	return nil
}

// side lists e (and, for a tree, every file under it) as deleted (old) or
// created.
func (s looseStore) side(prefix string, e treeEntry, old bool, out *[]rawEntry) error {
	p := prefix + e.name
	if e.mode == modeTree {
		sub, err := s.tree(e.id.String())
		if err != nil {
			return err
		}
		for _, k := range sub {
			if err := s.side(p+"/", k, old, out); err != nil {
				return err
			}
		}
		return nil
	}
	r := rawEntry{oldMode: "000000", newMode: "000000", oldID: zeroID, newID: zeroID, path: p}
	if old {
		r.oldMode, r.oldID, r.status = modeString(e.mode), e.id.String(), 'D'
	} else {
		r.newMode, r.newID, r.status = modeString(e.mode), e.id.String(), 'A'
	}
	*out = append(*out, r)
	return nil
}

// looseBlobs is blobs read from loose objects: sizes of all, bodies of
// those want accepts.
func (s looseStore) looseBlobs(ctx context.Context, ids map[string]bool, want func(id string, size int64) bool) (map[string]int64, map[string][]byte, error) {
	sizes, bodies := map[string]int64{}, map[string][]byte{}
	for id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		o, ok := parseOID(id)
		if !ok {
			return nil, nil, errNotLoose
		}
		kind, size, r, closeFn, err := s.open(o)
		if err != nil {
			return nil, nil, err
		}
		if kind != "blob" {
			closeFn()
			continue // a gitlink's commit: git's cat-file would not size it either
		}
		sizes[id] = size
		if want(id, size) {
			body := make([]byte, size)
			_, err = io.ReadFull(r, body)
			bodies[id] = body
		}
		closeFn()
		if err != nil {
			return nil, nil, fmt.Errorf("checkpoint: object %s: %w", id, err)
		}
	}
	return sizes, bodies, nil
}
