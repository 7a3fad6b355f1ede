package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// TrustRecord is a persistent trust in one MCP server of a workspace. It
// holds while the server's launch-config hash equals ConfigHash; a tool is
// covered while its description/schema hash equals ToolHashes[tool].
type TrustRecord struct {
	WorkspaceID string            `json:"workspace_id"`
	Server      string            `json:"server"`
	ConfigHash  string            `json:"config_hash"`
	ToolHashes  map[string]string `json:"tool_hashes"`
	TrustedAt   time.Time         `json:"trusted_at"`
}

// Covers reports whether the record still vouches for tool of a server
// launched with configHash and currently described by toolHash.
func (t TrustRecord) Covers(configHash, tool, toolHash string) bool {
	h, ok := t.ToolHashes[tool]
	return t.ConfigHash == configHash && ok && h == toolHash
}

// TrustMcp stores (or replaces) the trust in a server and, when sessionID
// is set, appends McpServerTrusted to it in the same transaction.
func (s *Store) TrustMcp(ctx context.Context, sessionID string, t TrustRecord) error {
	if t.WorkspaceID == "" || t.Server == "" || t.ConfigHash == "" {
		return errors.New("store: trust mcp server: needs a workspace, a server name and a config hash")
	}
	hashes, err := canonicalJSON(nonNilMap(t.ToolHashes))
	if err != nil {
		return fmt.Errorf("store: trust mcp server %s: %w", t.Server, err)
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO mcp_trust(workspace_id, server, config_hash, tool_hashes, trusted_ms)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace_id, server) DO UPDATE SET config_hash = excluded.config_hash,
			tool_hashes = excluded.tool_hashes, trusted_ms = excluded.trusted_ms`,
			t.WorkspaceID, t.Server, t.ConfigHash, string(hashes), s.now().UnixMilli()); err != nil {
			return fmt.Errorf("store: trust mcp server %s: %w", t.Server, err)
		}
		if sessionID == "" {
			return nil
		}
		return s.appendEvents(ctx, tx, sessionID, McpServerTrusted{Server: t.Server, ConfigHash: t.ConfigHash,
			ToolHashes: t.ToolHashes, Persistent: true})
	})
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// UntrustMcp removes the trust in a server (missing is an error wrapping
// ErrNotFound) and, when sessionID is set, appends McpServerUntrusted.
func (s *Store) UntrustMcp(ctx context.Context, sessionID, workspaceID, server string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM mcp_trust WHERE workspace_id = ? AND server = ?`, workspaceID, server)
		if err != nil {
			return fmt.Errorf("store: untrust mcp server %s: %w", server, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: untrust mcp server %s: %w", server, ErrNotFound)
		}
		if sessionID == "" {
			return nil
		}
		return s.appendEvents(ctx, tx, sessionID, McpServerUntrusted{Server: server})
	})
}

func scanTrust(sc interface{ Scan(...any) error }) (TrustRecord, error) {
	var t TrustRecord
	var hashes string
	var ms int64
	if err := sc.Scan(&t.WorkspaceID, &t.Server, &t.ConfigHash, &hashes, &ms); err != nil {
		return t, err
	}
	if err := json.Unmarshal([]byte(hashes), &t.ToolHashes); err != nil {
		return t, fmt.Errorf("tool hashes of %s: %w", t.Server, err)
	}
	t.TrustedAt = time.UnixMilli(ms)
	return t, nil
}

// McpTrust returns the trust in one server, or an error wrapping ErrNotFound.
func (s *Store) McpTrust(ctx context.Context, workspaceID, server string) (TrustRecord, error) {
	t, err := scanTrust(s.r.QueryRowContext(ctx, `SELECT workspace_id, server, config_hash, tool_hashes, trusted_ms
		FROM mcp_trust WHERE workspace_id = ? AND server = ?`, workspaceID, server))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("store: mcp server %s: %w", server, ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("store: mcp server %s: %w", server, err)
	}
	return t, nil
}

// McpTrusts lists the trusted servers of a workspace by name.
func (s *Store) McpTrusts(ctx context.Context, workspaceID string) ([]TrustRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT workspace_id, server, config_hash, tool_hashes, trusted_ms
		FROM mcp_trust WHERE workspace_id = ? ORDER BY server`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("store: list mcp trust: %w", err)
	}
	defer rows.Close()
	var out []TrustRecord
	for rows.Next() {
		t, err := scanTrust(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list mcp trust: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
