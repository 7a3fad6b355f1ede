package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// AnyVersion as expectedVersion appends whatever the session's version is.
const AnyVersion int64 = -1

// ErrNotFound is wrapped by lookups of sessions, workspaces, grants,
// memories and trust records that do not exist.
var ErrNotFound = errors.New("not found")

// ConflictError is returned by Append when the session is not at the
// expected version: someone else appended first. Reload and retry.
type ConflictError struct {
	SessionID string
	Expected  int64
	Actual    int64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("store: session %s is at version %d, not the expected %d: reload and retry", e.SessionID, e.Actual, e.Expected)
}

type encoded struct {
	ev    Event
	kind  Kind
	data  []byte
	audit bool
}

func encodeAll(events []Event) ([]encoded, error) {
	out := make([]encoded, len(events))
	for i, e := range events {
		k, data, err := encodeData(e)
		if err != nil {
			return nil, err
		}
		out[i] = encoded{ev: e, kind: k, data: data, audit: kindsByName[k].audit}
	}
	return out, nil
}

// Append adds events to the end of a session's log, atomically, and returns
// the session's new version. With expectedVersion other than AnyVersion it
// fails with *ConflictError unless the session is at exactly that version.
// All events of one call share one transaction and one fsync.
func (s *Store) Append(ctx context.Context, sessionID string, expectedVersion int64, events ...Event) (int64, error) {
	if len(events) == 0 {
		return 0, errors.New("store: append: no events")
	}
	for _, e := range events {
		if _, ok := e.(SessionCreated); ok {
			return 0, errors.New("store: append: session_created is written by CreateSession")
		}
	}
	enc, err := encodeAll(events)
	if err != nil {
		return 0, err
	}
	durable := false
	for _, e := range enc {
		durable = durable || !kindsByName[e.kind].stream
	}
	var v int64
	err = s.writeMode(ctx, durable, func(tx *sql.Tx) error {
		v, err = s.appendTx(ctx, tx, sessionID, expectedVersion, enc)
		return err
	})
	return v, err
}

// write runs fn in one durable IMMEDIATE transaction on the writer
// connection and wakes subscribers after a commit.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.writeMode(ctx, true, fn)
}

// writeMode is write with a choice of durability: durable commits fsync the
// WAL (synchronous=FULL); the others (streamed output only) are safe from
// process crashes and reach the disk with the next durable commit or
// checkpoint. SQLITE_BUSY that outlasts the busy timeout (another process
// holding the lock) is retried a few times before being reported in words.
func (s *Store) writeMode(ctx context.Context, durable bool, fn func(*sql.Tx) error) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		err = s.writeOnce(ctx, durable, fn)
		if sqliteCode(err) != sqlite3.ErrBusy && sqliteCode(err) != sqlite3.ErrLocked {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(50*(attempt+1)) * time.Millisecond):
		}
	}
	if c := sqliteCode(err); c == sqlite3.ErrBusy || c == sqlite3.ErrLocked {
		return fmt.Errorf("store: %s stayed busy: another process kept the write lock too long; try again: %w", s.path, err)
	}
	return err
}

func (s *Store) writeOnce(ctx context.Context, durable bool, fn func(*sql.Tx) error) error {
	// The pool has one connection; holding it keeps the synchronous setting
	// and the transaction together.
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: write: %w", err)
	}
	defer conn.Close()
	if s.relaxed == durable {
		mode := "FULL"
		if !durable {
			mode = "NORMAL"
		}
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = "+mode); err != nil {
			return fmt.Errorf("store: write: %w", err)
		}
		s.relaxed = !durable
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin write: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.hub.notify()
	return nil
}

const insertEventSQL = `INSERT INTO events(session_id, version, kind, time_ms, payload, audit, prev_hash, hash, chain)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

// appendTx is the one append path: CreateSession, Append and the session,
// grant and trust methods all come through here.
func (s *Store) appendTx(ctx context.Context, tx *sql.Tx, sessionID string, expected int64, enc []encoded) (int64, error) {
	st, err := loadState(ctx, tx, sessionID)
	if errors.Is(err, ErrNotFound) {
		st, err = s.createReservedTx(ctx, tx, sessionID)
	}
	if err != nil {
		return 0, err
	}
	if expected != AnyVersion && expected != st.version {
		return 0, &ConflictError{SessionID: sessionID, Expected: expected, Actual: st.version}
	}
	// A head that does not verify was moved by someone without the key;
	// appending would MAC it afresh and wash the tampering away.
	if !sameMAC(st.headMAC, s.chain.headMAC(sessionID, st.version, st.chainFrom, st.head)) {
		return 0, fmt.Errorf("store: append to session %s: %w: the log was changed outside Warden (or the key in the config folder is not the one that wrote it); run `warden audit verify`", sessionID, errHeadMAC)
	}
	mac, err := s.chain.eventHasher(ChainHMAC)
	if err != nil {
		return 0, err
	}
	ins, err := tx.PrepareContext(ctx, insertEventSQL)
	if err != nil {
		return 0, fmt.Errorf("store: append: %w", err)
	}
	defer ins.Close()
	pj := projector{tx: tx, sessionID: sessionID, st: &st}
	defer pj.close()
	now := s.now().UnixMilli()
	sidJSON := jsonString(sessionID)
	for _, e := range enc {
		st.version++
		h := chainSum(mac, st.head, sidJSON, st.version, kindsByName[e.kind].quoted, now, e.data)
		res, err := ins.ExecContext(ctx, sessionID, st.version, string(e.kind), now, string(e.data), e.audit, st.head, h, ChainHMAC)
		if err != nil {
			return 0, fmt.Errorf("store: append %s to session %s: %w", e.kind, sessionID, err)
		}
		st.head = h
		if err := pj.apply(ctx, e.ev, res); err != nil {
			return 0, err
		}
		if s.outbox != nil {
			seq, err := res.LastInsertId()
			if err != nil {
				return 0, fmt.Errorf("store: append: %w", err)
			}
			if err := s.enqueue(ctx, tx, &st, e, seq, now); err != nil {
				return 0, err
			}
		}
	}
	st.headMAC = s.chain.headMAC(sessionID, st.version, st.chainFrom, st.head)
	if err := st.save(ctx, tx, sessionID, now); err != nil {
		return 0, err
	}
	return st.version, nil
}

// projector applies events to the session row and the pending set, with
// its statements prepared once per append.
type projector struct {
	tx          *sql.Tx
	sessionID   string
	st          *sessionState
	add, remove *sql.Stmt
}

func (p *projector) close() {
	for _, st := range []*sql.Stmt{p.add, p.remove} {
		if st != nil {
			st.Close()
		}
	}
}

func (p *projector) stmt(ctx context.Context, slot **sql.Stmt, query string) (*sql.Stmt, error) {
	if *slot == nil {
		st, err := p.tx.PrepareContext(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("store: append: pending requests: %w", err)
		}
		*slot = st
	}
	return *slot, nil
}

func (p *projector) apply(ctx context.Context, ev Event, res sql.Result) error {
	st := p.st
	var requestID string
	var add bool
	switch e := ev.(type) {
	case SessionRenamed:
		st.title = e.Title
	case ApprovalPolicyChanged:
		st.approval = e.To
	case SandboxPolicyChanged:
		st.sandbox = e.To
	case PlanningEntered:
		st.planning = true
	case PlanningExited:
		st.planning = false
	case SessionArchived:
		st.archived = true
	case SessionRestored:
		st.archived = false
	case PermissionRequested:
		requestID, add = e.RequestID, true
	case PermissionGranted:
		requestID = e.RequestID
	case PermissionDenied:
		requestID = e.RequestID
	default:
		return nil
	}
	if requestID == "" {
		return nil
	}
	if add {
		seq, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("store: append: %w", err)
		}
		ins, err := p.stmt(ctx, &p.add, `INSERT OR REPLACE INTO pending_requests(request_id, session_id, seq) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		if _, err := ins.ExecContext(ctx, requestID, p.sessionID, seq); err != nil {
			return fmt.Errorf("store: append: pending requests: %w", err)
		}
		return nil
	}
	del, err := p.stmt(ctx, &p.remove, `DELETE FROM pending_requests WHERE session_id = ? AND request_id = ?`)
	if err != nil {
		return err
	}
	if _, err := del.ExecContext(ctx, p.sessionID, requestID); err != nil {
		return fmt.Errorf("store: append: pending requests: %w", err)
	}
	return nil
}

func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
