package store

import (
	"bytes"
	"context"
	"crypto/sha256"
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
	Path      string   `json:"path"`
	Schema    int      `json:"schema_version"`
	Sessions  int      `json:"sessions"`
	Events    int64    `json:"events"`
	Integrity []string `json:"integrity"` // PRAGMA integrity_check; ["ok"] when sound
	// Keyed counts what was checked against the installation's audit key
	// (HMAC-SHA256); Legacy the plain sha256 events written before keying,
	// trusted only as far as a keyed session head pins them.
	Keyed  ChainStat  `json:"hmac_sha256"`
	Legacy ChainStat  `json:"sha256_legacy"`
	Bad    []BadEvent `json:"bad,omitempty"`
}

// ChainStat counts the events of one chain kind and the sessions holding any.
type ChainStat struct {
	Sessions int   `json:"sessions"`
	Events   int64 `json:"events"`
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
	version   int64
	head      []byte
	chainFrom int64
	headMAC   []byte
	seen      bool
	keyed     bool // holds a keyed event
	legacy    bool // holds a plain sha256 event
}

// Verify runs PRAGMA integrity_check and walks every session's hash chain in
// one read snapshot: versions must run 1..N without gaps, each prev_hash
// must be the previous event's hash, each hash must match its content (as
// HMAC-SHA256 under the store's key from the session's chain_from on, as
// plain sha256 before), each payload must decode, the chain must end where
// the session row says, and the session row's head MAC must verify — which
// pins the keyless prefix and the end of the log to what Warden wrote.
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
	rows, err := tx.QueryContext(ctx, "SELECT id, version, head_hash, chain_from, head_mac FROM sessions")
	if err != nil {
		return rep, fmt.Errorf("store: verify: %w", err)
	}
	for rows.Next() {
		var id string
		h := &chainHead{}
		if err := rows.Scan(&id, &h.version, &h.head, &h.chainFrom, &h.headMAC); err != nil {
			rows.Close()
			return rep, fmt.Errorf("store: verify: %w", err)
		}
		heads[id] = h
	}
	rows.Close()
	rep.Sessions = len(heads)
	if err := s.walkChains(ctx, tx, heads, &rep); err != nil {
		return rep, err
	}
	for id, h := range heads {
		if !h.seen && h.version > 0 {
			rep.Bad = append(rep.Bad, BadEvent{SessionID: id, Version: 1,
				Problem: fmt.Sprintf("session claims %d events but none are in the log", h.version)})
		}
		if h.keyed {
			rep.Keyed.Sessions++
		}
		if h.legacy {
			rep.Legacy.Sessions++
		}
		if !sameMAC(h.headMAC, s.chain.headMAC(id, h.version, h.chainFrom, h.head)) {
			rep.Bad = append(rep.Bad, BadEvent{SessionID: id, Version: h.version, Problem: "the session's head MAC does not " +
				"verify under this installation's audit key: its events were rewritten, added or cut off the end by " +
				"someone without the key (or the key in the config folder is not the one that wrote this log)"})
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

func (s *Store) walkChains(ctx context.Context, tx *sql.Tx, heads map[string]*chainHead, rep *VerifyReport) error {
	rows, err := tx.QueryContext(ctx, `SELECT seq, session_id, version, kind, time_ms, payload, prev_hash, hash, chain
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
		from     int64 = 1 // the current session's first keyed version
	)
	plain := sha256.New()
	mac, err := s.chain.eventHasher(ChainHMAC)
	if err != nil {
		return err
	}
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
		var chain ChainKind
		if err := rows.Scan(&e.Seq, &e.SessionID, &e.Version, &kind, &ms, &payload, &prevHash, &hash, &chain); err != nil {
			return fmt.Errorf("store: verify: read event: %w", err)
		}
		e.Kind = Kind(kind)
		rep.Events++
		if e.SessionID != cur {
			finish()
			cur, want, prev, from = e.SessionID, 1, zeroHash, 1
			if h, ok := heads[cur]; ok {
				from = h.chainFrom
			} else {
				bad(withProblem(e, "event of a session that does not exist"))
			}
		}
		wantChain := ChainHMAC
		if e.Version < from {
			wantChain = ChainSHA256
		}
		if h := heads[cur]; h != nil {
			switch chain {
			case ChainHMAC:
				h.keyed = true
				rep.Keyed.Events++
			case ChainSHA256:
				h.legacy = true
				rep.Legacy.Events++
			}
		}
		sid, kj := jsonString(e.SessionID), jsonString(kind)
		switch {
		case e.Version != want:
			bad(withProblem(e, fmt.Sprintf("expected version %d: events are missing or reordered", want)))
		case !bytes.Equal(prevHash, prev):
			bad(withProblem(e, "prev_hash does not match the previous event's hash: an earlier event was changed or removed"))
		case chain != ChainSHA256 && chain != ChainHMAC:
			bad(withProblem(e, fmt.Sprintf("unknown chain kind %d", int(chain))))
		case chain != wantChain && chain == ChainSHA256:
			bad(withProblem(e, fmt.Sprintf("plain sha256 hash where the chain is keyed (from version %d on): "+
				"the event was rewritten by someone without the audit key", from)))
		case chain != wantChain:
			bad(withProblem(e, fmt.Sprintf("chain kind %s where the session's history before keying (versions 1-%d) "+
				"is plain sha256", chain, from-1)))
		case chain == ChainHMAC && !sameMAC(hash, chainSum(mac, prevHash, sid, e.Version, kj, ms, []byte(payload))):
			bad(withProblem(e, "hash does not match the event's content under this installation's audit key (HMAC-SHA256): "+
				"the event was changed"))
		case chain == ChainSHA256 && !bytes.Equal(hash, chainSum(plain, prevHash, sid, e.Version, kj, ms, []byte(payload))):
			bad(withProblem(e, "hash does not match the event's content (plain sha256, written before keying): the event was changed"))
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
