package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// bigFixture is a closed database spanning many pages, built once per test
// binary and copied to a fresh file for each caller.
func bigFixture(t *testing.T) string {
	t.Helper()
	bigOnce.Do(func() { bigBytes, bigErr = buildBigFixture(t) })
	if bigErr != nil {
		t.Fatal(bigErr)
	}
	return writeFile(t, bigBytes)
}

var (
	bigOnce  sync.Once
	bigBytes []byte
	bigErr   error
)

func buildBigFixture(t *testing.T) ([]byte, error) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warden.db")
	s, err := Open(ctx, path, testKey)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sess, err := s.CreateSession(ctx, NewSession{Workspace: "/w"})
	if err != nil {
		return nil, err
	}
	evs := make([]Event, 500)
	for i := range evs {
		evs[i] = ToolOutput{CallID: "c", Stream: "stdout", Chunk: strings.Repeat("output line ", 40)}
	}
	if _, err := s.Append(ctx, sess.ID, AnyVersion, evs...); err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	// Fold the WAL into the main file so the file alone is the database.
	db, err := sql.Open(Driver, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE"); err != nil {
		return nil, err
	}
	db.Close()
	return os.ReadFile(path)
}

func TestOpenRefusesBadFiles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		prepare func(t *testing.T) string // returns the path to open
		opts    []Option
		is      error
		want    string
	}{
		{"text file", func(t *testing.T) string {
			return writeFile(t, []byte("these are my notes, not a database\n"))
		}, nil, ErrNotDatabase, "is not a SQLite database"},
		{"png file", func(t *testing.T) string {
			return writeFile(t, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 4096)...))
		}, nil, ErrNotDatabase, "is not a SQLite database"},
		{"header only", func(t *testing.T) string {
			return writeFile(t, append([]byte("SQLite format 3\x00"), 1, 2, 3))
		}, nil, ErrCorrupt, "truncated"},
		{"truncated database", func(t *testing.T) string {
			path := bigFixture(t)
			b, _ := os.ReadFile(path)
			return writeFile(t, b[:len(b)/2])
		}, nil, ErrCorrupt, "is truncated: its header promises"},
		{"bad page size", func(t *testing.T) string {
			b, _ := os.ReadFile(bigFixture(t))
			b[16], b[17] = 0x03, 0x00
			return writeFile(t, b)
		}, nil, ErrCorrupt, "invalid page size"},
		{"schema page overwritten", func(t *testing.T) string {
			b, _ := os.ReadFile(bigFixture(t))
			for i := 100; i < 4096; i++ {
				b[i] = 0xA5
			}
			return writeFile(t, b)
		}, nil, ErrCorrupt, "is damaged"},
		{"another program's database", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "notes.db")
			db, err := sql.Open(Driver, path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('keep me')"); err != nil {
				t.Fatal(err)
			}
			return path
		}, nil, ErrForeignDatabase, "another program (tables notes)"},
		{"directory", func(t *testing.T) string { return t.TempDir() }, nil, ErrNotDatabase, "is a directory"},
		{"missing with MustExist", func(t *testing.T) string {
			return filepath.Join(t.TempDir(), "none.db")
		}, []Option{MustExist()}, ErrNoDatabase, "no database here"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.prepare(t)
			before, _ := os.ReadFile(path)
			s, err := Open(context.Background(), path, testKey, tc.opts...)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v; want %v naming %s and saying %q", err, tc.is, path, tc.want)
			}
			if !strings.Contains(err.Error(), "--db") {
				t.Errorf("error does not say what to do: %v", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("the file was changed")
			}
			if _, err := os.Stat(path + "-wal"); err == nil {
				t.Error("a -wal file was created beside it")
			}
		})
	}
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "warden.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Damage inside the events table, past the schema, opens but fails Verify.
func TestVerifyReportsDamagedPages(t *testing.T) {
	t.Parallel()
	path := bigFixture(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(b[16])<<8 | int(b[17])
	for i := len(b) / 2; i < len(b)/2+pageSize; i++ {
		b[i] ^= 0x5A
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, testKey)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	rep, err := s.Verify(context.Background())
	if err == nil && rep.OK() {
		t.Fatal("damaged page not detected")
	}
	if err == nil && (len(rep.Integrity) == 0 || rep.Integrity[0] == "ok") {
		t.Errorf("integrity_check = %v", rep.Integrity)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "warden.db")
	s, err := Open(context.Background(), path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, _ := sql.Open(Driver, path)
	if _, err := db.Exec(`INSERT INTO schema_migrations(version, name, applied_ms) VALUES (99, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(context.Background(), path, testKey)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("err = %v, want ErrNewerSchema naming version 99", err)
	}
	db, _ = sql.Open(Driver, path)
	defer db.Close()
	var n int
	db.QueryRow(`SELECT count(*) FROM schema_migrations WHERE version = 99`).Scan(&n)
	if n != 1 {
		t.Error("the newer schema record was removed")
	}
}

func TestDefaultPath(t *testing.T) {
	cases := []struct{ name, xdg, home, want string }{
		{"xdg set", "/data", "/home/u", "/data/warden/warden.db"},
		{"xdg unset", "", "/home/u", "/home/u/.local/share/warden/warden.db"},
		{"xdg relative is ignored", "rel", "/home/u", "/home/u/.local/share/warden/warden.db"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			got, err := DefaultPath()
			if err != nil || got != tc.want {
				t.Errorf("DefaultPath = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
