package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatRecord: a fresh process (a new Repo on the same store) answers
// the snapshot of a workspace nobody changed without starting git, and
// any change — content, a new, removed or renamed file, a mode, a nested
// repository's commit, a damaged record, other excludes — makes it git's
// full scan again, with the tree git would write.
func TestStatRecord(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		change   func(t *testing.T, ws, dir string) []string // returns excludes for the second Repo (nil: default)
		wantGits bool
	}{
		{name: "nothing changed: no git process"},
		{name: "a file rewritten with the same size", wantGits: true, change: func(t *testing.T, ws, _ string) []string {
			write(t, filepath.Join(ws, "a.txt"), "A\n")
			return nil
		}},
		{name: "a new file", wantGits: true, change: func(t *testing.T, ws, _ string) []string {
			write(t, filepath.Join(ws, "sub", "new.txt"), "n\n")
			return nil
		}},
		{name: "a removed file", wantGits: true, change: func(t *testing.T, ws, _ string) []string {
			must(t, os.Remove(filepath.Join(ws, "sub", "b.txt")))
			return nil
		}},
		{name: "a renamed file", wantGits: true, change: func(t *testing.T, ws, _ string) []string {
			must(t, os.Rename(filepath.Join(ws, "a.txt"), filepath.Join(ws, "c.txt")))
			return nil
		}},
		{name: "made executable", wantGits: true, change: func(t *testing.T, ws, _ string) []string {
			must(t, os.Chmod(filepath.Join(ws, "a.txt"), 0o755))
			return nil
		}},
		{name: "a commit in a nested repository", wantGits: true, change: func(t *testing.T, ws, _ string) []string {
			nested := filepath.Join(ws, "sub")
			for _, args := range [][]string{{"add", "b.txt"}, {"-c", "user.name=t", "-c", "user.email=t@t", "-c", "maintenance.auto=false", "-c", "gc.auto=0", "commit", "-qm", "two"}} {
				if out, err := exec.Command("git", append([]string{"-C", nested}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			return nil
		}},
		{name: "a damaged record", wantGits: true, change: func(t *testing.T, _, dir string) []string {
			write(t, filepath.Join(dir, statRecordName), "garbage")
			return nil
		}},
		{name: "other excludes", wantGits: true, change: func(*testing.T, string, string) []string {
			return []string{"*.txt"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ws, root, bin := t.TempDir(), t.TempDir(), t.TempDir()
			log := filepath.Join(bin, "git.log")
			write(t, filepath.Join(bin, "git"), "#!/bin/sh\necho \"$*\" >>'"+log+"'\nexec '"+realGit+"' \"$@\"\n")
			must(t, os.Chmod(filepath.Join(bin, "git"), 0o755))
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			write(t, filepath.Join(ws, "a.txt"), "a\n")
			write(t, filepath.Join(ws, "sub", "b.txt"), "b\n")
			// sub is a nested repository with one commit: its gitlink is in the tree.
			// No automatic maintenance: a commit may start it in the
			// background, and its later writes in sub/.git are a real change.
			write(t, filepath.Join(ws, "sub", "first.txt"), "1\n")
			for _, args := range [][]string{{"init", "-q"}, {"add", "first.txt"}, {"-c", "user.name=t", "-c", "user.email=t@t", "-c", "maintenance.auto=false", "-c", "gc.auto=0", "commit", "-qm", "one"}} {
				if out, err := exec.Command(realGit, append([]string{"-C", filepath.Join(ws, "sub")}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			// Old enough that the record is not racy.
			old := time.Now().Add(-time.Minute)
			for _, p := range []string{"a.txt", "sub/b.txt", "sub", "."} {
				must(t, os.Chtimes(filepath.Join(ws, p), old, old))
			}
			idx, err := os.Stat(filepath.Join(ws, "sub", ".git", "index"))
			must(t, err)
			first, err := Open(ctx, root, ws, nil)
			must(t, err)
			if _, err := first.Snapshot(ctx); err != nil {
				t.Fatal(err)
			}
			first.Close()
			// The first record was racy (ctime is now): a later fresh scan,
			// past the racy window, writes a clean one. On a loaded machine a
			// scan can still land inside the window, so scan until the record
			// is there (it is only ever written clean).
			for try := 0; ; try++ {
				time.Sleep(60 * time.Millisecond)
				again, err := Open(ctx, root, ws, nil)
				must(t, err)
				if _, err := again.Snapshot(ctx); err != nil {
					t.Fatal(err)
				}
				again.Close()
				if _, err := os.Stat(filepath.Join(first.Dir(), statRecordName)); err == nil {
					break
				}
				if try == 20 {
					t.Fatalf("no clean stat record after %d fresh scans (mode %+v)", try+1, again.LastMode())
				}
			}
			var excludes []string
			if tc.change != nil {
				excludes = tc.change(t, ws, first.Dir())
			}
			before := gitRuns(t, log) // the open counts too: a fresh process pays for both
			second, err := Open(ctx, root, ws, excludes)
			must(t, err)
			t.Cleanup(second.Close)
			tree, err := second.Snapshot(ctx)
			must(t, err)
			ran := gitRuns(t, log) - before
			if !tc.wantGits {
				// The scans never write into the user's nested repository
				// (git add runs git status inside it; GIT_OPTIONAL_LOCKS=0).
				fi, err := os.Stat(filepath.Join(ws, "sub", ".git", "index"))
				must(t, err)
				if !fi.ModTime().Equal(idx.ModTime()) {
					t.Fatalf("the nested repository's index was rewritten by a scan (%s → %s)", idx.ModTime(), fi.ModTime())
				}
			}
			if tc.wantGits && ran == 0 {
				t.Fatalf("a changed workspace was answered from the record (mode %+v)", second.LastMode())
			}
			if !tc.wantGits && ran != 0 {
				b, _ := os.ReadFile(log)
				t.Fatalf("an unchanged workspace started %d git processes (mode %+v); git runs of the test:\n%s", ran, second.LastMode(), b)
			}
			if excludes != nil {
				return // files tracked before stay tracked in that store: no fresh store to compare with
			}
			// The tree is what git's own full scan writes now.
			third, err := Open(ctx, t.TempDir(), ws, excludes)
			must(t, err)
			t.Cleanup(third.Close)
			want, err := third.Snapshot(ctx)
			must(t, err)
			if tree != want {
				t.Fatalf("tree %s, git's full scan says %s", tree, want)
			}
		})
	}
}

func gitRuns(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	must(t, err)
	return strings.Count(string(b), "\n")
}

func write(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
