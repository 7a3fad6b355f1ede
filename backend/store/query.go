package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// EventQuery selects events. Zero fields do not filter. Results are in seq
// order (oldest first), or newest first with Desc: the last 200 events of a
// session are {SessionID: id, Limit: 200, Desc: true}.
type EventQuery struct {
	SessionID string    // "" for every session
	Kinds     []Kind    // any of these
	Since     time.Time // time >= Since
	Until     time.Time // time < Until
	AfterSeq  int64     // seq > AfterSeq (paging forward, tailing)
	BeforeSeq int64     // seq < BeforeSeq (paging backward)
	Limit     int       // 0: no limit
	Desc      bool
}

const eventCols = `seq, session_id, version, kind, time_ms, payload, hash`

// Events runs q. Session queries use the (session_id, seq) and
// (session_id, kind, seq) indexes, so a page costs the same on a large log.
func (s *Store) Events(ctx context.Context, q EventQuery) ([]StoredEvent, error) {
	var where []string
	var args []any
	if q.SessionID != "" {
		where, args = append(where, "session_id = ?"), append(args, q.SessionID)
	}
	if len(q.Kinds) > 0 {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(q.Kinds)), ",")
		where = append(where, "kind IN ("+ph+")")
		for _, k := range q.Kinds {
			args = append(args, string(k))
		}
	}
	if !q.Since.IsZero() {
		where, args = append(where, "time_ms >= ?"), append(args, q.Since.UnixMilli())
	}
	if !q.Until.IsZero() {
		where, args = append(where, "time_ms < ?"), append(args, q.Until.UnixMilli())
	}
	if q.AfterSeq > 0 {
		where, args = append(where, "seq > ?"), append(args, q.AfterSeq)
	}
	if q.BeforeSeq > 0 {
		where, args = append(where, "seq < ?"), append(args, q.BeforeSeq)
	}
	query := "SELECT " + eventCols + " FROM events"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY seq"
	if q.Desc {
		query += " DESC"
	}
	if q.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	return s.queryEvents(ctx, query, args...)
}

// auditKinds are the kinds registered with registerAudit.
func auditKinds() []Kind {
	var out []Kind
	for k, info := range kindsByName {
		if info.audit {
			out = append(out, k)
		}
	}
	return out
}

// PermissionAudit returns, oldest first, everything of a session that says
// what was allowed and why: permission requests and their answers, axis and
// planning changes, grants and MCP trust. It reads a partial index of those
// rows only.
func (s *Store) PermissionAudit(ctx context.Context, sessionID string) ([]StoredEvent, error) {
	return s.queryEvents(ctx, "SELECT "+eventCols+" FROM events WHERE session_id = ? AND audit = 1 ORDER BY seq", sessionID)
}

// PendingRequests returns the PermissionRequested events that have no
// PermissionGranted or PermissionDenied answer yet, oldest first, for one
// session or, with "", for all. They survive restarts: a UI shows them again.
func (s *Store) PendingRequests(ctx context.Context, sessionID string) ([]StoredEvent, error) {
	return s.queryEvents(ctx, `SELECT e.seq, e.session_id, e.version, e.kind, e.time_ms, e.payload, e.hash
		FROM pending_requests p JOIN events e ON e.seq = p.seq
		WHERE ? = '' OR p.session_id = ? ORDER BY e.seq`, sessionID, sessionID)
}

// UnfinishedInvocations returns, oldest first, every ToolInvocationStarted
// with no ToolInvocationCompleted or ToolInvocationFailed of the same call
// after it: calls a process started and never saw end (it died).
//
// It runs at every start, so it first counts, per session, starts against
// ends from the (session_id, kind, seq) index without reading the large
// completed payloads (a stale failure, which ends a call that never
// started, is not an end); only a session with more starts than ends is
// searched call by call.
func (s *Store) UnfinishedInvocations(ctx context.Context) ([]StoredEvent, error) {
	started, completed, failed := string(KindToolInvocationStarted), string(KindToolInvocationCompleted), string(KindToolInvocationFailed)
	rows, err := s.r.QueryContext(ctx, `SELECT ss.id FROM sessions ss
		WHERE (SELECT count(*) FROM events e WHERE e.session_id = ss.id AND e.kind = ?)
			> (SELECT count(*) FROM events e WHERE e.session_id = ss.id AND e.kind = ?)
			+ (SELECT count(*) FROM events e WHERE e.session_id = ss.id AND e.kind = ?
				AND coalesce(json_extract(e.payload, '$.via'), '') <> 'stale')`,
		started, completed, failed)
	if err != nil {
		return nil, fmt.Errorf("store: unfinished calls: %w", err)
	}
	var open []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: unfinished calls: %w", err)
		}
		open = append(open, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unfinished calls: %w", err)
	}
	var out []StoredEvent
	for _, id := range open {
		evs, err := s.unfinishedIn(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	slices.SortFunc(out, func(a, b StoredEvent) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

// unfinishedIn finds one session's starts with no end after them in one
// ordered pass over its starts and ends (call ids only, from the kind
// index), then reads those starts whole. Matching each start against the
// later ends in SQL was quadratic: a session of 30,000 calls with one left
// open kept a start waiting for minutes.
func (s *Store) unfinishedIn(ctx context.Context, sessionID string) ([]StoredEvent, error) {
	started := string(KindToolInvocationStarted)
	rows, err := s.r.QueryContext(ctx, `SELECT seq, kind, coalesce(json_extract(payload, '$.call_id'), '') FROM events
		WHERE session_id = ? AND kind IN (?, ?, ?) ORDER BY seq`,
		sessionID, started, string(KindToolInvocationCompleted), string(KindToolInvocationFailed))
	if err != nil {
		return nil, fmt.Errorf("store: unfinished calls: %w", err)
	}
	open := map[string][]int64{} // call id → its starts not yet ended, in order
	for rows.Next() {
		var seq int64
		var kind, call string
		if err := rows.Scan(&seq, &kind, &call); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: unfinished calls: %w", err)
		}
		switch {
		case kind == started:
			open[call] = append(open[call], seq)
		case call != "": // an end finishes every earlier start of its call; a start without an id never ends
			delete(open, call)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unfinished calls: %w", err)
	}
	var out []StoredEvent
	for _, seqs := range open {
		for _, seq := range seqs {
			evs, err := s.queryEvents(ctx, `SELECT `+eventCols+` FROM events e WHERE e.seq = ?`, seq)
			if err != nil {
				return nil, err
			}
			out = append(out, evs...)
		}
	}
	return out, nil
}

func (s *Store) queryEvents(ctx context.Context, query string, args ...any) ([]StoredEvent, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: query events: %w", err)
	}
	defer rows.Close()
	var out []StoredEvent
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: query events: %w", err)
	}
	return out, nil
}

func scanEvent(rows *sql.Rows) (StoredEvent, error) {
	var e StoredEvent
	var kind, payload string
	var ms int64
	if err := rows.Scan(&e.Seq, &e.SessionID, &e.Version, &kind, &ms, &payload, &e.Hash); err != nil {
		return e, fmt.Errorf("store: read event: %w", err)
	}
	e.Kind, e.Time, e.Payload = Kind(kind), time.UnixMilli(ms), []byte(payload)
	ev, err := decodeData(e.Kind, e.Payload)
	if err != nil {
		return e, fmt.Errorf("store: event seq %d (session %s v%d): %w", e.Seq, e.SessionID, e.Version, err)
	}
	e.Event = ev
	return e, nil
}
