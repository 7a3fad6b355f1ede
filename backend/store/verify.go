package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"sort"
)

// BadEvent names an event (or the missing tail of a session) that fails
// verification.
type BadEvent struct {
	Seq       int64  `json:"seq"` // 0 when the event itself is missing
	SessionID string `json:"session_id"`
	Version   int64  `json:"version"`
	Kind      Kind   `json:"kind,omitempty"`
	Problem   string `json:"problem"`
}

func (b BadEvent) String() string {
	return fmt.Sprintf("session %s version %d (seq %d, %s): %s", b.SessionID, b.Version, b.Seq, b.Kind, b.Problem)
}

// VerifyReport is what Verify found.
type VerifyReport struct {
	Path      string     `json:"path"`
	Schema    int        `json:"schema_version"`
	Sessions  int        `json:"sessions"`
	Events    int64      `json:"events"`
	Integrity []string   `json:"integrity"` // PRAGMA integrity_check; ["ok"] when sound
	Bad       []BadEvent `json:"bad,omitempty"`
}

// maxBad bounds the problems a report lists.
const maxBad = 100

// OK reports whether the file and every chain are sound.
func (r VerifyReport) OK() bool {
	return len(r.Bad) == 0 && len(r.Integrity) == 1 && r.Integrity[0] == "ok"
}

// FirstBad is the earliest problem in log order, if any.
func (r VerifyReport) FirstBad() (BadEvent, bool) {
	if len(r.Bad) == 0 {
		return BadEvent{}, false
	}
	return r.Bad[0], true
}

type chainHead struct {
	version int64
	head    []byte
	seen    bool
}

// Verify runs PRAGMA integrity_check and walks every session's hash chain in
// one read snapshot: versions must run 1..N without gaps, each prev_hash
// must be the previous event's hash, each hash must match its content, each
// payload must decode, and the chain must end where the session row says.
// The error is for failures to read at all; problems go in the report.
func (s *Store) Verify(ctx context.Context) (VerifyReport, error) {
	rep := VerifyReport{Path: s.path}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return rep, fmt.Errorf("store: verify: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&rep.Schema); err != nil {
		return rep, fmt.Errorf("store: verify: %w", err)
	}
	if rep.Integrity, err = integrity(ctx, tx); err != nil {
		return rep, err
	}
	heads := map[string]*chainHead{}
	rows, err := tx.QueryContext(ctx, "SELECT id, version, head_hash FROM sessions")
	if err != nil {
		return rep, fmt.Errorf("store: verify: %w", err)
	}
	for rows.Next() {
		var id string
		h := &chainHead{}
		if err := rows.Scan(&id, &h.version, &h.head); err != nil {
			rows.Close()
			return rep, fmt.Errorf("store: verify: %w", err)
		}
		heads[id] = h
	}
	rows.Close()
	rep.Sessions = len(heads)
	if err := walkChains(ctx, tx, heads, &rep); err != nil {
		return rep, err
	}
	for id, h := range heads {
		if !h.seen && h.version > 0 {
			rep.Bad = append(rep.Bad, BadEvent{SessionID: id, Version: 1,
				Problem: fmt.Sprintf("session claims %d events but none are in the log", h.version)})
		}
	}
	sort.SliceStable(rep.Bad, func(i, j int) bool { return badOrder(rep.Bad[i]) < badOrder(rep.Bad[j]) })
	if len(rep.Bad) > maxBad {
		rep.Bad = rep.Bad[:maxBad]
	}
	return rep, nil
}

// badOrder sorts problems by log position; missing events go last.
func badOrder(b BadEvent) int64 {
	if b.Seq == 0 {
		return 1<<63 - 1
	}
	return b.Seq
}

func integrity(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return nil, fmt.Errorf("store: integrity check: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("store: integrity check: %w", err)
		}
		out = append(out, line)
	}
	return out, rows.Err()
}

func walkChains(ctx context.Context, tx *sql.Tx, heads map[string]*chainHead, rep *VerifyReport) error {
	rows, err := tx.QueryContext(ctx, `SELECT seq, session_id, version, kind, time_ms, payload, prev_hash, hash
		FROM events ORDER BY session_id, version`)
	if err != nil {
		return fmt.Errorf("store: verify: %w", err)
	}
	defer rows.Close()
	var (
		cur      string
		want     int64
		prev     []byte
		lastSeq  int64
		lastKind Kind
	)
	bad := func(b BadEvent) {
		if len(rep.Bad) < 10*maxBad {
			rep.Bad = append(rep.Bad, b)
		}
	}
	finish := func() {
		h, ok := heads[cur]
		if cur == "" || !ok {
			return
		}
		h.seen = true
		switch {
		case want-1 < h.version:
			bad(BadEvent{SessionID: cur, Version: want, Problem: fmt.Sprintf(
				"log ends at version %d but the session records %d events: events were removed", want-1, h.version)})
		case want-1 > h.version:
			bad(BadEvent{Seq: lastSeq, SessionID: cur, Version: want - 1, Kind: lastKind, Problem: fmt.Sprintf(
				"session records %d events but the log goes on to version %d", h.version, want-1)})
		case !bytes.Equal(prev, h.head):
			bad(BadEvent{Seq: lastSeq, SessionID: cur, Version: want - 1, Kind: lastKind,
				Problem: "hash differs from the chain head recorded on the session"})
		}
	}
	for rows.Next() {
		var e BadEvent
		var kind, payload string
		var ms int64
		var prevHash, hash []byte
		if err := rows.Scan(&e.Seq, &e.SessionID, &e.Version, &kind, &ms, &payload, &prevHash, &hash); err != nil {
			return fmt.Errorf("store: verify: read event: %w", err)
		}
		e.Kind = Kind(kind)
		rep.Events++
		if e.SessionID != cur {
			finish()
			cur, want, prev = e.SessionID, 1, zeroHash
			if _, ok := heads[cur]; !ok {
				bad(withProblem(e, "event of a session that does not exist"))
			}
		}
		switch {
		case e.Version != want:
			bad(withProblem(e, fmt.Sprintf("expected version %d: events are missing or reordered", want)))
		case !bytes.Equal(prevHash, prev):
			bad(withProblem(e, "prev_hash does not match the previous event's hash: an earlier event was changed or removed"))
		case !bytes.Equal(hash, chainHash(prevHash, e.SessionID, e.Version, e.Kind, ms, []byte(payload))):
			bad(withProblem(e, "hash does not match the event's content: the event was changed"))
		}
		if _, err := decodeData(e.Kind, []byte(payload)); err != nil {
			bad(withProblem(e, "payload does not decode: "+err.Error()))
		}
		want, prev, lastSeq, lastKind = e.Version+1, hash, e.Seq, e.Kind
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: verify: read events: %w", err)
	}
	finish()
	return nil
}

func withProblem(b BadEvent, p string) BadEvent {
	b.Problem = p
	return b
}
