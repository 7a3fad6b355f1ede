// Package mcpstore keeps persistent MCP server trust in Warden's SQLite
// store, for one workspace. It is the mcp.TrustStore of the persistent
// scope; the session scope stays in memory inside the mcp.Manager.
//
// The store's trust table holds the launch-config hash and the tool hashes.
// The descriptions the human saw when trusting, needed to show the diff of
// a later change, live beside it as workspace memories under
// DescriptionNamespace, one JSON object per server.
package mcpstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/store"
)

// DescriptionNamespace holds, per server, the tool descriptions at trust.
const DescriptionNamespace = "mcp-trust-descriptions:"

// Backend is the part of store.API this package uses; *store.Store has it.
type Backend interface {
	TrustMcp(ctx context.Context, sessionID string, t store.TrustRecord) error
	UntrustMcp(ctx context.Context, sessionID, workspaceID, server string) error
	McpTrust(ctx context.Context, workspaceID, server string) (store.TrustRecord, error)
	SetMemory(ctx context.Context, m store.Memory) error
	GetMemory(ctx context.Context, workspaceID, namespace, key string) (store.Memory, error)
	DeleteMemory(ctx context.Context, workspaceID, namespace, key string) error
}

// TrustStore is the persistent mcp.TrustStore of one workspace.
type TrustStore struct {
	b           Backend
	workspaceID string
	sessionID   string
}

var _ mcp.TrustStore = (*TrustStore)(nil)

// New binds the store to a workspace. sessionID, when set, receives the
// McpServerTrusted / McpServerUntrusted events; the CLI passes "".
func New(b Backend, workspaceID, sessionID string) *TrustStore {
	return &TrustStore{b: b, workspaceID: workspaceID, sessionID: sessionID}
}

// Get returns the persistent trust in a server, if any.
func (s *TrustStore) Get(ctx context.Context, server string) (mcp.TrustRecord, bool, error) {
	rec, err := s.b.McpTrust(ctx, s.workspaceID, server)
	if errors.Is(err, store.ErrNotFound) {
		return mcp.TrustRecord{}, false, nil
	}
	if err != nil {
		return mcp.TrustRecord{}, false, err
	}
	descriptions := map[string]string{}
	if m, err := s.b.GetMemory(ctx, s.workspaceID, DescriptionNamespace, server); err == nil {
		// A damaged entry only costs the diff, never the trust decision,
		// which rests on the hashes alone.
		_ = json.Unmarshal([]byte(m.Value), &descriptions)
	} else if !errors.Is(err, store.ErrNotFound) {
		return mcp.TrustRecord{}, false, err
	}
	out := mcp.TrustRecord{
		Server: rec.Server, ConfigHash: rec.ConfigHash, Scope: mcp.TrustPersistent,
		TrustedAt: rec.TrustedAt, Tools: make(map[string]mcp.ToolTrust, len(rec.ToolHashes)),
	}
	for tool, hash := range rec.ToolHashes {
		out.Tools[tool] = mcp.ToolTrust{Hash: hash, Description: descriptions[tool]}
	}
	return out, true, nil
}

// Put stores the trust. The descriptions go first: if the trust write then
// fails, nothing is trusted and a stale description is harmless.
func (s *TrustStore) Put(ctx context.Context, rec mcp.TrustRecord) error {
	hashes := make(map[string]string, len(rec.Tools))
	descriptions := make(map[string]string, len(rec.Tools))
	for tool, tt := range rec.Tools {
		hashes[tool] = tt.Hash
		descriptions[tool] = tt.Description
	}
	data, err := json.Marshal(descriptions)
	if err != nil {
		return fmt.Errorf("encoding tool descriptions of %s: %w", rec.Server, err)
	}
	if err := s.b.SetMemory(ctx, store.Memory{WorkspaceID: s.workspaceID, Namespace: DescriptionNamespace,
		Key: rec.Server, Value: string(data)}); err != nil {
		return err
	}
	return s.b.TrustMcp(ctx, s.sessionID, store.TrustRecord{
		WorkspaceID: s.workspaceID, Server: rec.Server, ConfigHash: rec.ConfigHash, ToolHashes: hashes,
	})
}

// Delete removes the trust; a server that was not trusted is not an error.
func (s *TrustStore) Delete(ctx context.Context, server string) error {
	if err := s.b.UntrustMcp(ctx, s.sessionID, s.workspaceID, server); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err := s.b.DeleteMemory(ctx, s.workspaceID, DescriptionNamespace, server); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}
