package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// Session is a session row: the projection of its log plus its chain head.
type Session struct {
	ID          string                `json:"id"`
	WorkspaceID string                `json:"workspace_id"`
	Workspace   string                `json:"workspace"` // absolute path
	ParentID    string                `json:"parent_id,omitempty"`
	Title       string                `json:"title"`
	Approval    policy.ApprovalPolicy `json:"approval"`
	Sandbox     policy.SandboxPolicy  `json:"sandbox"`
	Planning    bool                  `json:"planning"`
	Archived    bool                  `json:"archived,omitempty"`
	Version     int64                 `json:"version"`
	CreatedAt   time.Time             `json:"created_at"`
	UpdatedAt   time.Time             `json:"updated_at"`
}

// NewSession describes a session to create. ID is generated when empty.
type NewSession struct {
	ID        string
	Workspace string // absolute, already resolved through symlinks
	Title     string
	ParentID  string
	Approval  policy.ApprovalPolicy
	Sandbox   policy.SandboxPolicy
	Planning  bool
}

// PolicyUpdate changes a session's axes; nil fields stay as they are.
type PolicyUpdate struct {
	Approval *policy.ApprovalPolicy
	Sandbox  *policy.SandboxPolicy
	Planning *bool
	By       string // who changed it, recorded on the events
}

// sessionState is the mutable part of a session row during an append.
type sessionState struct {
	id          string
	workspaceID string
	version     int64
	head        []byte
	chainFrom   int64  // first keyed version
	headMAC     []byte // as stored; checked before and rewritten after an append
	title       string
	approval    policy.ApprovalPolicy
	sandbox     policy.SandboxPolicy
	planning    bool
	archived    bool
	// telemetryLast is the last version queued for export (outbox.go).
	telemetryLast int64
}

func loadState(ctx context.Context, tx *sql.Tx, id string) (sessionState, error) {
	st := sessionState{id: id}
	var approval, sandbox string
	err := tx.QueryRowContext(ctx, `SELECT workspace_id, version, head_hash, chain_from, head_mac, title, approval_policy,
		sandbox_policy, planning, archived, telemetry_last FROM sessions WHERE id = ?`, id).Scan(&st.workspaceID, &st.version, &st.head, &st.chainFrom,
		&st.headMAC, &st.title, &approval, &sandbox, &st.planning, &st.archived, &st.telemetryLast)
	if errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("store: session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return st, fmt.Errorf("store: load session %s: %w", id, err)
	}
	if st.approval, err = policy.ParseApprovalPolicy(approval); err != nil {
		return st, fmt.Errorf("store: session %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(sandbox), &st.sandbox); err != nil {
		return st, fmt.Errorf("store: session %s: sandbox policy: %w", id, err)
	}
	return st, nil
}

func (st *sessionState) save(ctx context.Context, tx *sql.Tx, id string, nowMs int64) error {
	sb, err := json.Marshal(st.sandbox)
	if err != nil {
		return fmt.Errorf("store: session %s: %w", id, err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE sessions SET version = ?, head_hash = ?, head_mac = ?, title = ?, approval_policy = ?,
		sandbox_policy = ?, planning = ?, archived = ?, telemetry_last = ?, updated_ms = ? WHERE id = ?`,
		st.version, st.head, st.headMAC, st.title, st.approval.String(), string(sb), st.planning, st.archived, st.telemetryLast, nowMs, id)
	if err != nil {
		return fmt.Errorf("store: update session %s: %w", id, err)
	}
	return nil
}

// CreateSession creates the session row and its first event,
// SessionCreated, in one transaction; the workspace is created if new.
func (s *Store) CreateSession(ctx context.Context, n NewSession) (Session, error) {
	n, enc, err := s.prepareSession(n)
	if err != nil {
		return Session{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		ws, err := s.ensureWorkspaceTx(ctx, tx, n.Workspace)
		if err != nil {
			return err
		}
		return s.createSessionTx(ctx, tx, n, ws.ID, enc)
	})
	if err != nil {
		return Session{}, err
	}
	return s.Session(ctx, n.ID)
}

// prepareSession checks a NewSession, fills its ID and encodes its
// SessionCreated event.
func (s *Store) prepareSession(n NewSession) (NewSession, []encoded, error) {
	if !filepath.IsAbs(n.Workspace) {
		return n, nil, fmt.Errorf("store: create session: workspace %q is not an absolute path", n.Workspace)
	}
	if _, err := n.Approval.MarshalText(); err != nil {
		return n, nil, fmt.Errorf("store: create session: %w", err)
	}
	n.Workspace = filepath.Clean(n.Workspace)
	if n.ID == "" {
		n.ID = s.newID()
	}
	enc, err := encodeAll([]Event{SessionCreated{Workspace: n.Workspace, Title: n.Title, ParentID: n.ParentID,
		Approval: n.Approval, Sandbox: n.Sandbox, Planning: n.Planning}})
	return n, enc, err
}

// createSessionTx inserts the session row of workspace wsID and appends its
// SessionCreated event.
func (s *Store) createSessionTx(ctx context.Context, tx *sql.Tx, n NewSession, wsID string, enc []encoded) error {
	sb, err := json.Marshal(n.Sandbox)
	if err != nil {
		return err
	}
	now := s.now().UnixMilli()
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions(id, workspace_id, parent_id, title, approval_policy,
		sandbox_policy, planning, head_hash, chain_from, head_mac, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
		n.ID, wsID, n.ParentID, n.Title, n.Approval.String(), string(sb), n.Planning, zeroHash,
		s.chain.headMAC(n.ID, 0, 1, zeroHash), now, now)
	if err != nil {
		return fmt.Errorf("store: create session %s: %w", n.ID, err)
	}
	_, err = s.appendTx(ctx, tx, n.ID, 0, enc)
	return err
}

const sessionCols = `s.id, s.workspace_id, w.path, s.parent_id, s.title, s.approval_policy, s.sandbox_policy,
	s.planning, s.archived, s.version, s.created_ms, s.updated_ms`

func scanSession(sc interface{ Scan(...any) error }) (Session, error) {
	var x Session
	var approval, sandbox string
	var created, updated int64
	if err := sc.Scan(&x.ID, &x.WorkspaceID, &x.Workspace, &x.ParentID, &x.Title, &approval, &sandbox,
		&x.Planning, &x.Archived, &x.Version, &created, &updated); err != nil {
		return x, err
	}
	var err error
	if x.Approval, err = policy.ParseApprovalPolicy(approval); err != nil {
		return x, err
	}
	if err := json.Unmarshal([]byte(sandbox), &x.Sandbox); err != nil {
		return x, fmt.Errorf("sandbox policy: %w", err)
	}
	x.CreatedAt, x.UpdatedAt = time.UnixMilli(created), time.UnixMilli(updated)
	return x, nil
}

// Session returns one session, or an error wrapping ErrNotFound.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions s JOIN workspaces w ON w.id = s.workspace_id
		WHERE s.id = ?`, id)
	x, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		if r, ok := s.reservation(id); ok {
			return r.session, nil
		}
		return x, fmt.Errorf("store: session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return x, fmt.Errorf("store: session %s: %w", id, err)
	}
	s.settled(id)
	return x, nil
}

// Sessions lists the sessions of a workspace ("" for all), most recently
// updated first.
func (s *Store) Sessions(ctx context.Context, workspaceID string) ([]Session, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions s JOIN workspaces w ON w.id = s.workspace_id
		WHERE ? = '' OR s.workspace_id = ? ORDER BY s.updated_ms DESC, s.id`, workspaceID, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		x, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list sessions: %w", err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// SetArchived archives a session (SessionArchived) or restores it
// (SessionRestored); setting what it already is appends nothing.
func (s *Store) SetArchived(ctx context.Context, id string, archived bool, by string) (Session, error) {
	cur, err := s.Session(ctx, id)
	if err != nil {
		return Session{}, err
	}
	if cur.Archived == archived {
		return cur, nil
	}
	var ev Event = SessionRestored{By: by}
	if archived {
		ev = SessionArchived{By: by}
	}
	if _, err := s.Append(ctx, id, AnyVersion, ev); err != nil {
		return Session{}, err
	}
	return s.Session(ctx, id)
}

// RenameSession appends SessionRenamed.
func (s *Store) RenameSession(ctx context.Context, id, title string) (Session, error) {
	if _, err := s.Append(ctx, id, AnyVersion, SessionRenamed{Title: title}); err != nil {
		return Session{}, err
	}
	return s.Session(ctx, id)
}

// UpdateSessionPolicy appends an event for each axis that actually changes
// (ApprovalPolicyChanged, SandboxPolicyChanged, PlanningEntered/Exited),
// all in one transaction, and returns the updated session.
func (s *Store) UpdateSessionPolicy(ctx context.Context, id string, u PolicyUpdate) (Session, error) {
	if u.Approval != nil {
		if _, err := u.Approval.MarshalText(); err != nil {
			return Session{}, fmt.Errorf("store: update session %s: %w", id, err)
		}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		st, err := loadState(ctx, tx, id)
		if err != nil {
			return err
		}
		var evs []Event
		if u.Approval != nil && *u.Approval != st.approval {
			evs = append(evs, ApprovalPolicyChanged{From: st.approval, To: *u.Approval, By: u.By})
		}
		if u.Sandbox != nil && !sameSandbox(*u.Sandbox, st.sandbox) {
			evs = append(evs, SandboxPolicyChanged{From: st.sandbox, To: *u.Sandbox, By: u.By})
		}
		if u.Planning != nil && *u.Planning != st.planning {
			if *u.Planning {
				evs = append(evs, PlanningEntered{By: u.By})
			} else {
				evs = append(evs, PlanningExited{By: u.By})
			}
		}
		if len(evs) == 0 {
			return nil
		}
		enc, err := encodeAll(evs)
		if err != nil {
			return err
		}
		_, err = s.appendTx(ctx, tx, id, st.version, enc)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	return s.Session(ctx, id)
}

func sameSandbox(a, b policy.SandboxPolicy) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// DeleteSession removes a session, its events, its pending requests and its
// session-scoped grants. Workspace grants made in it stay.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET deleting = 1 WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("store: delete session %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: delete session %s: %w", id, ErrNotFound)
		}
		for _, q := range []string{
			`DELETE FROM pending_requests WHERE session_id = ?`,
			`DELETE FROM events WHERE session_id = ?`,
			`DELETE FROM grants WHERE session_id = ? AND scope = 'session'`,
			`UPDATE grants SET session_id = '' WHERE session_id = ?`,
			`DELETE FROM sessions WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return fmt.Errorf("store: delete session %s: %w", id, err)
			}
		}
		return nil
	})
}

// PolicySession is what policy.Decide needs to know about this session.
// The caller supplies what the store does not hold: whether the OS cage is
// available, the grants in force (see PolicyGrants) and the time.
func (x Session) PolicySession(caged bool, grants []policy.Grant, now time.Time) policy.Session {
	return policy.Session{Workspace: x.Workspace, Approval: x.Approval, Sandbox: x.Sandbox, Planning: x.Planning,
		Caged: caged, Grants: grants, Now: now}
}
