package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mattn/go-sqlite3"
)

// Errors Open can return, matchable with errors.Is. The error text always
// names the file and says what to do.
var (
	ErrNoDatabase  = errors.New("no database")
	ErrNotDatabase = errors.New("not a SQLite database")
	ErrCorrupt     = errors.New("database is damaged")
	ErrNotWritable = errors.New("database is not writable")
	ErrNewerSchema = errors.New("database is from a newer Warden")
	// ErrForeignDatabase: a SQLite file that belongs to another program.
	ErrForeignDatabase = errors.New("not a Warden database")
)

// OpenError explains why a database could not be opened.
type OpenError struct {
	Path   string
	Kind   error // one of the Err* values above, or nil
	Detail string
	Hint   string
	Cause  error
}

func (e *OpenError) Error() string {
	msg := "store: " + e.Path + ": " + e.Detail
	if e.Cause != nil {
		msg += " (" + e.Cause.Error() + ")"
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

func (e *OpenError) Unwrap() []error { return []error{e.Kind, e.Cause} }

const hintOtherFile = "pass --db PATH or set WARDEN_DB to use another file"

var sqliteMagic = []byte("SQLite format 3\x00")

// preflight checks the path before SQLite touches it, so that a file that is
// not ours is never converted to WAL or overwritten.
func preflight(path string, mustExist bool) error {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		if mustExist {
			return &OpenError{Path: path, Kind: ErrNoDatabase, Detail: "no database here",
				Hint: "run warden once to create it, or " + hintOtherFile}
		}
		dir := filepath.Dir(path)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return &OpenError{Path: path, Kind: ErrNotWritable, Detail: "cannot create its directory " + dir +
				", its parent is not writable", Cause: err, Hint: "fix the permissions, or " + hintOtherFile}
		}
		return nil
	}
	if err != nil {
		return &OpenError{Path: path, Detail: "cannot inspect the file", Cause: err, Hint: hintOtherFile}
	}
	if st.IsDir() {
		return &OpenError{Path: path, Kind: ErrNotDatabase, Detail: "is a directory, not a database file", Hint: hintOtherFile}
	}
	if st.Size() == 0 {
		return nil // SQLite treats an empty file as a new database
	}
	f, err := os.Open(path)
	if err != nil {
		return &OpenError{Path: path, Kind: ErrNotWritable, Detail: "cannot read the file", Cause: err,
			Hint: "fix its permissions, or " + hintOtherFile}
	}
	defer f.Close()
	hdr := make([]byte, 100)
	n, err := io.ReadFull(f, hdr)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return &OpenError{Path: path, Detail: "cannot read the file header", Cause: err, Hint: hintOtherFile}
	}
	// While a WAL file holds frames, the main file may legitimately be
	// shorter than its header says (a checkpoint was cut short); SQLite
	// recovers that from the WAL, so only judge the size without one.
	walSize := int64(0)
	if wst, err := os.Stat(path + "-wal"); err == nil {
		walSize = wst.Size()
	}
	return checkHeader(path, hdr[:n], st.Size(), walSize > 0)
}

// checkHeader validates the 100-byte SQLite header against the file size.
func checkHeader(path string, hdr []byte, size int64, hasWAL bool) error {
	if !bytes.HasPrefix(hdr, sqliteMagic) {
		return &OpenError{Path: path, Kind: ErrNotDatabase,
			Detail: fmt.Sprintf("is not a SQLite database (it starts with %q); nothing was changed", firstBytes(hdr)),
			Hint:   "move it aside, or " + hintOtherFile}
	}
	if len(hdr) < 100 {
		return corrupt(path, fmt.Sprintf("is truncated: %d bytes, shorter than a SQLite header", size))
	}
	pageSize := int64(binary.BigEndian.Uint16(hdr[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return corrupt(path, fmt.Sprintf("has an invalid page size %d in its header", pageSize))
	}
	pages := int64(binary.BigEndian.Uint32(hdr[28:32]))
	changeCounter := binary.BigEndian.Uint32(hdr[24:28])
	validFor := binary.BigEndian.Uint32(hdr[92:96])
	// The page count is trustworthy only when valid-for matches the change
	// counter (SQLite file format, section 1.3.7).
	if !hasWAL && pages > 0 && validFor == changeCounter && size < pages*pageSize {
		return corrupt(path, fmt.Sprintf("is truncated: its header promises %d pages of %d bytes but the file has %d bytes", pages, pageSize, size))
	}
	return nil
}

func corrupt(path, detail string) error {
	return &OpenError{Path: path, Kind: ErrCorrupt, Detail: detail + "; nothing was changed",
		Hint: "restore a backup, or move the file aside to start a new log (" + hintOtherFile + ")"}
}

func firstBytes(b []byte) []byte {
	if len(b) > 16 {
		return b[:16]
	}
	return b
}

// openError turns a SQLite failure during open into an OpenError.
func openError(path string, err error) error {
	var oe *OpenError
	if errors.As(err, &oe) {
		return err
	}
	switch sqliteCode(err) {
	case sqlite3.ErrNotADB:
		return &OpenError{Path: path, Kind: ErrNotDatabase, Detail: "is not a SQLite database; nothing was changed",
			Cause: err, Hint: "move it aside, or " + hintOtherFile}
	case sqlite3.ErrCorrupt:
		e := corrupt(path, "is damaged").(*OpenError)
		e.Cause = err
		return e
	case sqlite3.ErrCantOpen, sqlite3.ErrReadonly, sqlite3.ErrPerm, sqlite3.ErrAuth:
		return &OpenError{Path: path, Kind: ErrNotWritable,
			Detail: "cannot open it for writing; SQLite needs the file and its directory " + filepath.Dir(path) +
				" writable (it keeps -wal and -shm files beside the database)",
			Cause: err, Hint: "fix the permissions, or " + hintOtherFile}
	}
	return &OpenError{Path: path, Detail: "cannot open the database", Cause: err, Hint: hintOtherFile}
}

// sqliteCode is the primary SQLite result code of err (the low byte of an
// extended code), or 0. The driver reports failures as sqlite3.Error
// values; a bare result code (ErrNo, or ErrNoExtended, which its backup API
// and error constants are) counts too.
func sqliteCode(err error) sqlite3.ErrNo {
	var se sqlite3.Error
	var ext sqlite3.ErrNoExtended
	var no sqlite3.ErrNo
	switch {
	case errors.As(err, &se):
		return se.Code & 0xff
	case errors.As(err, &ext):
		return sqlite3.ErrNo(ext & 0xff)
	case errors.As(err, &no):
		return no & 0xff
	}
	return 0
}
