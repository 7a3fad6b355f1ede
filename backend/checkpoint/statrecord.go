package checkpoint

import (
	"encoding/binary"
	"errors"
)

// The stat record's file format. It is read by every fresh process before
// its first snapshot, so it is a plain length-prefixed binary layout
// (decoding it costs a pass over the bytes, and it pulls in no codec with
// package-init work): the magic, then Key and Tree, the entry count, and
// per entry the path, mode, inode, size, mtime and ctime as varints.

const statRecordMagic = "wsr1"

var errBadStatRecord = errors.New("checkpoint: not a stat record")

func (rec statRecord) marshal() []byte {
	n := len(statRecordMagic) + len(rec.Key) + len(rec.Tree) + 3*binary.MaxVarintLen64
	for _, e := range rec.Entries {
		n += len(e.Path) + 6*binary.MaxVarintLen64
	}
	b := make([]byte, 0, n)
	b = append(b, statRecordMagic...)
	b = appendString(b, rec.Key)
	b = appendString(b, rec.Tree)
	b = binary.AppendUvarint(b, uint64(len(rec.Entries)))
	for _, e := range rec.Entries {
		b = appendString(b, e.Path)
		b = binary.AppendUvarint(b, uint64(e.Mode))
		b = binary.AppendUvarint(b, e.Ino)
		b = binary.AppendUvarint(b, e.Size)
		b = binary.AppendVarint(b, e.Mtime)
		b = binary.AppendVarint(b, e.Ctime)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// unmarshalStatRecord reads what marshal wrote; anything else (another
// version, a torn or foreign file) is errBadStatRecord, and the caller
// falls back to git's full scan.
func unmarshalStatRecord(b []byte) (statRecord, error) {
	var rec statRecord
	if len(b) < len(statRecordMagic) || string(b[:len(statRecordMagic)]) != statRecordMagic {
		return rec, errBadStatRecord
	}
	d := statDecoder{b: b[len(statRecordMagic):]}
	rec.Key = d.string()
	rec.Tree = d.string()
	count := d.uvarint()
	// Each entry takes at least 6 bytes: a count beyond that is a lie.
	if d.err != nil || count > uint64(len(d.b))/6 {
		return statRecord{}, errBadStatRecord
	}
	rec.Entries = make([]statEntry, count)
	for i := range rec.Entries {
		e := &rec.Entries[i]
		e.Path = d.string()
		mode := d.uvarint()
		if mode > 1<<32-1 {
			d.err = errBadStatRecord
		}
		e.Mode = uint32(mode)
		e.Ino, e.Size = d.uvarint(), d.uvarint()
		e.Mtime, e.Ctime = d.varint(), d.varint()
	}
	if d.err != nil || len(d.b) != 0 {
		return statRecord{}, errBadStatRecord
	}
	return rec, nil
}

// statDecoder reads varints and strings off b; the first short read sets
// err and every later read returns zero.
type statDecoder struct {
	b   []byte
	err error
}

func (d *statDecoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }
func (d *statDecoder) varint() int64   { return readVarint(d, binary.Varint) }

// readVarint reads one varint with read (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](d *statDecoder, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.err = errBadStatRecord
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *statDecoder) string() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errBadStatRecord
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
