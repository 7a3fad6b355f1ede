package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// parseMigrationName reads "0007_approval_sandbox_policy.sql" as (7, "approval_sandbox_policy").
func parseMigrationName(file string) (int, string, error) {
	base, ok := strings.CutSuffix(file, ".sql")
	if !ok {
		return 0, "", fmt.Errorf("migration %q: not a .sql file", file)
	}
	num, name, ok := strings.Cut(base, "_")
	if !ok || len(num) != 4 || name == "" {
		return 0, "", fmt.Errorf("migration %q: want NNNN_name.sql", file)
	}
	v, err := strconv.Atoi(num)
	if err != nil || v < 1 {
		return 0, "", fmt.Errorf("migration %q: version %q is not a positive number", file, num)
	}
	return v, name, nil
}

// loadMigrations returns the embedded migrations in order, checking that the
// versions run 1, 2, 3... without gaps or duplicates.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	files, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, f := range files {
		v, name, err := parseMigrationName(strings.TrimPrefix(f, "migrations/"))
		if err != nil {
			return nil, err
		}
		body, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migrations: expected version %d, found %04d_%s", i+1, m.version, m.name)
		}
	}
	return ms, nil
}

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrate applies pending migrations, each in its own IMMEDIATE transaction
// (the writer pool's default), re-reading the version inside it so that two
// processes opening a new file at once do not both apply a step.
func migrate(ctx context.Context, db *sql.DB, path string, now func() time.Time) error {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)`); err != nil {
		return openError(path, err)
	}
	for {
		done, err := migrateStep(ctx, db, path, ms, now)
		if err != nil || done {
			return err
		}
	}
}

func migrateStep(ctx context.Context, db *sql.DB, path string, ms []migration, now func() time.Time) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, openError(path, err)
	}
	defer tx.Rollback()
	var cur int
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&cur); err != nil {
		return false, openError(path, err)
	}
	if cur > len(ms) {
		return false, &OpenError{Path: path, Kind: ErrNewerSchema,
			Detail: fmt.Sprintf("has schema version %d but this Warden knows only up to %d; nothing was changed", cur, len(ms)),
			Hint:   "upgrade Warden, or " + hintOtherFile}
	}
	if cur == len(ms) {
		return true, nil
	}
	m := ms[cur]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("store: %s: migration %04d_%s: %w", path, m.version, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations(version, name, applied_ms) VALUES (?, ?, ?)",
		m.version, m.name, now().UnixMilli()); err != nil {
		return false, fmt.Errorf("store: %s: record migration %d: %w", path, m.version, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: %s: commit migration %d: %w", path, m.version, err)
	}
	return false, nil
}
