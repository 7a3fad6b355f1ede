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

// goSteps are the parts of migrations that need Go (and the audit key),
// run after the migration's SQL in its transaction, by migration name.
var goSteps = map[string]func(context.Context, *sql.Tx, chainer) error{
	"keyed_chain": keyExistingHeads,
}

// keyExistingHeads pins every session that exists when keying begins: its
// events so far stay plain sha256 (chain_from = version+1) and its head
// gets a MAC, so neither that prefix nor the head can later be rewritten
// without the key.
func keyExistingHeads(ctx context.Context, tx *sql.Tx, ch chainer) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, version, head_hash FROM sessions`)
	if err != nil {
		return err
	}
	type head struct {
		id      string
		version int64
		hash    []byte
	}
	var heads []head
	for rows.Next() {
		var h head
		if err := rows.Scan(&h.id, &h.version, &h.hash); err != nil {
			rows.Close()
			return err
		}
		heads = append(heads, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, h := range heads {
		from := h.version + 1
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET chain_from = ?, head_mac = ? WHERE id = ?`,
			from, ch.headMAC(h.id, h.version, from, h.hash), h.id); err != nil {
			return err
		}
	}
	return nil
}

// migrate applies pending migrations, each in its own IMMEDIATE transaction
// (the writer pool's default), re-reading the version inside it so that two
// processes opening a new file at once do not both apply a step.
func migrate(ctx context.Context, db *sql.DB, path string, now func() time.Time, ch chainer) error {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)`); err != nil {
		return openError(path, err)
	}
	for {
		done, err := migrateStep(ctx, db, path, ms, now, ch)
		if err != nil || done {
			return err
		}
	}
}

func migrateStep(ctx context.Context, db *sql.DB, path string, ms []migration, now func() time.Time, ch chainer) (done bool, err error) {
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
	if step := goSteps[m.name]; step != nil {
		if err := step(ctx, tx, ch); err != nil {
			return false, fmt.Errorf("store: %s: migration %04d_%s: %w", path, m.version, m.name, err)
		}
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
