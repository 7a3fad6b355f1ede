package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/checkpoint"
	"github.com/warden-dev/warden/backend/store"
)

// lazyStore lets the tracker be built before the rig opens its store.
type lazyStore struct{ r **rig }

func (l lazyStore) Append(ctx context.Context, id string, v int64, evs ...store.Event) (int64, error) {
	return (*l.r).st.Append(ctx, id, v, evs...)
}

func (l lazyStore) Events(ctx context.Context, q store.EventQuery) ([]store.StoredEvent, error) {
	return (*l.r).st.Events(ctx, q)
}

// A `!` command's change set is undone through the service; the model's
// history says so, and an unknown call is refused in words.
func TestUndoCallThroughTheService(t *testing.T) {
	var r *rig
	root := filepath.Join(t.TempDir(), "checkpoints")
	tr, err := checkpoint.New(checkpoint.Config{Store: lazyStore{&r}, Root: func(string) string { return root }})
	if err != nil {
		t.Fatal(err)
	}
	r = newRig(t, nil, func(c *rigConfig) {
		c.Checkpoint, c.Checkpoints = tr, tr
	})
	s := r.session(nil)
	ctx := context.Background()
	if err := r.svc.SendMessage(ctx, s.ID, `!python3 -c "import os; os.remove('README.md')"`); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(s.ID)
	if _, err := os.Stat(filepath.Join(r.ws, "README.md")); !os.IsNotExist(err) {
		t.Fatalf("the command did not run: %v", err)
	}
	list, err := r.svc.ChangeSets(ctx, s.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("change sets: %+v %v", list, err)
	}
	res, err := r.svc.UndoCall(ctx, UndoCallArgs{SessionID: s.ID, CallID: list[0].CallID})
	if err != nil || !res.Done {
		t.Fatalf("undo: %+v %v", res, err)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "README.md")); err != nil || string(b) != "# demo project\nRun make.\n" {
		t.Fatalf("README.md after undo: %q %v", b, err)
	}
	msgs, err := r.svc.history(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1]
	var text strings.Builder
	for _, p := range last.Content {
		text.WriteString(p.Text)
	}
	if !strings.Contains(text.String(), "The user undid call "+list[0].CallID) || !strings.Contains(text.String(), "README.md") {
		t.Fatalf("the model is not told: %q", text.String())
	}
	if _, err := r.svc.UndoCall(ctx, UndoCallArgs{SessionID: s.ID, CallID: "nope"}); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Fatalf("unknown call: %v", err)
	}
}
