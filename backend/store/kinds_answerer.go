package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/warden-dev/warden/backend/policy"
)

// The answerers' kinds (backend/gate: answerers and hooks beside the
// human). Registered here rather than in kinds.go's block so the answerer
// layer keeps its events in one file.
var (
	KindAnswererAnswered  = registerAudit[AnswererAnswered]("answerer_answered")
	KindAnswererTrusted   = registerAudit[AnswererTrusted]("answerer_trusted")
	KindAnswererUntrusted = registerAudit[AnswererUntrusted]("answerer_untrusted")
)

// AnswererAnswered is one answer an answerer (an external command, a
// reviewer model) gave to an ask, or a pre-call hook's tightening of a
// call. Every answer is recorded, a pass too; the ask's outcome is the
// PermissionGranted/Denied that follows (layer answerer, detail
// "kind:name") or the human's answer.
type AnswererAnswered struct {
	event
	RequestID string `json:"request_id"`
	CallID    string `json:"call_id"`
	Tool      string `json:"tool"`
	// Kind is command, model or hook; Name the configured name (for a
	// reviewer model, its model id unless named).
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
	// Answer is allow, deny or pass (answerers), or ask or deny (a hook).
	Answer string `json:"answer" ts:"'allow' | 'deny' | 'pass' | 'ask'"`
	// Reason is the answerer's why in words, or what went wrong ("answerer
	// timed out after 10 s").
	Reason    string `json:"reason,omitempty"`
	LatencyMs int64  `json:"latency_ms"`
	// Layer is always answerer: the decision's layer when this answer
	// decides.
	Layer policy.Layer `json:"layer"`
}

func (a AnswererAnswered) validate() error {
	if a.Kind == "" || a.Answer == "" {
		return errors.New("answerer answered: kind and answer are required")
	}
	return nil
}

// AnswererTrusted: the human trusted a workspace's answerer or hook, as
// its config and program file are now (their hashes).
type AnswererTrusted struct {
	event
	// Role is answerer or hook.
	Role        string `json:"role" ts:"'answerer' | 'hook'"`
	Name        string `json:"name"`
	ConfigHash  string `json:"config_hash"`
	ProgramHash string `json:"program_hash"`
}

// AnswererUntrusted: the human took that trust back.
type AnswererUntrusted struct {
	event
	Role string `json:"role" ts:"'answerer' | 'hook'"`
	Name string `json:"name"`
}

// AnswererTrustNamespace holds a workspace's trusted answerers and hooks
// as memories (key "role:name", value the trusted hashes as JSON). Only
// TrustAnswerer and UntrustAnswerer write it: a trust is the human's.
const AnswererTrustNamespace = "answerer-trust:"

// TrustAnswerer stores a workspace's trust in one answerer or hook (value:
// what the trust vouches for, as the caller encodes it) and appends
// AnswererTrusted to sessionID's log, in one transaction.
func (s *Store) TrustAnswerer(ctx context.Context, sessionID, workspaceID string, t AnswererTrusted, value string) error {
	if workspaceID == "" || t.Role == "" || t.Name == "" || t.ConfigHash == "" {
		return errors.New("store: trust answerer: needs a workspace, a role, a name and a config hash")
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := setMemoryTx(ctx, tx, workspaceID, AnswererTrustNamespace, t.Role+":"+t.Name, value, s.now().UnixMilli()); err != nil {
			return fmt.Errorf("store: trust answerer %s: %w", t.Name, err)
		}
		if sessionID == "" {
			return nil
		}
		return s.appendEvents(ctx, tx, sessionID, t)
	})
}

// UntrustAnswerer removes that trust (missing is an error wrapping
// ErrNotFound) and appends AnswererUntrusted when sessionID is set.
func (s *Store) UntrustAnswerer(ctx context.Context, sessionID, workspaceID, role, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE workspace_id = ? AND namespace = ? AND key = ?`,
			workspaceID, AnswererTrustNamespace, role+":"+name)
		if err != nil {
			return fmt.Errorf("store: untrust answerer %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: untrust answerer %s: %w", name, ErrNotFound)
		}
		if sessionID == "" {
			return nil
		}
		return s.appendEvents(ctx, tx, sessionID, AnswererUntrusted{Role: role, Name: name})
	})
}
