package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneShotStartsNoWatcher: a one-shot process (`warden tool`) never
// sets the workspace watcher up, however many snapshots it takes, while a
// long-lived one does from its second snapshot on. The snapshots of both
// see the same changes.
func TestOneShotStartsNoWatcher(t *testing.T) {
	cases := []struct {
		name        string
		oneShot     bool
		incremental bool // the third snapshot
	}{
		{name: "long-lived process watches after its first snapshot", incremental: true},
		{name: "one-shot process never watches", oneShot: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ws, root := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tr, err := New(Config{Store: &memStore{}, Root: func(string) string { return root }, OneShot: tc.oneShot})
			if err != nil {
				t.Fatal(err)
			}
			r, err := tr.Repo(ctx, ws)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(r.Close)
			var trees []string
			for i := 0; i < 3; i++ {
				if i == 2 {
					if err := os.WriteFile(filepath.Join(ws, "b.txt"), []byte("b\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				tree, err := r.Snapshot(ctx)
				if err != nil {
					t.Fatal(err)
				}
				trees = append(trees, tree)
			}
			if trees[0] != trees[1] || trees[1] == trees[2] {
				t.Fatalf("trees %v: want the first two equal and the third (b.txt added) different", trees)
			}
			m := r.LastMode()
			if m.Incremental != tc.incremental {
				t.Errorf("third snapshot incremental = %v, want %v (mode %+v)", m.Incremental, tc.incremental, m)
			}
			if tc.oneShot && !strings.Contains(m.Why, "one-shot") {
				t.Errorf("mode %+v does not say the process is one-shot", m)
			}
			if tc.oneShot && m.Increments != 0 {
				t.Errorf("a one-shot process took %d incremental snapshots, want 0", m.Increments)
			}
		})
	}
}
