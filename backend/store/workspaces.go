package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Workspace is a directory sessions, memories, grants and trust belong to.
type Workspace struct {
	ID        string    `json:"id"`
	Path      string    `json:"path"` // absolute, resolved
	CreatedAt time.Time `json:"created_at"`
}

// EnsureWorkspace returns the workspace at path, creating it if new.
func (s *Store) EnsureWorkspace(ctx context.Context, path string) (Workspace, error) {
	if !filepath.IsAbs(path) {
		return Workspace{}, fmt.Errorf("store: workspace %q is not an absolute path", path)
	}
	var ws Workspace
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		ws, err = s.ensureWorkspaceTx(ctx, tx, filepath.Clean(path))
		return err
	})
	return ws, err
}

func (s *Store) ensureWorkspaceTx(ctx context.Context, tx *sql.Tx, path string) (Workspace, error) {
	ws, err := scanWorkspace(tx.QueryRowContext(ctx, `SELECT id, path, created_ms FROM workspaces WHERE path = ?`, path))
	if err == nil {
		return ws, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return ws, fmt.Errorf("store: workspace %s: %w", path, err)
	}
	ws = Workspace{ID: s.newID(), Path: path, CreatedAt: time.UnixMilli(s.now().UnixMilli())}
	if _, err := tx.ExecContext(ctx, `INSERT INTO workspaces(id, path, created_ms) VALUES (?, ?, ?)`,
		ws.ID, ws.Path, ws.CreatedAt.UnixMilli()); err != nil {
		return ws, fmt.Errorf("store: create workspace %s: %w", path, err)
	}
	return ws, nil
}

func scanWorkspace(row *sql.Row) (Workspace, error) {
	var ws Workspace
	var ms int64
	err := row.Scan(&ws.ID, &ws.Path, &ms)
	ws.CreatedAt = time.UnixMilli(ms)
	return ws, err
}

// Workspace returns a workspace by ID or, when id is an absolute path, by
// path. A missing one is an error wrapping ErrNotFound.
func (s *Store) Workspace(ctx context.Context, idOrPath string) (Workspace, error) {
	q := `SELECT id, path, created_ms FROM workspaces WHERE id = ?`
	if filepath.IsAbs(idOrPath) {
		q = `SELECT id, path, created_ms FROM workspaces WHERE path = ?`
		idOrPath = filepath.Clean(idOrPath)
	}
	ws, err := scanWorkspace(s.r.QueryRowContext(ctx, q, idOrPath))
	if errors.Is(err, sql.ErrNoRows) {
		return ws, fmt.Errorf("store: workspace %s: %w", idOrPath, ErrNotFound)
	}
	if err != nil {
		return ws, fmt.Errorf("store: workspace %s: %w", idOrPath, err)
	}
	return ws, nil
}

// Workspaces lists every workspace by path.
func (s *Store) Workspaces(ctx context.Context) ([]Workspace, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, path, created_ms FROM workspaces ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("store: list workspaces: %w", err)
	}
	defer rows.Close()
	var out []Workspace
	for rows.Next() {
		var ws Workspace
		var ms int64
		if err := rows.Scan(&ws.ID, &ws.Path, &ms); err != nil {
			return nil, fmt.Errorf("store: list workspaces: %w", err)
		}
		ws.CreatedAt = time.UnixMilli(ms)
		out = append(out, ws)
	}
	return out, rows.Err()
}
