package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Every incremental snapshot is compared with git's own full scan of the
// same workspace: a reference shadow repository that never watches, taking
// its snapshots at the same moments (so both indexes track the same files,
// ignored ones included).
func TestIncrementalMatchesGit(t *testing.T) {
	type step func(t *testing.T, ws, outside string)
	write := func(p, body string) step {
		return func(t *testing.T, ws, _ string) { writeTree(t, ws, map[string]string{p: body}) }
	}
	sh := func(script string) step {
		return func(t *testing.T, ws, outside string) {
			t.Helper()
			cmd := exec.Command("sh", "-ec", script)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "OUT="+outside, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", script, err, out)
			}
		}
	}
	base := map[string]string{
		"README.md": "hello\n", "src/a.go": "package a\n", "src/b.go": "package b\n",
		"src/deep/c/d.txt": "d\n", "docs/x.md": "x\n", "sub/build/keep.txt": "not the root build\n",
	}
	cases := []struct {
		name   string
		files  map[string]string // before the first snapshot
		mid    step              // after the first snapshot, before the watcher's
		change step
		scan   bool // this change must be a full scan
	}{
		{name: "modify one file", change: write("src/a.go", "package a // changed\n")},
		{name: "create a file", change: write("src/new.go", "package a\n")},
		{name: "create nested folders", change: sh("mkdir -p n/e/s/t && echo 1 > n/e/s/t/f && echo 2 > n/e/top")},
		{name: "delete a file", change: sh("rm src/b.go")},
		{name: "delete a whole folder", change: sh("rm -rf src")},
		{name: "delete every file", change: sh("rm -rf ./* ./.[!.]* 2>/dev/null || true")},
		{name: "rename a file", change: sh("mv src/a.go src/z.go")},
		{name: "move a file across folders", change: sh("mv src/a.go docs/a.go")},
		{name: "move a folder", change: sh("mv src lib")},
		{name: "move a folder then edit inside it", change: sh("mv src lib && echo more >> lib/deep/c/d.txt && echo n > lib/deep/new")},
		{name: "move a folder out of the workspace", change: sh(`mv src "$OUT/src"`)},
		{name: "move a folder in from outside", change: sh(`mkdir -p "$OUT/in/x" && echo i > "$OUT/in/x/i.txt" && mv "$OUT/in" in`)},
		{name: "delete and make a folder again", change: sh("rm -rf src && mkdir -p src/deep && echo other > src/a.go && echo q > src/deep/q")},
		{name: "file becomes a folder", change: sh("rm README.md && mkdir README.md && echo r > README.md/r")},
		{name: "folder becomes a file", change: sh("rm -rf docs && echo file > docs")},
		{name: "folder becomes a symlink", change: sh("rm -rf docs && ln -s src docs")},
		{name: "symlinks: new, retargeted, dangling", mid: sh("ln -s src/a.go link"), change: sh("ln -sfn src/b.go link && ln -s nowhere dangling && ln -s src dirlink")},
		{name: "executable bit on and off", mid: sh("chmod +x src/b.go"), change: sh("chmod +x src/a.go && chmod -x src/b.go")},
		{name: "new executable file", change: sh("printf '#!/bin/sh\\n' > run.sh && chmod 755 run.sh")},
		{name: "names with spaces, globs and UTF-8", change: sh("mkdir -p 'a b' && echo 1 > 'a b/é*?[x].txt' && echo 2 > 'src/tab\tname'")},
		{name: "ignored files and folders", files: map[string]string{".gitignore": "*.log\n!keep.log\ngen/\n"},
			change: sh("echo 1 > x.log && echo 2 > keep.log && mkdir -p gen/y && echo 3 > gen/y/z && echo 4 > src/s.log")},
		{name: "Warden's excludes, anchored and not", change: sh("mkdir -p node_modules/p build src/node_modules && echo 1 > node_modules/p/i.js && echo 2 > build/o && echo 3 > src/node_modules/m.js && echo 4 > sub/build/more.txt")},
		{name: "tracked file inside a folder ignored later",
			files: map[string]string{"gen/a.txt": "a\n"}, mid: write(".gitignore", "gen/\n"),
			change: sh("echo changed > gen/a.txt && echo new > gen/b.txt")},
		{name: "empty folder and a fifo", change: sh("mkdir -p empty/deeper && mkfifo src/pipe")},
		{name: "hard links made before: write through the other name", mid: sh("ln src/a.go src/a-link.go"), change: sh("echo through-link > src/a-link.go")},
		{name: "hard link made by the call, then written", change: sh("ln src/a.go hl.go && echo via-new-link >> hl.go")},
		{name: "hard link to a file outside, written outside", mid: sh(`ln src/b.go "$OUT/b-outside"`), change: sh(`echo outside >> "$OUT/b-outside"`)},
		{name: "a .gitignore changes", change: sh("echo 'docs/' > .gitignore && echo n > docs/n.md"), scan: true},
		{name: "a nested repository appears", change: sh("mkdir nested && cd nested && git init -q && echo x > x && git add x && git -c user.email=a@b -c user.name=a commit -qm x"), scan: true},
		{name: "a huge file", change: func(t *testing.T, ws, _ string) {
			f, err := os.Create(filepath.Join(ws, "huge.bin"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(maxIncrementalFile + 1); err != nil {
				t.Fatal(err)
			}
		}, scan: true},
		{name: "lost events: the queue overflows", change: func(t *testing.T, ws, _ string) {
			n := 17000 // more than fs.inotify.max_queued_events (16384 by default)
			if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
				fmt.Sscan(strings.TrimSpace(string(b)), &n)
				n += 500
			}
			if n > 70000 {
				t.Skip("max_queued_events is too large to overflow in a test")
			}
			dir := filepath.Join(ws, "many")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			// The folder is new, so the watcher only sees its creation;
			// overflow comes from touching a watched folder many times.
			for i := range n {
				if err := os.WriteFile(filepath.Join(ws, "src", "a.go"), []byte(fmt.Sprint(i)), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(filepath.Join(ws, "src", "a.go"), 0o644|os.FileMode(i%2)*0o100); err != nil {
					t.Fatal(err)
				}
			}
		}, scan: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ws, outside := t.TempDir(), t.TempDir()
			files := map[string]string{}
			for k, v := range base {
				files[k] = v
			}
			for k, v := range tc.files {
				files[k] = v
			}
			writeTree(t, ws, files)
			r, err := Open(ctx, t.TempDir(), ws, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(r.Close)
			ref, err := Open(ctx, t.TempDir(), ws, nil)
			if err != nil {
				t.Fatal(err)
			}
			ref.noWatch = "the reference: git's full scan every time"
			prev := ""
			both := func(what string) (string, Mode) {
				t.Helper()
				got, err := r.Snapshot(ctx)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if prev != "" {
					sameDiff(t, r, prev, got)
				}
				prev = got
				mode := r.LastMode()
				want, err := ref.Snapshot(ctx)
				if err != nil {
					t.Fatalf("%s (reference): %v", what, err)
				}
				if got != want {
					t.Fatalf("%s: snapshot %s (%+v), git's full scan %s; difference:\n%s", what, got, mode, want, gitDiff(t, ref, want, got))
				}
				return got, mode
			}
			both("first snapshot")
			if tc.mid != nil {
				tc.mid(t, ws, outside)
			}
			if _, m := both("the watcher's scan"); m.Incremental || r.hold.inc == nil {
				t.Fatalf("the second snapshot set no watcher up: %+v", m)
			}
			if _, m := both("no change"); !m.Incremental {
				t.Fatalf("an unchanged workspace was scanned: %s", m.Why)
			}
			tc.change(t, ws, outside)
			_, m := both("after the change")
			if tc.scan == m.Incremental {
				t.Fatalf("incremental %v, want %v (%s)", m.Incremental, !tc.scan, m.Why)
			}
			// Once more with a change after it: what the next snapshot
			// builds on is right too.
			writeTree(t, ws, map[string]string{"after/last.txt": "last\n"})
			both("the next change")
		})
	}
}

// sameDiff checks that the change set read from loose objects is git's
// diff-tree, entry for entry.
func sameDiff(t *testing.T, r *Repo, a, b string) {
	t.Helper()
	if a == b {
		return
	}
	out, err := r.run(context.Background(), nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", "--full-index", a, b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseRaw(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.objects().looseDiff(a, b)
	if err != nil {
		t.Fatalf("looseDiff: %v", err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("looseDiff %s..%s:\n got %v\nwant %v", a, b, got, want)
	}
}

// gitDiff says how two trees differ, for a failure message.
func gitDiff(t *testing.T, r *Repo, a, b string) string {
	out, err := r.run(context.Background(), nil, "diff-tree", "-r", "--raw", a, b)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

// A file written through a hard link made before the watcher is seen at
// every snapshot, not only when its own name has an event; and a restore
// (undo) is seen by the next snapshot without a scan.
func TestIncrementalAfterRestore(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"src/a.go": "a\n", "src/b/c.txt": "c\n"})
	r, err := Open(ctx, t.TempDir(), ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Snapshot(ctx)
	before, _ := r.Snapshot(ctx)
	os.RemoveAll(filepath.Join(ws, "src"))
	after, err := r.Snapshot(ctx)
	if err != nil || !r.LastMode().Incremental {
		t.Fatalf("%v %+v", err, r.LastMode())
	}
	unlock := r.Lock()
	if _, err := r.RestoreLocked(ctx, after, before, nil); err != nil {
		t.Fatal(err)
	}
	again, err := r.SnapshotLocked(ctx)
	unlock()
	if err != nil || again != before || !r.LastMode().Incremental {
		t.Fatalf("after restore: %s want %s, %v, %+v", again, before, err, r.LastMode())
	}
}

// Without inotify instances left (or on a remote file system) every
// snapshot is a full scan, and right.
func TestNoWatcherStillRight(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"a.txt": "a\n"})
	r, err := Open(ctx, t.TempDir(), ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.noWatch = "simulated: no inotify instance left"
	for i := range 3 {
		writeTree(t, ws, map[string]string{"a.txt": fmt.Sprint(i)})
		if _, err := r.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		if m := r.LastMode(); m.Incremental {
			t.Fatalf("snapshot %d incremental without a watcher", i)
		}
	}
}

func TestRemoteKind(t *testing.T) {
	if k := remoteKind(t.TempDir()); k != "" {
		t.Skipf("the test folder is on %s", k)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs("/proc", &st); err == nil && remoteKind("/proc") != "" {
		t.Fatalf("/proc called remote: %s", remoteKind("/proc"))
	}
}
