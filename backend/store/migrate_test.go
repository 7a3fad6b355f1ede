package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseMigrationName(t *testing.T) {
	cases := []struct {
		file    string
		version int
		name    string
		err     string
	}{
		{"0001_events.sql", 1, "events", ""},
		{"0007_approval_sandbox_policy.sql", 7, "approval_sandbox_policy", ""},
		{"0001_events.txt", 0, "", "not a .sql file"},
		{"1_events.sql", 0, "", "want NNNN_name.sql"},
		{"0001.sql", 0, "", "want NNNN_name.sql"},
		{"0001_.sql", 0, "", "want NNNN_name.sql"},
		{"abcd_x.sql", 0, "", "not a positive number"},
		{"0000_zero.sql", 0, "", "not a positive number"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			v, name, err := parseMigrationName(tc.file)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || v != tc.version || name != tc.name {
				t.Errorf("= %d %q %v", v, name, err)
			}
		})
	}
}

func FuzzParseMigrationName(f *testing.F) {
	for _, s := range []string{"0001_events.sql", "9999_x.sql", "0001_.sql", "_.sql", "-001_x.sql"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, name, err := parseMigrationName(s)
		if err == nil && (v < 1 || v > 9999 || name == "" || !strings.HasSuffix(s, ".sql")) {
			t.Fatalf("accepted %q as %d %q", s, v, name)
		}
	})
}

func TestLoadMigrations(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	cases := []struct {
		name string
		fs   fstest.MapFS
		want int
		err  string
	}{
		{"in order", fstest.MapFS{"migrations/0002_b.sql": file("B"), "migrations/0001_a.sql": file("A")}, 2, ""},
		{"gap", fstest.MapFS{"migrations/0001_a.sql": file("A"), "migrations/0003_c.sql": file("C")}, 0, "expected version 2"},
		{"duplicate", fstest.MapFS{"migrations/0001_a.sql": file("A"), "migrations/0001_b.sql": file("B")}, 0, "expected version 2"},
		{"bad name", fstest.MapFS{"migrations/first.sql": file("A")}, 0, "want NNNN_name.sql"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := loadMigrations(tc.fs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || len(ms) != tc.want || ms[0].sql != "A" {
				t.Errorf("= %+v, %v", ms, err)
			}
		})
	}
	if ms, err := loadMigrations(migrationFS); err != nil || len(ms) != SchemaVersion() || SchemaVersion() < 2 {
		t.Errorf("embedded migrations: %d, %v", len(ms), err)
	}
}

// Opening records each migration once, and reopening applies nothing again.
func TestMigrationsRecordedOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "warden.db")
	for range 2 {
		s, err := Open(context.Background(), path, testKey)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	db, err := sql.Open(Driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT version, name FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var v int
		var name string
		rows.Scan(&v, &name)
		got = append(got, name)
	}
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range ms {
		want = append(want, m.name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || len(got) < 3 {
		t.Errorf("recorded migrations %v, want each embedded one once: %v", got, want)
	}
	var mode string
	db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal_mode %q, want wal", mode)
	}
}
