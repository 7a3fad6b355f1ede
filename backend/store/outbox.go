package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The telemetry outbox (migration 5). With WithOutbox, every event the pick
// function selects gets an outbox row in the same transaction that appends
// it: a committed event is sent or still queued, whatever crashes. A sender
// (backend/telemetry) leases a batch, sends it and acknowledges it; a bound
// drops the oldest queued sends and records how many in each session's log.
// The events themselves are never touched: the local chain keeps everything.

// WithOutbox queues, in the transaction that appends them, the events pick
// selects for export. Without it nothing is queued.
func WithOutbox(pick func(Event) bool) Option { return func(o *options) { o.outbox = pick } }

// OutboxItem is one queued record: the event it mirrors, the version of
// the session's previous queued event (0: none) and its queue state.
type OutboxItem struct {
	StoredEvent
	PrevVersion int64
	QueuedAt    time.Time
	Attempts    int
}

// OutboxStats is the export's state as the database knows it.
type OutboxStats struct {
	Queued      int64     `json:"queued"`
	Oldest      time.Time `json:"oldest"` // zero when nothing is queued
	Sent        int64     `json:"sent"`
	Dropped     int64     `json:"dropped"`
	LastSuccess time.Time `json:"last_success"`
	LastError   string    `json:"last_error"`
	LastErrorAt time.Time `json:"last_error_at"`
}

// enqueue queues one appended event when the outbox picks it.
func (s *Store) enqueue(ctx context.Context, tx *sql.Tx, st *sessionState, e encoded, seq, nowMs int64) error {
	if s.outbox == nil || !s.outbox(e.ev) {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO telemetry_outbox(seq, session_id, version, prev_version, queued_ms)
		VALUES (?, ?, ?, ?, ?)`, seq, st.id, st.version, st.telemetryLast, nowMs); err != nil {
		return fmt.Errorf("store: queue %s for export: %w", e.kind, err)
	}
	st.telemetryLast = st.version
	return nil
}

// ClaimOutbox leases up to n queued records whose lease has run out, oldest
// first, for lease: no other sender (in this process or another) takes them
// until then. Records whose events are gone (a purged session) are dropped
// from the queue.
func (s *Store) ClaimOutbox(ctx context.Context, n int, lease time.Duration) ([]OutboxItem, error) {
	if n <= 0 {
		return nil, fmt.Errorf("store: claim outbox: batch size %d", n)
	}
	now := s.now().UnixMilli()
	// Most polls find nothing due: ask the reader pool first, so an idle
	// sender never takes the write lock.
	var due int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM telemetry_outbox WHERE lease_until <= ? LIMIT 1)`, now).Scan(&due); err != nil {
		return nil, fmt.Errorf("store: claim outbox: %w", err)
	}
	if due == 0 {
		return nil, nil
	}
	var out []OutboxItem
	// The queue's bookkeeping (leases, acknowledgements) commits without the
	// fsync: losing the last of it in a power cut only sends a batch again.
	err := s.writeMode(ctx, false, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE telemetry_outbox SET lease_until = ?, attempts = attempts + 1
			WHERE seq IN (SELECT seq FROM telemetry_outbox WHERE lease_until <= ? ORDER BY seq LIMIT ?)
			RETURNING seq, prev_version, queued_ms, attempts`, now+lease.Milliseconds(), now, n)
		if err != nil {
			return fmt.Errorf("store: claim outbox: %w", err)
		}
		byseq := map[int64]OutboxItem{}
		var seqs []any
		for rows.Next() {
			var it OutboxItem
			var ms int64
			if err := rows.Scan(&it.Seq, &it.PrevVersion, &ms, &it.Attempts); err != nil {
				rows.Close()
				return fmt.Errorf("store: claim outbox: %w", err)
			}
			it.QueuedAt = time.UnixMilli(ms)
			byseq[it.Seq] = it
			seqs = append(seqs, it.Seq)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: claim outbox: %w", err)
		}
		if len(seqs) == 0 {
			return nil
		}
		ph := strings.TrimSuffix(strings.Repeat("?,", len(seqs)), ",")
		evs, err := tx.QueryContext(ctx, "SELECT "+eventCols+" FROM events WHERE seq IN ("+ph+") ORDER BY seq", seqs...)
		if err != nil {
			return fmt.Errorf("store: claim outbox: %w", err)
		}
		defer evs.Close()
		for evs.Next() {
			e, err := scanEvent(evs)
			if err != nil {
				return err
			}
			it := byseq[e.Seq]
			it.StoredEvent = e
			out = append(out, it)
		}
		return evs.Err()
	})
	return out, err
}

// AckOutbox removes records the collector acknowledged and counts them sent.
func (s *Store) AckOutbox(ctx context.Context, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	now := s.now().UnixMilli()
	return s.writeMode(ctx, false, func(tx *sql.Tx) error {
		n, err := deleteSeqs(ctx, tx, seqs)
		if err != nil {
			return fmt.Errorf("store: ack outbox: %w", err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE telemetry_state SET sent = sent + ?, last_success_ms = ? WHERE id = 1`, n, now)
		if err != nil {
			return fmt.Errorf("store: ack outbox: %w", err)
		}
		return nil
	})
}

// ReleaseOutbox gives leased records back after a failed send: they are
// sendable again from retryAt; why is kept as the export's last error.
func (s *Store) ReleaseOutbox(ctx context.Context, seqs []int64, retryAt time.Time, why string) error {
	now := s.now().UnixMilli()
	return s.writeMode(ctx, false, func(tx *sql.Tx) error {
		for _, chunk := range chunks(seqs) {
			ph := strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",")
			args := append([]any{retryAt.UnixMilli()}, chunk...)
			if _, err := tx.ExecContext(ctx, "UPDATE telemetry_outbox SET lease_until = ? WHERE seq IN ("+ph+")", args...); err != nil {
				return fmt.Errorf("store: release outbox: %w", err)
			}
		}
		return noteError(ctx, tx, why, now)
	})
}

// NoteExportError records the export's last error without touching the
// queue (a failure before anything was claimed, a bad configuration).
func (s *Store) NoteExportError(ctx context.Context, why string) error {
	now := s.now().UnixMilli()
	return s.write(ctx, func(tx *sql.Tx) error { return noteError(ctx, tx, why, now) })
}

func noteError(ctx context.Context, tx *sql.Tx, why string, nowMs int64) error {
	if why == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE telemetry_state SET last_error = ?, last_error_ms = ? WHERE id = 1`, why, nowMs); err != nil {
		return fmt.Errorf("store: note export error: %w", err)
	}
	return nil
}

// OutboxBound limits the queue: more than MaxRecords rows, or rows queued
// longer ago than MaxAge, are dropped oldest first. Zero fields do not
// bound.
type OutboxBound struct {
	MaxRecords int64
	MaxAge     time.Duration
}

// TrimOutbox enforces b: it drops the oldest queued sends past the bound
// and appends, to every session that lost some, a TelemetryDropped event
// saying how many and which versions (itself queued, so the collector
// learns of the gap). It returns how many sends were dropped.
func (s *Store) TrimOutbox(ctx context.Context, b OutboxBound) (int64, error) {
	if b.MaxRecords <= 0 && b.MaxAge <= 0 {
		return 0, nil
	}
	now := s.now()
	var victims []int64
	why := map[int64]string{}
	rows, err := s.r.QueryContext(ctx, `SELECT seq, queued_ms FROM telemetry_outbox ORDER BY seq`)
	if err != nil {
		return 0, fmt.Errorf("store: trim outbox: %w", err)
	}
	var all []int64
	var queued []int64
	for rows.Next() {
		var seq, ms int64
		if err := rows.Scan(&seq, &ms); err != nil {
			rows.Close()
			return 0, fmt.Errorf("store: trim outbox: %w", err)
		}
		all, queued = append(all, seq), append(queued, ms)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: trim outbox: %w", err)
	}
	over := int64(0)
	if b.MaxRecords > 0 && int64(len(all)) > b.MaxRecords {
		over = int64(len(all)) - b.MaxRecords
	}
	for i, seq := range all {
		switch {
		case int64(i) < over:
			victims, why[seq] = append(victims, seq), fmt.Sprintf("the outbox held more than %d records", b.MaxRecords)
		case b.MaxAge > 0 && now.Sub(time.UnixMilli(queued[i])) > b.MaxAge:
			victims, why[seq] = append(victims, seq), fmt.Sprintf("queued longer than %s", b.MaxAge)
		}
	}
	if len(victims) == 0 {
		return 0, nil
	}
	// Group by session, then drop and record per session, each in its own
	// transaction: one session whose head no longer verifies must not keep
	// the others' bound from holding.
	type lost struct {
		seqs     []int64
		versions []int64
		why      string
	}
	bySession := map[string]*lost{}
	var order []string
	for _, chunk := range chunks(victims) {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",")
		r, err := s.r.QueryContext(ctx, "SELECT seq, session_id, version FROM telemetry_outbox WHERE seq IN ("+ph+") ORDER BY seq", chunk...)
		if err != nil {
			return 0, fmt.Errorf("store: trim outbox: %w", err)
		}
		for r.Next() {
			var seq, v int64
			var sid string
			if err := r.Scan(&seq, &sid, &v); err != nil {
				r.Close()
				return 0, fmt.Errorf("store: trim outbox: %w", err)
			}
			l := bySession[sid]
			if l == nil {
				l = &lost{why: why[seq]}
				bySession[sid] = l
				order = append(order, sid)
			}
			l.seqs, l.versions = append(l.seqs, seq), append(l.versions, v)
		}
		r.Close()
	}
	var dropped int64
	var errs []error
	for _, sid := range order {
		l := bySession[sid]
		err := s.write(ctx, func(tx *sql.Tx) error {
			n, err := deleteSeqs(ctx, tx, l.seqs)
			if err != nil || n == 0 {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE telemetry_state SET dropped = dropped + ? WHERE id = 1`, n); err != nil {
				return err
			}
			enc, err := encodeAll([]Event{TelemetryDropped{Count: n, Versions: versionRanges(l.versions), Reason: l.why}})
			if err != nil {
				return err
			}
			_, err = s.appendTx(ctx, tx, sid, AnyVersion, enc)
			dropped += n
			return err
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("store: trim outbox of session %s: %w", sid, err))
		}
	}
	return dropped, errors.Join(errs...)
}

// OutboxStats reads the queue's length and the export's counters.
func (s *Store) OutboxStats(ctx context.Context) (OutboxStats, error) {
	var st OutboxStats
	var oldest sql.NullInt64
	var ok, lastErr int64
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM telemetry_outbox), (SELECT min(queued_ms) FROM telemetry_outbox),
		sent, dropped, last_success_ms, last_error, last_error_ms FROM telemetry_state WHERE id = 1`).
		Scan(&st.Queued, &oldest, &st.Sent, &st.Dropped, &ok, &st.LastError, &lastErr)
	if err != nil {
		return st, fmt.Errorf("store: outbox stats: %w", err)
	}
	if oldest.Valid {
		st.Oldest = time.UnixMilli(oldest.Int64)
	}
	if ok > 0 {
		st.LastSuccess = time.UnixMilli(ok)
	}
	if lastErr > 0 {
		st.LastErrorAt = time.UnixMilli(lastErr)
	}
	return st, nil
}

func deleteSeqs(ctx context.Context, tx *sql.Tx, seqs []int64) (int64, error) {
	var n int64
	for _, chunk := range chunks(seqs) {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",")
		res, err := tx.ExecContext(ctx, "DELETE FROM telemetry_outbox WHERE seq IN ("+ph+")", chunk...)
		if err != nil {
			return n, err
		}
		k, _ := res.RowsAffected()
		n += k
	}
	return n, nil
}

// chunks splits seqs into argument lists SQLite accepts in one statement.
func chunks(seqs []int64) [][]any {
	const max = 500
	var out [][]any
	for len(seqs) > 0 {
		k := min(len(seqs), max)
		c := make([]any, k)
		for i := range c {
			c[i] = seqs[i]
		}
		out, seqs = append(out, c), seqs[k:]
	}
	return out
}

// versionRanges writes sorted versions as "3-7,9".
func versionRanges(vs []int64) string {
	var b strings.Builder
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && vs[j+1] == vs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if i == j {
			fmt.Fprintf(&b, "%d", vs[i])
		} else {
			fmt.Fprintf(&b, "%d-%d", vs[i], vs[j])
		}
		i = j + 1
	}
	return b.String()
}

// QueuedVersions lists, per session, the versions still in the outbox.
func (s *Store) QueuedVersions(ctx context.Context) (map[string]map[int64]bool, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT session_id, version FROM telemetry_outbox`)
	if err != nil {
		return nil, fmt.Errorf("store: queued versions: %w", err)
	}
	defer rows.Close()
	out := map[string]map[int64]bool{}
	for rows.Next() {
		var sid string
		var v int64
		if err := rows.Scan(&sid, &v); err != nil {
			return nil, fmt.Errorf("store: queued versions: %w", err)
		}
		if out[sid] == nil {
			out[sid] = map[int64]bool{}
		}
		out[sid][v] = true
	}
	return out, rows.Err()
}
