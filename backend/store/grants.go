package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// GrantRecord is a stored grant with its bookkeeping. Grant converts it for
// the policy engine.
type GrantRecord struct {
	policy.Grant
	WorkspaceID string    `json:"workspace_id"`
	SessionID   string    `json:"session_id,omitempty"` // where it was made; where it applies for scope session
	CreatedAt   time.Time `json:"created_at"`
	RevokedAt   time.Time `json:"revoked_at,omitzero"` // zero: in force
	UseCount    int64     `json:"use_count"`
	LastUsedAt  time.Time `json:"last_used_at,omitzero"`
}

// Active reports whether the grant is neither revoked nor expired at now.
func (g GrantRecord) Active(now time.Time) bool {
	return g.RevokedAt.IsZero() && (g.ExpiresAt.IsZero() || now.Before(g.ExpiresAt))
}

// PolicyGrants returns the grants active at now, ready for policy.Session.
func PolicyGrants(recs []GrantRecord, now time.Time) []policy.Grant {
	return PolicyGrantsCapped(recs, now, 0)
}

// PolicyGrantsCapped is PolicyGrants with every grant lasting at most
// maxLifetime from when it was made (an organisation's longest grant
// lifetime: "always" becomes at most N days); 0 is no cap.
func PolicyGrantsCapped(recs []GrantRecord, now time.Time, maxLifetime time.Duration) []policy.Grant {
	var out []policy.Grant
	for _, g := range recs {
		if !g.Active(now) {
			continue
		}
		pg := g.Grant
		if maxLifetime > 0 {
			limit := g.CreatedAt.Add(maxLifetime)
			if !now.Before(limit) {
				continue
			}
			if pg.ExpiresAt.IsZero() || pg.ExpiresAt.After(limit) {
				pg.ExpiresAt = limit
			}
		}
		out = append(out, pg)
	}
	return out
}

// NewGrant describes a grant to add. For scope session, SessionID is
// required; for scope workspace it is optional and names where it was made.
type NewGrant struct {
	ID          string // generated when empty
	WorkspaceID string
	SessionID   string
	Signature   string
	Scope       policy.GrantScope
	Reasons     []policy.Reason // a grant never covers a reason it was not given for
	ExpiresAt   time.Time       // zero: never
	RequestID   string          // the permission request whose answer made it
}

// PermissionNamespace is the memory namespace that mirrors workspace
// grants: the persistent "always allow ... for this workspace" rules. Key
// is the grant ID, value its policy.Grant JSON. Only grant methods write it.
const PermissionNamespace = "permission:"

// AddGrant stores a grant and, when it was made in a session, appends
// GrantAdded to that session in the same transaction. A workspace grant is
// also written to the PermissionNamespace memories.
func (s *Store) AddGrant(ctx context.Context, n NewGrant) (GrantRecord, error) {
	if err := validGrant(n); err != nil {
		return GrantRecord{}, fmt.Errorf("store: add grant: %w", err)
	}
	if n.ID == "" {
		n.ID = s.newID()
	}
	g := policy.Grant{ID: n.ID, Signature: n.Signature, Scope: n.Scope, Reasons: n.Reasons, ExpiresAt: n.ExpiresAt}
	reasons, err := json.Marshal(n.Reasons)
	if err != nil {
		return GrantRecord{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		now := s.now().UnixMilli()
		if _, err := tx.ExecContext(ctx, `INSERT INTO grants(id, workspace_id, session_id, scope, signature, reasons,
			created_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			n.ID, n.WorkspaceID, n.SessionID, string(n.Scope), n.Signature, string(reasons), now, msOrZero(n.ExpiresAt)); err != nil {
			return fmt.Errorf("store: add grant %s: %w", n.Signature, err)
		}
		if n.Scope == policy.ScopeWorkspace {
			val, err := canonicalJSON(g)
			if err != nil {
				return err
			}
			if err := setMemoryTx(ctx, tx, n.WorkspaceID, PermissionNamespace, n.ID, string(val), now); err != nil {
				return err
			}
		}
		if n.SessionID == "" {
			return nil
		}
		return s.appendEvents(ctx, tx, n.SessionID, GrantAdded{Grant: g, RequestID: n.RequestID})
	})
	if err != nil {
		return GrantRecord{}, err
	}
	return s.Grant(ctx, n.ID)
}

func validGrant(n NewGrant) error {
	switch {
	case n.WorkspaceID == "":
		return errors.New("workspace is empty")
	case n.Signature == "":
		return errors.New("signature is empty")
	case len(n.Reasons) == 0:
		return errors.New("no reasons: a grant covers only the reasons it was given for")
	case n.Scope == policy.ScopeSession && n.SessionID == "":
		return errors.New("a session grant needs its session")
	case n.Scope != policy.ScopeSession && n.Scope != policy.ScopeWorkspace:
		return fmt.Errorf("scope %q is not session or workspace", n.Scope)
	}
	return nil
}

// appendEvents encodes and appends inside an existing transaction.
func (s *Store) appendEvents(ctx context.Context, tx *sql.Tx, sessionID string, evs ...Event) error {
	enc, err := encodeAll(evs)
	if err != nil {
		return err
	}
	_, err = s.appendTx(ctx, tx, sessionID, AnyVersion, enc)
	return err
}

func msOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func timeOrZero(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

const grantCols = `id, workspace_id, session_id, scope, signature, reasons, created_ms, expires_ms, revoked_ms, use_count, last_used_ms`

func scanGrant(sc interface{ Scan(...any) error }) (GrantRecord, error) {
	var g GrantRecord
	var scope, reasons string
	var created, expires, revoked, used int64
	if err := sc.Scan(&g.ID, &g.WorkspaceID, &g.SessionID, &scope, &g.Signature, &reasons,
		&created, &expires, &revoked, &g.UseCount, &used); err != nil {
		return g, err
	}
	g.Scope = policy.GrantScope(scope)
	if err := json.Unmarshal([]byte(reasons), &g.Reasons); err != nil {
		return g, fmt.Errorf("grant %s reasons: %w", g.ID, err)
	}
	g.CreatedAt, g.ExpiresAt = time.UnixMilli(created), timeOrZero(expires)
	g.RevokedAt, g.LastUsedAt = timeOrZero(revoked), timeOrZero(used)
	return g, nil
}

// Grant returns one grant by ID, or an error wrapping ErrNotFound.
func (s *Store) Grant(ctx context.Context, id string) (GrantRecord, error) {
	g, err := scanGrant(s.r.QueryRowContext(ctx, `SELECT `+grantCols+` FROM grants WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("store: grant %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return g, fmt.Errorf("store: grant %s: %w", id, err)
	}
	return g, nil
}

// GrantFilter selects grants: the workspace-scoped grants of WorkspaceID
// plus, when SessionID is set, that session's session-scoped grants.
type GrantFilter struct {
	WorkspaceID    string
	SessionID      string
	IncludeRevoked bool
}

// Grants lists grants oldest first. Expired ones are included (check Active
// or use PolicyGrants); revoked ones only with IncludeRevoked.
func (s *Store) Grants(ctx context.Context, f GrantFilter) ([]GrantRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+grantCols+` FROM grants
		WHERE workspace_id = ? AND (scope = 'workspace' OR (? != '' AND session_id = ?))
		AND (? OR revoked_ms = 0) ORDER BY created_ms, id`,
		f.WorkspaceID, f.SessionID, f.SessionID, f.IncludeRevoked)
	if err != nil {
		return nil, fmt.Errorf("store: list grants: %w", err)
	}
	defer rows.Close()
	var out []GrantRecord
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list grants: %w", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// RevokeGrant marks a grant revoked, removes its rule memory and appends
// GrantRevoked to bySessionID, or when that is empty to the session the grant
// was made in, if any. Revoking twice is not an error.
func (s *Store) RevokeGrant(ctx context.Context, id, bySessionID string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		g, err := scanGrant(tx.QueryRowContext(ctx, `SELECT `+grantCols+` FROM grants WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: revoke grant %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: revoke grant %s: %w", id, err)
		}
		if !g.RevokedAt.IsZero() {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE grants SET revoked_ms = ? WHERE id = ?`, s.now().UnixMilli(), id); err != nil {
			return fmt.Errorf("store: revoke grant %s: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE workspace_id = ? AND namespace = ? AND key = ?`,
			g.WorkspaceID, PermissionNamespace, id); err != nil {
			return fmt.Errorf("store: revoke grant %s: %w", id, err)
		}
		sid := bySessionID
		if sid == "" {
			sid = g.SessionID
		}
		if sid == "" {
			return nil
		}
		return s.appendEvents(ctx, tx, sid, GrantRevoked{GrantID: id, Signature: g.Signature})
	})
}

// IncrementGrantUse counts one use of a grant (the gate calls it when a
// grant turned an Ask into an Allow).
func (s *Store) IncrementGrantUse(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE grants SET use_count = use_count + 1, last_used_ms = ? WHERE id = ?`,
			s.now().UnixMilli(), id)
		if err != nil {
			return fmt.Errorf("store: use grant %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: use grant %s: %w", id, ErrNotFound)
		}
		return nil
	})
}
