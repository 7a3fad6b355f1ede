package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// tamperFixture is a closed database with one session of 5 events
// (session_created + 4 messages) and a second untouched session.
func tamperFixture(t *testing.T) (path, sid string) {
	t.Helper()
	ctx := context.Background()
	path = filepath.Join(t.TempDir(), "warden.db")
	s, err := Open(ctx, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.CreateSession(ctx, NewSession{ID: "s1", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two", "three", "four"} {
		if _, err := s.Append(ctx, sess.ID, AnyVersion, MessageAppended{Role: "user", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	other, err := s.CreateSession(ctx, NewSession{ID: "s2", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, other.ID, AnyVersion, MessageAppended{Role: "user", Text: "fine"}); err != nil {
		t.Fatal(err)
	}
	return path, sess.ID
}

// rawExec edits the file behind the store's back, as an attacker with
// sqlite3 would: triggers dropped first.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open(Driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := append([]string{"DROP TRIGGER events_no_update", "DROP TRIGGER events_no_delete"}, stmts...)
	for _, q := range all {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestVerifyFindsTampering(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		stmts       func(t *testing.T, path string) []string
		wantVersion int64
		wantProblem string
	}{
		{"payload edited", fixed(`UPDATE events SET payload = replace(payload, 'three', 'THREE') WHERE session_id = 's1' AND version = 4`),
			4, "hash does not match"},
		{"time changed", fixed(`UPDATE events SET time_ms = time_ms + 1 WHERE session_id = 's1' AND version = 2`),
			2, "hash does not match"},
		{"kind changed", fixed(`UPDATE events SET kind = 'plan_presented' WHERE session_id = 's1' AND version = 3`),
			3, "hash does not match"},
		{"payload garbage", fixed(`UPDATE events SET payload = 'not json' WHERE session_id = 's1' AND version = 3`),
			3, "hash does not match"},
		{"edit with a plain sha256 rehash", rehashed(false), 3, "hash does not match the event's content under this installation's audit key"},
		{"edit with a keyed rehash of that event alone", rehashed(true), 4, "prev_hash does not match"},
		{"middle event deleted", fixed(`DELETE FROM events WHERE session_id = 's1' AND version = 3`),
			4, "expected version 3"},
		{"tail cut", fixed(`DELETE FROM events WHERE session_id = 's1' AND version = 5`),
			5, "events were removed"},
		{"head rolled back", fixed(`UPDATE sessions SET version = 4 WHERE id = 's1'`),
			5, "session records 4 events"},
		{"whole log of a session deleted", fixed(`DELETE FROM events WHERE session_id = 's1'`),
			1, "none are in the log"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, sid := tamperFixture(t)
			rawExec(t, path, tc.stmts(t, path)...)
			s, err := Open(context.Background(), path, testKey)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			rep, err := s.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			bad, found := rep.FirstBad()
			if rep.OK() || !found {
				t.Fatalf("tampering not detected: %+v", rep)
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

func fixed(stmts ...string) func(*testing.T, string) []string {
	return func(*testing.T, string) []string { return stmts }
}

// rehashed edits version 3 and recomputes its hash: without the key as
// plain sha256, which its MAC check catches, or with the key, so only the
// link to version 4 gives it away.
func rehashed(withKey bool) func(t *testing.T, path string) []string {
	return func(t *testing.T, path string) []string { return rehash3(t, path, withKey) }
}

func rehash3(t *testing.T, path string, withKey bool) []string {
	db, err := sql.Open(Driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var prev []byte
	var kind, payload string
	var ms int64
	if err := db.QueryRow(`SELECT prev_hash, kind, payload, time_ms FROM events WHERE session_id = 's1' AND version = 3`).
		Scan(&prev, &kind, &payload, &ms); err != nil {
		t.Fatal(err)
	}
	payload = strings.Replace(payload, "two", "TWO", 1)
	h := chainHash(prev, "s1", 3, Kind(kind), ms, []byte(payload))
	if withKey {
		h = attackerSum(t, testKey)(prev, "s1", 3, kind, ms, []byte(payload))
	}
	return []string{
		`UPDATE events SET payload = '` + payload + `', hash = x'` + hexOf(h) + `' WHERE session_id = 's1' AND version = 3`,
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// The triggers stop accidental edits through SQL even before Verify runs.
func TestEventsAreAppendOnly(t *testing.T) {
	t.Parallel()
	path, _ := tamperFixture(t)
	db, err := sql.Open(Driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`UPDATE events SET payload = '{}' WHERE version = 2`,
		`DELETE FROM events WHERE version = 2`,
	} {
		if _, err := db.Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want append-only refusal", q, err)
		}
	}
}
