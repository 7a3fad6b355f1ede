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

// Point lookups into a session's log, for readers that mirror one event at
// a time (the telemetry export): what the axes were when it was written,
// what arguments its call had, when its ask was put.

// Axes are a session's approval and sandbox policy and planning freeze.
type Axes struct {
	Approval policy.ApprovalPolicy `json:"approval"`
	Sandbox  policy.SandboxPolicy  `json:"sandbox"`
	Planning bool                  `json:"planning"`
}

// AxesAt is the session's axes just before its event at version: the last
// change of each before it, else what the session was created with.
func (s *Store) AxesAt(ctx context.Context, sessionID string, version int64) (Axes, error) {
	var a Axes
	rows, err := s.r.QueryContext(ctx, `SELECT kind, payload FROM events WHERE session_id = ? AND version < ?
		AND kind IN (?, ?, ?, ?, ?) ORDER BY version`, sessionID, version, string(KindSessionCreated),
		string(KindApprovalPolicyChanged), string(KindSandboxPolicyChanged), string(KindPlanningEntered), string(KindPlanningExited))
	if err != nil {
		return a, fmt.Errorf("store: axes of session %s at v%d: %w", sessionID, version, err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, payload string
		if err := rows.Scan(&kind, &payload); err != nil {
			return a, fmt.Errorf("store: axes: %w", err)
		}
		ev, err := decodeData(Kind(kind), []byte(payload))
		if err != nil {
			return a, err
		}
		switch e := ev.(type) {
		case SessionCreated:
			a = Axes{Approval: e.Approval, Sandbox: e.Sandbox, Planning: e.Planning}
		case ApprovalPolicyChanged:
			a.Approval = e.To
		case SandboxPolicyChanged:
			a.Sandbox = e.To
		case PlanningEntered:
			a.Planning = true
		case PlanningExited:
			a.Planning = false
		}
	}
	return a, rows.Err()
}

// CallArgs are the arguments a call was asked or started with, from its
// PermissionRequested or ToolInvocationStarted; ok is false when neither is
// in the log (a call denied without an ask, or not started yet).
func (s *Store) CallArgs(ctx context.Context, sessionID, callID string) (json.RawMessage, bool, error) {
	var payload, kind string
	err := s.r.QueryRowContext(ctx, `SELECT kind, payload FROM events WHERE session_id = ? AND kind IN (?, ?)
		AND json_extract(payload, '$.call_id') = ? ORDER BY seq LIMIT 1`, sessionID,
		string(KindPermissionRequested), string(KindToolInvocationStarted), callID).Scan(&kind, &payload)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: arguments of call %s: %w", callID, err)
	}
	var x struct {
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal([]byte(payload), &x); err != nil {
		return nil, false, fmt.Errorf("store: arguments of call %s: %w", callID, err)
	}
	return x.Args, x.Args != nil, nil
}

// AskedAt is when the session's PermissionRequested with requestID was
// written; ok is false when there is none (an allow or deny never asked).
func (s *Store) AskedAt(ctx context.Context, sessionID, requestID string) (time.Time, bool, error) {
	var ms int64
	err := s.r.QueryRowContext(ctx, `SELECT time_ms FROM events WHERE session_id = ? AND kind = ?
		AND json_extract(payload, '$.request_id') = ? ORDER BY seq LIMIT 1`, sessionID,
		string(KindPermissionRequested), requestID).Scan(&ms)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: ask %s: %w", requestID, err)
	}
	return time.UnixMilli(ms), true, nil
}

// ChainRow is one event's place in its session's chain, as verify
// --against compares it with a collector's copy.
type ChainRow struct {
	Seq       int64
	SessionID string
	Version   int64
	Kind      Kind
	Hash      []byte
	Event     Event
}

// ChainRows lists every event of the log in session and version order,
// decoded; pick, when not nil, keeps only the events it selects.
func (s *Store) ChainRows(ctx context.Context, pick func(Event) bool) ([]ChainRow, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seq, session_id, version, kind, payload, hash FROM events ORDER BY session_id, version`)
	if err != nil {
		return nil, fmt.Errorf("store: chain rows: %w", err)
	}
	defer rows.Close()
	var out []ChainRow
	for rows.Next() {
		var r ChainRow
		var kind, payload string
		if err := rows.Scan(&r.Seq, &r.SessionID, &r.Version, &kind, &payload, &r.Hash); err != nil {
			return nil, fmt.Errorf("store: chain rows: %w", err)
		}
		r.Kind = Kind(kind)
		ev, err := decodeData(r.Kind, []byte(payload))
		if err != nil {
			// An undecodable row is Verify's to report; keep its place.
			out = append(out, r)
			continue
		}
		r.Event = ev
		if pick == nil || pick(ev) {
			out = append(out, r)
		}
	}
	return out, rows.Err()
}
