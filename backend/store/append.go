package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
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
		if sqliteCode(err) != sqlite3.SQLITE_BUSY && sqliteCode(err) != sqlite3.SQLITE_LOCKED {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(50*(attempt+1)) * time.Millisecond):
		}
	}
	if c := sqliteCode(err); c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED {
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

const insertEventSQL = `INSERT INTO events(session_id, version, kind, time_ms, payload, audit, prev_hash, hash)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

// appendTx is the one append path: CreateSession, Append and the session,
// grant and trust methods all come through here.
func (s *Store) appendTx(ctx context.Context, tx *sql.Tx, sessionID string, expected int64, enc []encoded) (int64, error) {
	st, err := loadState(ctx, tx, sessionID)
	if err != nil {
		return 0, err
	}
	if expected != AnyVersion && expected != st.version {
		return 0, &ConflictError{SessionID: sessionID, Expected: expected, Actual: st.version}
	}
	ins, err := tx.PrepareContext(ctx, insertEventSQL)
	if err != nil {
		return 0, fmt.Errorf("store: append: %w", err)
	}
	defer ins.Close()
	now := s.now().UnixMilli()
	for _, e := range enc {
		st.version++
		h := chainHash(st.head, sessionID, st.version, e.kind, now, e.data)
		res, err := ins.ExecContext(ctx, sessionID, st.version, string(e.kind), now, string(e.data), e.audit, st.head, h)
		if err != nil {
			return 0, fmt.Errorf("store: append %s to session %s: %w", e.kind, sessionID, err)
		}
		st.head = h
		if err := project(ctx, tx, &st, sessionID, e.ev, res); err != nil {
			return 0, err
		}
	}
	if err := st.save(ctx, tx, sessionID, now); err != nil {
		return 0, err
	}
	return st.version, nil
}

// project applies an event to the session row and the pending set.
func project(ctx context.Context, tx *sql.Tx, st *sessionState, sessionID string, ev Event, res sql.Result) error {
	var err error
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
	case PermissionRequested:
		seq, lerr := res.LastInsertId()
		if lerr != nil {
			return fmt.Errorf("store: append: %w", lerr)
		}
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO pending_requests(request_id, session_id, seq) VALUES (?, ?, ?)`,
			e.RequestID, sessionID, seq)
	case PermissionGranted:
		_, err = tx.ExecContext(ctx, `DELETE FROM pending_requests WHERE session_id = ? AND request_id = ?`, sessionID, e.RequestID)
	case PermissionDenied:
		_, err = tx.ExecContext(ctx, `DELETE FROM pending_requests WHERE session_id = ? AND request_id = ?`, sessionID, e.RequestID)
	}
	if err != nil {
		return fmt.Errorf("store: append: pending requests: %w", err)
	}
	return nil
}

var zeroHash = make([]byte, sha256.Size)

// chainHash is sha256(prev || canonical envelope). The envelope is built by
// hand in canonical key order so Verify can rebuild it from the columns.
func chainHash(prev []byte, sessionID string, version int64, kind Kind, timeMs int64, payload []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	var b bytes.Buffer
	b.WriteString(`{"data":`)
	b.Write(payload)
	b.WriteString(`,"kind":`)
	b.Write(jsonString(string(kind)))
	b.WriteString(`,"session_id":`)
	b.Write(jsonString(sessionID))
	b.WriteString(`,"time_ms":`)
	b.WriteString(strconv.FormatInt(timeMs, 10))
	b.WriteString(`,"version":`)
	b.WriteString(strconv.FormatInt(version, 10))
	b.WriteByte('}')
	h.Write(b.Bytes())
	return h.Sum(nil)
}

func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
