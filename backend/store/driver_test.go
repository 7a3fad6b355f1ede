package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
)

// The settings Open asks of the driver through the DSN, read back from each
// pool's own connections: a parameter the driver does not know is dropped
// without an error, so only asking SQLite shows that it took.
func TestConnectionSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "warden.db"), testKey, WithBusyTimeout(1234*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cases := []struct {
		name   string
		pool   *sql.DB
		pragma string
		want   string
	}{
		{"writer journal", s.w, "journal_mode", "wal"},
		{"writer fsyncs every commit", s.w, "synchronous", "2"}, // FULL
		{"writer foreign keys", s.w, "foreign_keys", "1"},
		{"writer busy timeout", s.w, "busy_timeout", "1234"},
		{"writer may write", s.w, "query_only", "0"},
		{"reader journal", s.r, "journal_mode", "wal"},
		{"reader foreign keys", s.r, "foreign_keys", "1"},
		{"reader busy timeout", s.r, "busy_timeout", "1234"},
		{"reader is read-only", s.r, "query_only", "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			if err := tc.pool.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
			}
		})
	}
	t.Run("reader refuses writes", func(t *testing.T) {
		_, err := s.r.ExecContext(ctx, "INSERT INTO workspaces(id, path, created_ms) VALUES ('x', '/x', 0)")
		if c := sqliteCode(err); c != sqlite3.ErrReadonly {
			t.Fatalf("write through the reader pool: %v (code %d), want SQLITE_READONLY", err, c)
		}
	})
	// A write transaction takes the write lock when it begins (BEGIN
	// IMMEDIATE), so two writers queue at BEGIN instead of one failing at
	// its first write after both have read.
	t.Run("writer begins immediate", func(t *testing.T) {
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		other := rawConn(t, s.Path())
		_, err = other.ExecContext(ctx, "BEGIN IMMEDIATE")
		if c := sqliteCode(err); c != sqlite3.ErrBusy {
			t.Fatalf("a second writer's BEGIN IMMEDIATE while the store's transaction is open: %v (code %d), want SQLITE_BUSY", err, c)
		}
	})
}

// Another process holding the write lock past the busy timeout and every
// retry: the append fails, in words, with SQLITE_BUSY still matchable.
func TestWriteStaysBusy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warden.db")
	s, err := Open(ctx, path, testKey, WithBusyTimeout(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.CreateSession(ctx, NewSession{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	holder := rawConn(t, path)
	if _, err := holder.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Append(ctx, sess.ID, AnyVersion, MessageAppended{Role: "user", Text: "hi"})
	var se sqlite3.Error
	if err == nil || !strings.Contains(err.Error(), "stayed busy") || !strings.Contains(err.Error(), path) ||
		!errors.As(err, &se) || se.Code != sqlite3.ErrBusy {
		t.Fatalf("append while another connection holds the write lock: %v, want a 'stayed busy' error wrapping SQLITE_BUSY", err)
	}
	if _, err := holder.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, sess.ID, AnyVersion, MessageAppended{Role: "user", Text: "hi"}); err != nil {
		t.Fatalf("append once the lock is free: %v", err)
	}
}

// rawConn is one connection of its own to the file, outside the store,
// that fails at once on a lock instead of waiting (the driver's default
// busy timeout is 5s).
func rawConn(t *testing.T, path string) *sql.Conn {
	t.Helper()
	db, err := sql.Open(Driver, path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The driver's errors, as it returns them and as callers wrap them, map to
// the primary result code; openError turns each class into its Kind.
func TestSqliteCodes(t *testing.T) {
	t.Parallel()
	ext := func(code sqlite3.ErrNo, n int) sqlite3.Error {
		return sqlite3.Error{Code: code, ExtendedCode: code.Extend(n)}
	}
	cases := []struct {
		name string
		err  error
		code sqlite3.ErrNo
		kind error // openError's Kind; nil: none of ours
	}{
		{"not a database", sqlite3.Error{Code: sqlite3.ErrNotADB}, sqlite3.ErrNotADB, ErrNotDatabase},
		{"corrupt", sqlite3.Error{Code: sqlite3.ErrCorrupt}, sqlite3.ErrCorrupt, ErrCorrupt},
		{"corrupt vtab (extended)", ext(sqlite3.ErrCorrupt, 1), sqlite3.ErrCorrupt, ErrCorrupt},
		{"corrupt index (extended)", ext(sqlite3.ErrCorrupt, 3), sqlite3.ErrCorrupt, ErrCorrupt},
		{"cannot open", sqlite3.Error{Code: sqlite3.ErrCantOpen}, sqlite3.ErrCantOpen, ErrNotWritable},
		{"cannot open: is a directory (extended)", ext(sqlite3.ErrCantOpen, 2), sqlite3.ErrCantOpen, ErrNotWritable},
		{"read-only", sqlite3.Error{Code: sqlite3.ErrReadonly}, sqlite3.ErrReadonly, ErrNotWritable},
		{"read-only: cannot lock (extended)", ext(sqlite3.ErrReadonly, 2), sqlite3.ErrReadonly, ErrNotWritable},
		{"read-only: database moved (extended)", ext(sqlite3.ErrReadonly, 4), sqlite3.ErrReadonly, ErrNotWritable},
		{"permission", sqlite3.Error{Code: sqlite3.ErrPerm}, sqlite3.ErrPerm, ErrNotWritable},
		{"authorization", sqlite3.Error{Code: sqlite3.ErrAuth}, sqlite3.ErrAuth, ErrNotWritable},
		{"busy", sqlite3.Error{Code: sqlite3.ErrBusy}, sqlite3.ErrBusy, nil},
		{"busy snapshot (extended)", ext(sqlite3.ErrBusy, 2), sqlite3.ErrBusy, nil},
		{"locked", sqlite3.Error{Code: sqlite3.ErrLocked}, sqlite3.ErrLocked, nil},
		{"locked shared cache (extended)", ext(sqlite3.ErrLocked, 1), sqlite3.ErrLocked, nil},
		{"i/o error", sqlite3.Error{Code: sqlite3.ErrIoErr}, sqlite3.ErrIoErr, nil},
		{"extended code in Code", sqlite3.Error{Code: sqlite3.ErrNo(sqlite3.ErrCantOpenIsDir)}, sqlite3.ErrCantOpen, ErrNotWritable},
		{"wrapped once", fmt.Errorf("store: write: %w", sqlite3.Error{Code: sqlite3.ErrBusy}), sqlite3.ErrBusy, nil},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", sqlite3.Error{Code: sqlite3.ErrNotADB})), sqlite3.ErrNotADB, ErrNotDatabase},
		{"joined", errors.Join(errors.New("close"), sqlite3.Error{Code: sqlite3.ErrCorrupt}), sqlite3.ErrCorrupt, ErrCorrupt},
		{"bare code", sqlite3.ErrLocked, sqlite3.ErrLocked, nil},
		{"bare extended code", sqlite3.ErrBusySnapshot, sqlite3.ErrBusy, nil},
		{"bare extended read-only code", sqlite3.ErrReadonlyRollback, sqlite3.ErrReadonly, ErrNotWritable},
		{"not SQLite's", errors.New("disk on fire"), 0, nil},
		{"nil", nil, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sqliteCode(tc.err); got != tc.code {
				t.Errorf("sqliteCode = %d, want %d", got, tc.code)
			}
			if tc.err == nil {
				return
			}
			const path = "/data/warden.db"
			err := openError(path, tc.err)
			var oe *OpenError
			if !errors.As(err, &oe) || oe.Kind != tc.kind || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--db") {
				t.Errorf("openError = %v (kind %v), want kind %v naming the file and --db", err, oe.Kind, tc.kind)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("openError lost its cause: %v", err)
			}
		})
	}
}

// Any result code the driver might report maps without a panic to an
// OpenError of the kind its primary code says.
func FuzzOpenError(f *testing.F) {
	for _, c := range []int{0, 1, 5, 6, 8, 11, 14, 23, 26, 261, 517, 1032, 2067, 0x7fffffff, -1} {
		f.Add(c, uint8(0))
		f.Add(c, uint8(1))
	}
	f.Fuzz(func(t *testing.T, code int, how uint8) {
		var err error
		switch how % 3 {
		case 0:
			err = sqlite3.Error{Code: sqlite3.ErrNo(code & 0xff), ExtendedCode: sqlite3.ErrNoExtended(code)}
		case 1:
			err = fmt.Errorf("wrapped: %w", sqlite3.ErrNoExtended(code))
		default:
			err = sqlite3.ErrNo(code)
		}
		primary := sqlite3.ErrNo(code & 0xff)
		if got := sqliteCode(err); got != primary {
			t.Fatalf("sqliteCode(%v) = %d, want %d", err, got, primary)
		}
		var oe *OpenError
		if !errors.As(openError("/x.db", err), &oe) {
			t.Fatal("openError returned no *OpenError")
		}
		want := map[sqlite3.ErrNo]error{
			sqlite3.ErrNotADB: ErrNotDatabase, sqlite3.ErrCorrupt: ErrCorrupt,
			sqlite3.ErrCantOpen: ErrNotWritable, sqlite3.ErrReadonly: ErrNotWritable,
			sqlite3.ErrPerm: ErrNotWritable, sqlite3.ErrAuth: ErrNotWritable,
		}[primary]
		if oe.Kind != want {
			t.Fatalf("code %d: kind %v, want %v", code, oe.Kind, want)
		}
	})
}
