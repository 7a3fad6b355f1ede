package storetest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

// otherKey is a key that did not write the database at path.
func otherKey(path string) store.Key { return KeyFor(path + " (another installation)") }

// writeAndClose leaves a database at a new path with one session of three
// events, written under KeyFor(path).
func writeAndClose(t *testing.T, open Opener) (path, sid string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "warden.db")
	s := open(t, path, KeyFor(path))
	sess := newSession(t, s, "/w")
	mustAppend(t, s, sess.ID, msg("one"), msg("two"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, sess.ID
}

// The chain is keyed: the key that wrote a log verifies it and says so,
// any other key does not.
func testVerifyNeedsTheKey(t *testing.T, open Opener) {
	ctx := context.Background()
	path, sid := writeAndClose(t, open)

	s := open(t, path, KeyFor(path))
	rep, err := s.Verify(ctx)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Keyed != (store.ChainStat{Sessions: 1, Events: 3}) || rep.Legacy != (store.ChainStat{}) {
		t.Errorf("with the writing key: %+v", rep)
	}

	s = open(t, path, otherKey(path))
	defer s.Close()
	rep, err = s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bad, found := rep.FirstBad()
	if rep.OK() || !found {
		t.Fatalf("another key verifies the log: %+v", rep)
	}
	if bad.SessionID != sid || !strings.Contains(bad.Problem, "audit key") {
		t.Errorf("first problem %s; want one of session %s naming the audit key", bad, sid)
	}
}

// An append under another key is refused: it would re-key a head that key
// cannot vouch for. New sessions under that key work.
func testAppendNeedsTheKey(t *testing.T, open Opener) {
	ctx := context.Background()
	path, sid := writeAndClose(t, open)
	s := open(t, path, otherKey(path))
	defer s.Close()
	if _, err := s.Append(ctx, sid, store.AnyVersion, msg("three")); err == nil || !strings.Contains(err.Error(), "audit key") {
		t.Errorf("append under another key: %v; want a refusal naming the audit key", err)
	}
	if got, err := s.Session(ctx, sid); err != nil || got.Version != 3 {
		t.Errorf("session after the refused append: version %d, %v; want 3", got.Version, err)
	}
	fresh := newSession(t, s, "/w")
	mustAppend(t, s, fresh.ID, msg("fine"))
}
