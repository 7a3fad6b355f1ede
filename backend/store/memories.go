package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Memory is one workspace-scoped key/value entry.
type Memory struct {
	WorkspaceID string    `json:"workspace_id"`
	Namespace   string    `json:"namespace"`
	Key         string    `json:"key"`
	Value       string    `json:"value"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// ErrReservedNamespace refuses direct writes to PermissionNamespace.
var ErrReservedNamespace = errors.New("namespace " + PermissionNamespace + " is written only through AddGrant and RevokeGrant")

// SetMemory creates or replaces a memory.
func (s *Store) SetMemory(ctx context.Context, m Memory) error {
	if err := checkMemoryKey(m.WorkspaceID, m.Namespace, m.Key); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		return setMemoryTx(ctx, tx, m.WorkspaceID, m.Namespace, m.Key, m.Value, s.now().UnixMilli())
	})
}

func checkMemoryKey(ws, ns, key string) error {
	switch {
	case ws == "" || ns == "" || key == "":
		return errors.New("store: memory needs a workspace, a namespace and a key")
	case ns == PermissionNamespace:
		return fmt.Errorf("store: memory %s: %w", key, ErrReservedNamespace)
	case ns == AnswererTrustNamespace:
		return fmt.Errorf("store: memory %s: namespace %s is written only through TrustAnswerer and UntrustAnswerer", key, ns)
	}
	return nil
}

func setMemoryTx(ctx context.Context, tx *sql.Tx, ws, ns, key, value string, nowMs int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO memories(workspace_id, namespace, key, value, updated_ms) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (workspace_id, namespace, key) DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms`,
		ws, ns, key, value, nowMs)
	if err != nil {
		return fmt.Errorf("store: set memory %s%s: %w", ns, key, err)
	}
	return nil
}

// GetMemory returns one memory, or an error wrapping ErrNotFound.
func (s *Store) GetMemory(ctx context.Context, workspaceID, namespace, key string) (Memory, error) {
	m := Memory{WorkspaceID: workspaceID, Namespace: namespace, Key: key}
	var ms int64
	err := s.r.QueryRowContext(ctx, `SELECT value, updated_ms FROM memories WHERE workspace_id = ? AND namespace = ? AND key = ?`,
		workspaceID, namespace, key).Scan(&m.Value, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("store: memory %s%s: %w", namespace, key, ErrNotFound)
	}
	if err != nil {
		return m, fmt.Errorf("store: memory %s%s: %w", namespace, key, err)
	}
	m.UpdatedAt = time.UnixMilli(ms)
	return m, nil
}

// Memories lists a workspace's memories in one namespace ("" for all), by
// namespace and key.
func (s *Store) Memories(ctx context.Context, workspaceID, namespace string) ([]Memory, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT namespace, key, value, updated_ms FROM memories
		WHERE workspace_id = ? AND (? = '' OR namespace = ?) ORDER BY namespace, key`, workspaceID, namespace, namespace)
	if err != nil {
		return nil, fmt.Errorf("store: list memories: %w", err)
	}
	defer rows.Close()
	var out []Memory
	for rows.Next() {
		m := Memory{WorkspaceID: workspaceID}
		var ms int64
		if err := rows.Scan(&m.Namespace, &m.Key, &m.Value, &ms); err != nil {
			return nil, fmt.Errorf("store: list memories: %w", err)
		}
		m.UpdatedAt = time.UnixMilli(ms)
		out = append(out, m)
	}
	return out, rows.Err()
}

// DeleteMemory removes a memory; a missing one is an error wrapping ErrNotFound.
func (s *Store) DeleteMemory(ctx context.Context, workspaceID, namespace, key string) error {
	if err := checkMemoryKey(workspaceID, namespace, key); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE workspace_id = ? AND namespace = ? AND key = ?`,
			workspaceID, namespace, key)
		if err != nil {
			return fmt.Errorf("store: delete memory %s%s: %w", namespace, key, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: delete memory %s%s: %w", namespace, key, ErrNotFound)
		}
		return nil
	})
}
