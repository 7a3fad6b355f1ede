package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRoundTrip(t *testing.T) {
	ctx := context.Background()
	ws, root := t.TempDir(), t.TempDir()
	writeTree(t, ws, map[string]string{"src/a.go": "package a\n", "src/b/c.txt": "c\n", "run.sh": "#!/bin/sh\n"})
	os.Chmod(filepath.Join(ws, "run.sh"), 0o755)
	os.Symlink("src/a.go", filepath.Join(ws, "link"))
	r, err := Open(ctx, root, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := hashTree(t, ws)
	os.RemoveAll(filepath.Join(ws, "src"))
	os.Remove(filepath.Join(ws, "link"))
	os.WriteFile(filepath.Join(ws, "new.txt"), []byte("new\n"), 0o644)
	after, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := r.Diff(ctx, before, after, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Files) != 4 {
		t.Fatalf("files: %+v", cs.Files)
	}
	unlock := r.Lock()
	if _, err := r.RestoreLocked(ctx, after, before, nil); err != nil {
		t.Fatal(err)
	}
	unlock()
	if got := hashTree(t, ws); got != want {
		t.Fatalf("tree differs after restore:\n%s\nwant\n%s", got, want)
	}
}
