package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// sumFunc is how an attacker recomputes one link of a chain.
type sumFunc func(prev []byte, sessionID string, version int64, kind string, timeMs int64, payload []byte) []byte

func plainSum(prev []byte, sid string, v int64, kind string, ms int64, payload []byte) []byte {
	return chainHash(prev, sid, v, Kind(kind), ms, payload)
}

// attackerSum is an attacker who has stolen the key: the keyed link.
func attackerSum(t *testing.T, k Key) sumFunc {
	ch, err := newChainer(k)
	if err != nil {
		t.Fatal(err)
	}
	return func(prev []byte, sid string, v int64, kind string, ms int64, payload []byte) []byte {
		h, _ := ch.eventHasher(ChainHMAC)
		return chainSum(h, prev, jsonString(sid), v, jsonString(kind), ms, payload)
	}
}

// rewrite is a consistent rewrite of one session made straight in the
// SQLite file: payloads edited, every link recomputed with sum, the session
// head moved to the new end. chain, when >= 0, relabels every event's chain
// kind; chainFrom, when > 0, moves the session's keyed boundary; with key
// the attacker holds the audit key and re-MACs the head too.
type rewrite struct {
	edit      func(version int64, payload string) string
	sum       sumFunc
	chain     ChainKind
	chainFrom int64
	key       Key
	cutTail   bool  // drop the last event before rechaining
	start     int64 // first version relinked; earlier links are kept (0: all)
}

func (rw rewrite) apply(t *testing.T, path, sid string) {
	t.Helper()
	db, err := sql.Open(Driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("DROP TRIGGER IF EXISTS events_no_update")
	exec("DROP TRIGGER IF EXISTS events_no_delete")
	if rw.cutTail {
		exec(`DELETE FROM events WHERE session_id = ? AND version = (SELECT max(version) FROM events WHERE session_id = ?)`, sid, sid)
	}
	rows, err := db.Query(`SELECT seq, version, kind, time_ms, payload, chain, hash FROM events WHERE session_id = ? ORDER BY version`, sid)
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		seq, version, ms int64
		kind, payload    string
		chain            ChainKind
		hash             []byte
	}
	var evs []ev
	for rows.Next() {
		var e ev
		if err := rows.Scan(&e.seq, &e.version, &e.kind, &e.ms, &e.payload, &e.chain, &e.hash); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	rows.Close()
	prev := zeroHash
	for _, e := range evs {
		if e.version < rw.start {
			prev = e.hash
			continue
		}
		if rw.edit != nil {
			e.payload = rw.edit(e.version, e.payload)
		}
		if rw.chain >= 0 {
			e.chain = rw.chain
		}
		h := rw.sum(prev, sid, e.version, e.kind, e.ms, []byte(e.payload))
		exec(`UPDATE events SET payload = ?, prev_hash = ?, hash = ?, chain = ? WHERE seq = ?`, e.payload, prev, h, e.chain, e.seq)
		prev = h
	}
	var from int64
	if err := db.QueryRow(`SELECT chain_from FROM sessions WHERE id = ?`, sid).Scan(&from); err != nil {
		t.Fatal(err)
	}
	if rw.chainFrom > 0 {
		from = rw.chainFrom
	}
	exec(`UPDATE sessions SET version = ?, head_hash = ?, chain_from = ? WHERE id = ?`, len(evs), prev, from, sid)
	if rw.key != nil {
		ch, _ := newChainer(rw.key)
		exec(`UPDATE sessions SET head_mac = ? WHERE id = ?`, ch.headMAC(sid, int64(len(evs)), from, prev), sid)
	}
}

func replaceIn(version int64, from, to string) func(int64, string) string {
	return func(v int64, p string) string {
		if v == version {
			return strings.Replace(p, from, to, 1)
		}
		return p
	}
}

func verifyFile(t *testing.T, path string, k Key) VerifyReport {
	t.Helper()
	s, err := Open(context.Background(), path, k)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A consistent rewrite — every link recomputed, the head moved — fails
// unless it was made with the audit key.
func TestKeyedChainDefeatsConsistentRewrites(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		rw          rewrite
		wantOK      bool
		wantVersion int64
		wantProblem string
	}{
		{"payload rewritten, plain sha256 chain recomputed",
			rewrite{edit: replaceIn(4, "three", "THREE"), sum: plainSum, chain: -1, start: 4},
			false, 4, "hash does not match the event's content under this installation's audit key"},
		{"payload rewritten, chain relabelled as written before keying",
			rewrite{edit: replaceIn(4, "three", "THREE"), sum: plainSum, chain: ChainSHA256, start: 4},
			false, 4, "plain sha256 hash where the chain is keyed"},
		{"whole session passed off as written before keying",
			rewrite{edit: replaceIn(4, "three", "THREE"), sum: plainSum, chain: ChainSHA256, chainFrom: 6},
			false, 5, "head MAC does not verify"},
		{"last event cut, head moved back",
			rewrite{sum: attackerSumLazy, chain: -1, cutTail: true},
			false, 4, "head MAC does not verify"},
		{"payload rewritten with a wrong key",
			rewrite{edit: replaceIn(4, "three", "THREE"), sum: attackerSumWith(Key(strings.Repeat("k", 32))), chain: -1, start: 4},
			false, 4, "under this installation's audit key"},
		{"rewritten with the key (the attacker has it: nothing to catch)",
			rewrite{edit: replaceIn(4, "three", "THREE"), sum: attackerSumLazy, chain: -1, key: testKey},
			true, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, sid := tamperFixture(t)
			rw := tc.rw
			if rw.sum == nil {
				rw.sum = plainSum
			}
			rw.apply(t, path, sid)
			rep := verifyFile(t, path, testKey)
			if tc.wantOK {
				if !rep.OK() {
					t.Fatalf("a rewrite with the key fails: %+v", rep.Bad)
				}
				return
			}
			bad, found := rep.FirstBad()
			if rep.OK() || !found {
				t.Fatalf("consistent rewrite without the key verifies: %+v", rep)
			}
			if bad.SessionID != sid || bad.Version != tc.wantVersion || !strings.Contains(bad.Problem, tc.wantProblem) {
				t.Errorf("first bad = %s; want %s v%d %q", bad, sid, tc.wantVersion, tc.wantProblem)
			}
			for _, b := range rep.Bad {
				if b.SessionID == "s2" {
					t.Errorf("untouched session reported: %s", b)
				}
			}
		})
	}
}

// attackerSumLazy and attackerSumWith build keyed sums without a *testing.T.
var attackerSumLazy sumFunc = func(prev []byte, sid string, v int64, kind string, ms int64, payload []byte) []byte {
	return attackerSumWith(testKey)(prev, sid, v, kind, ms, payload)
}

func attackerSumWith(k Key) sumFunc {
	return func(prev []byte, sid string, v int64, kind string, ms int64, payload []byte) []byte {
		ch, err := newChainer(k)
		if err != nil {
			panic(err)
		}
		h, _ := ch.eventHasher(ChainHMAC)
		return chainSum(h, prev, jsonString(sid), v, jsonString(kind), ms, payload)
	}
}

// legacyDB writes a schema-2 database as a Warden from before keying did:
// session "old" with 3 plain sha256 events and session "idle" with 2.
func legacyDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "legacy.db")
	db, err := sql.Open(Driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec(`PRAGMA journal_mode=WAL`)
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)`)
	for i, f := range []string{"migrations/0001_events.sql", "migrations/0002_permissions.sql"} {
		body, err := fs.ReadFile(migrationFS, f)
		if err != nil {
			t.Fatal(err)
		}
		exec(string(body))
		exec(`INSERT INTO schema_migrations VALUES (?, ?, 0)`, i+1, strings.TrimSuffix(filepath.Base(f)[5:], ".sql"))
	}
	exec(`INSERT INTO workspaces VALUES ('w1', '/w', 0)`)
	for _, sess := range []struct {
		id    string
		texts []string
	}{{"old", []string{"one", "two"}}, {"idle", []string{"quiet"}}} {
		payloads := []string{`{"workspace":"/w","approval":"on-request","sandbox":{"kind":"workspace-write"}}`}
		kinds := []string{string(KindSessionCreated)}
		for _, text := range sess.texts {
			b, _ := json.Marshal(map[string]string{"role": "user", "text": text})
			payloads = append(payloads, string(b))
			kinds = append(kinds, string(KindMessageAppended))
		}
		exec(`INSERT INTO sessions(id, workspace_id, head_hash, created_ms, updated_ms) VALUES (?, 'w1', ?, 0, 0)`, sess.id, zeroHash)
		prev := zeroHash
		for i, p := range payloads {
			v := int64(i + 1)
			h := chainHash(prev, sess.id, v, Kind(kinds[i]), 1000+v, []byte(p))
			exec(`INSERT INTO events(session_id, version, kind, time_ms, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				sess.id, v, kinds[i], 1000+v, p, prev, h)
			prev = h
		}
		exec(`UPDATE sessions SET version = ?, head_hash = ? WHERE id = ?`, len(payloads), prev, sess.id)
	}
	return path
}

// A database from before keying keeps verifying: its events stay plain
// sha256, pinned by the head MAC the migration writes; new events are keyed.
func TestLegacyChainsStayVerifiable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := legacyDB(t)
	s, err := Open(ctx, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "old", AnyVersion, MessageAppended{Role: "user", Text: "three"}); err != nil {
		t.Fatal(err)
	}
	fresh, err := s.CreateSession(ctx, NewSession{ID: "new", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Verify(ctx)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("migrated legacy log fails: %v", rep.Bad)
	}
	if rep.Legacy != (ChainStat{Sessions: 2, Events: 5}) || rep.Keyed != (ChainStat{Sessions: 2, Events: 2}) {
		t.Errorf("legacy %+v keyed %+v; want 2 sessions/5 events plain, 2 sessions (old, %s)/2 events keyed", rep.Legacy, rep.Keyed, fresh.ID)
	}

	cases := []struct {
		name        string
		sid         string
		rw          rewrite
		wantVersion int64
		wantProblem string
	}{
		{"plain prefix rewritten and rechained, keyed event after it", "old",
			rewrite{edit: replaceIn(2, "one", "ONE"), sum: plainSum, chain: -1, start: 2}, 4, "hash does not match the event's content under this installation's audit key"},
		{"idle legacy session rewritten and rechained", "idle",
			rewrite{edit: replaceIn(2, "quiet", "loud"), sum: plainSum, chain: -1}, 2, "head MAC does not verify"},
		{"keyed session passed off as legacy", "new",
			rewrite{sum: plainSum, chain: ChainSHA256, chainFrom: 2}, 1, "head MAC does not verify"},
		{"keyless prefix widened over a keyed event", "old",
			rewrite{sum: plainSum, chain: ChainSHA256, chainFrom: 5}, 4, "head MAC does not verify"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cp := filepath.Join(t.TempDir(), "copy.db")
			copyDB(t, path, cp)
			tc.rw.apply(t, cp, tc.sid)
			rep := verifyFile(t, cp, testKey)
			if rep.OK() {
				t.Fatalf("rewrite without the key verifies: %+v", rep)
			}
			found := false
			for _, b := range rep.Bad {
				if b.SessionID == tc.sid && b.Version == tc.wantVersion && strings.Contains(b.Problem, tc.wantProblem) {
					found = true
				}
				if b.SessionID != tc.sid {
					t.Errorf("untouched session reported: %s", b)
				}
			}
			if !found {
				t.Errorf("problems %v; want %s v%d %q", rep.Bad, tc.sid, tc.wantVersion, tc.wantProblem)
			}
		})
	}
}

func copyDB(t *testing.T, from, to string) {
	t.Helper()
	db, err := sql.Open(Driver, from)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("VACUUM INTO '%s'", to)); err != nil {
		t.Fatal(err)
	}
}

// An append to a session whose head was moved without the key is refused,
// so the next write cannot launder the tampering into a valid MAC.
func TestAppendRefusesAMovedHead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, sid := tamperFixture(t)
	rewrite{sum: plainSum, chain: -1, cutTail: true}.apply(t, path, sid)
	s, err := Open(ctx, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Append(ctx, sid, AnyVersion, MessageAppended{Role: "user", Text: "after"}); err == nil ||
		!strings.Contains(err.Error(), "does not verify under this installation's audit key") {
		t.Fatalf("append on a moved head: %v", err)
	}
	if _, err := s.Append(ctx, "s2", AnyVersion, MessageAppended{Role: "user", Text: "fine"}); err != nil {
		t.Errorf("append to an untouched session: %v", err)
	}
}

func TestOpenRefusesAShortKey(t *testing.T) {
	t.Parallel()
	for _, k := range []Key{nil, Key("short")} {
		if s, err := Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), k); err == nil {
			s.Close()
			t.Errorf("Open with a %d-byte key succeeded", len(k))
		}
	}
}
