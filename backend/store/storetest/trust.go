package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

func testMcpTrust(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	sess := newSession(t, s, "/w")
	ws := sess.WorkspaceID
	rec := store.TrustRecord{WorkspaceID: ws, Server: "fs", ConfigHash: "cfg1",
		ToolHashes: map[string]string{"read_file": "h1", "write_file": "h2"}}
	if err := s.TrustMcp(ctx, sess.ID, rec); err != nil {
		t.Fatal(err)
	}
	if err := s.TrustMcp(ctx, "", store.TrustRecord{WorkspaceID: ws, Server: "git", ConfigHash: "g"}); err != nil {
		t.Fatal(err)
	}
	if err := s.TrustMcp(ctx, "", store.TrustRecord{WorkspaceID: ws, Server: "x"}); err == nil {
		t.Error("trust without config hash accepted")
	}
	got, err := s.McpTrust(ctx, ws, "fs")
	if err != nil || got.ConfigHash != "cfg1" || len(got.ToolHashes) != 2 || got.TrustedAt.IsZero() {
		t.Fatalf("McpTrust = %+v, %v", got, err)
	}
	covers := []struct {
		name             string
		cfg, tool, thash string
		want             bool
	}{
		{"same config and tool", "cfg1", "read_file", "h1", true},
		{"config changed", "cfg2", "read_file", "h1", false},
		{"tool description changed", "cfg1", "read_file", "h9", false},
		{"new tool", "cfg1", "delete_file", "h3", false},
	}
	for _, tc := range covers {
		t.Run(tc.name, func(t *testing.T) {
			if got.Covers(tc.cfg, tc.tool, tc.thash) != tc.want {
				t.Errorf("Covers(%s, %s, %s) = %v", tc.cfg, tc.tool, tc.thash, !tc.want)
			}
		})
	}
	rec.ConfigHash = "cfg2"
	if err := s.TrustMcp(ctx, "", rec); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.McpTrust(ctx, ws, "fs"); got.ConfigHash != "cfg2" {
		t.Errorf("re-trust did not replace: %+v", got)
	}
	if all, _ := s.McpTrusts(ctx, ws); len(all) != 2 || all[0].Server != "fs" || all[1].Server != "git" {
		t.Errorf("McpTrusts = %+v", all)
	}
	if err := s.UntrustMcp(ctx, sess.ID, ws, "fs"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.McpTrust(ctx, ws, "fs"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after untrust: %v", err)
	}
	if err := s.UntrustMcp(ctx, "", ws, "fs"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second untrust: %v", err)
	}
	evs, _ := s.PermissionAudit(ctx, sess.ID)
	if !sameKinds(kindsOf(evs), []store.Kind{store.KindMcpServerTrusted, store.KindMcpServerUntrusted}) {
		t.Errorf("trust events %v", kindsOf(evs))
	}
}

// Goroutines append to shared sessions with optimistic versions, retrying
// on conflict: nothing is lost, nothing is doubled, chains verify.
func testConcurrentAppends(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	const sessions, writers, each = 3, 6, 15
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = newSession(t, s, "/w").ID
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				sid := ids[(w+i)%sessions]
				if err := appendRetry(ctx, s, sid, msg(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var total int64
	for _, id := range ids {
		x, err := s.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		total += x.Version - 1
	}
	if total != writers*each {
		t.Errorf("%d messages stored, want %d", total, writers*each)
	}
	if rep, err := s.Verify(ctx); err != nil || !rep.OK() {
		t.Errorf("verify: %+v %v", rep, err)
	}
}

func appendRetry(ctx context.Context, s store.API, sid string, e store.Event) error {
	for {
		cur, err := s.Session(ctx, sid)
		if err != nil {
			return err
		}
		_, err = s.Append(ctx, sid, cur.Version, e)
		var ce *store.ConflictError
		if errors.As(err, &ce) {
			continue
		}
		return err
	}
}

func testVerifyAfterEverything(t *testing.T, open Opener) {
	ctx := context.Background()
	s, _ := openTemp(t, open)
	a := newSession(t, s, "/w")
	mustAppend(t, s, a.ID, msg("x"), request("r"), granted("r"))
	if _, err := s.RenameSession(ctx, a.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Sessions != 1 || rep.Events != 5 || rep.Schema < 1 {
		t.Errorf("report %+v", rep)
	}
	if _, bad := rep.FirstBad(); bad {
		t.Errorf("sound log reports a bad event: %+v", rep.Bad)
	}
}
