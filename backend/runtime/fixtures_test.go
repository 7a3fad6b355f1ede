package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
)

var updateFixtures = flag.Bool("update", false, "rewrite the frontend's event fixtures from testdata/fixtures")

// The frontend's event fixtures are what the window receives, so they are
// written from real store events, never by hand: each story in
// testdata/fixtures ({"kind","data"} lines) is appended to a real SQLite
// store (so the store's decoder refuses a value Go never sends) and read
// back through the wire form the API returns (eventViews). Run with
// -update after changing a story or an event's shape.
func TestFrontendEventFixtures(t *testing.T) {
	cases := []struct {
		name, story, fixture string
	}{
		{"transcript: every kind the chat shows", "transcript-events.jsonl", "transcript-events.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := storyEvents(t, filepath.Join("testdata", "fixtures", c.story))
			path := filepath.Join("..", "..", "frontend", "src", "model", "testdata", c.fixture)
			if *updateFixtures {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what the store sends for %s; run go test ./backend/runtime -run TestFrontendEventFixtures -update", path, c.story)
			}
		})
	}
}

// storyEvents appends a story to a fresh store as session s1, one event a
// second from a fixed time, and returns the events as the API sends them.
func storyEvents(t *testing.T, story string) []byte {
	t.Helper()
	f, err := os.Open(story)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []store.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		ev, err := store.Decode([]byte(text))
		if err != nil {
			t.Fatalf("%s:%d: %v", story, line, err)
		}
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	clock := time.UnixMilli(1796015701000)
	tick := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := clock
		clock = clock.Add(time.Second)
		return now
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fixtures.db")
	st, err := store.Open(ctx, db, storetest.KeyFor(db), store.WithClock(tick))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// A story opens with its session_created, which only CreateSession writes.
	created, ok := events[0].(store.SessionCreated)
	if !ok {
		t.Fatalf("%s: the first event must be session_created", story)
	}
	if _, err := st.CreateSession(ctx, store.NewSession{ID: "s1", Workspace: created.Workspace, Title: created.Title,
		ParentID: created.ParentID, Approval: created.Approval, Sandbox: created.Sandbox, Planning: created.Planning}); err != nil {
		t.Fatal(err)
	}
	for i, ev := range events[1:] {
		if _, err := st.Append(ctx, "s1", int64(i+1), ev); err != nil {
			t.Fatalf("%s: append event %d (%s): %v", story, i+2, store.KindOf(ev), err)
		}
	}
	stored, err := st.Events(ctx, store.EventQuery{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(eventViews(stored), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
