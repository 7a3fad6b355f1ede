package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// An `rm -rf src` a human allowed is undone byte for byte — contents, the
// executable bit, symlinks (dangling ones too) — and the user's .git is
// byte-identical before and after, its hooks never run.
func TestUndoRmRfAllowedByHuman(t *testing.T) {
	w := newWorld(t)
	marker := filepath.Join(w.outside, "hook-ran")
	sampleTree(t, w.ws)
	userRepo(t, w.ws, marker)
	gitBefore := hashTree(t, filepath.Join(w.ws, ".git"))
	want := hashTree(t, w.ws, ".git")

	out := w.shell(t, "rm -rf src", human{yes: true})
	if _, err := os.Lstat(filepath.Join(w.ws, "src")); !os.IsNotExist(err) {
		t.Fatalf("rm -rf src did not run: %v %s", err, resultText(out.Result))
	}
	c := w.change(t, out.CallID)
	if c.AllowedBy != "human:once" || c.Warning != nil {
		t.Errorf("allowed by %q, warning %+v: a human's allow carries no warning", c.AllowedBy, c.Warning)
	}
	if got := len(c.Files); got != 10 {
		t.Errorf("change set lists %d files, want the 10 under src: %+v", got, c.Files)
	}
	for _, f := range c.Files {
		if f.Change != store.ChangeDeleted || f.OldHash == "" {
			t.Errorf("%s: %s, old hash %q", f.Path, f.Change, f.OldHash)
		}
	}

	res, err := w.tr.Undo(context.Background(), out.CallID, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restored) != 10 {
		t.Errorf("restored %d paths: %v", len(res.Restored), res.Restored)
	}
	if got := hashTree(t, w.ws, ".git"); got != want {
		t.Fatalf("the workspace differs after undo:\n got %s\nwant %s", got, want)
	}
	if got := hashTree(t, filepath.Join(w.ws, ".git")); got != gitBefore {
		t.Fatalf("the user's .git changed:\n got %s\nwant %s", got, gitBefore)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("a hook of the user's .git ran")
	}
	// The undo is a change set of its own, and can be undone: the files go
	// again.
	u := w.change(t, res.ID)
	if u.Cause != store.CauseUndo || u.UndoOf != out.CallID {
		t.Errorf("undo event: %+v", u.WorkspaceChanged)
	}
	if c := w.change(t, out.CallID); c.UndoneBy != res.ID {
		t.Errorf("call is not marked undone by %s: %q", res.ID, c.UndoneBy)
	}
	if _, err := w.tr.Undo(context.Background(), res.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(w.ws, "src")); !os.IsNotExist(err) {
		t.Fatalf("undoing the undo left src: %v", err)
	}
	if got := hashTree(t, filepath.Join(w.ws, ".git")); got != gitBefore {
		t.Fatal("the user's .git changed after undoing the undo")
	}
}

// A Python one-liner that rewrites 20 files runs in the cage without a
// human (on-request cannot prove it, the cage confines it) and is undone.
func TestUndoPythonRewrite(t *testing.T) {
	w := newWorld(t)
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("pkg/f%02d.py", i)] = fmt.Sprintf("x = %d\nprint(x)\n", i)
	}
	writeTree(t, w.ws, files)
	want := hashTree(t, w.ws)
	script := `python3 -c "import glob, pathlib; [pathlib.Path(p).write_text(pathlib.Path(p).read_text().replace('x', 'y') + '# edited\n') for p in glob.glob('pkg/*.py')]"`
	out := w.shell(t, script, nil)
	c := w.change(t, out.CallID)
	if len(c.Files) != 20 {
		t.Fatalf("%d files in the change set, want 20: %s", len(c.Files), resultText(out.Result))
	}
	f := c.Files[0]
	if f.Change != store.ChangeModified || f.Added != 3 || f.Removed != 2 || !strings.Contains(f.Diff, "+y = ") {
		t.Errorf("first file: %+v", f)
	}
	if !strings.HasPrefix(c.AllowedBy, "sandbox") && c.AllowedBy == "" {
		t.Errorf("allowed by %q", c.AllowedBy)
	}
	if !c.Caged || c.Warning != nil {
		t.Errorf("caged %v, warning %+v: rewriting is not destruction", c.Caged, c.Warning)
	}
	if _, err := w.tr.Undo(context.Background(), out.CallID, false); err != nil {
		t.Fatal(err)
	}
	if got := hashTree(t, w.ws); got != want {
		t.Fatalf("after undo:\n got %s\nwant %s", got, want)
	}
}

// A caged call no human allowed that deletes more than the threshold is
// flagged, and the model reads which files are gone.
func TestDestructionWarning(t *testing.T) {
	cases := []struct {
		name    string
		files   int
		bigFile bool
		cmd     string
		warn    bool
	}{
		{name: "six files deleted", files: 6, cmd: `python3 -c "import shutil; shutil.rmtree('data')"`, warn: true},
		{name: "five files deleted is under", files: 5, cmd: `python3 -c "import shutil; shutil.rmtree('data')"`},
		{name: "one big file truncated", files: 1, bigFile: true, cmd: `python3 -c "open('data/big.bin','w').close()"`, warn: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			files := map[string]string{}
			for i := range tc.files {
				files[fmt.Sprintf("data/f%d.txt", i)] = "row\n"
			}
			writeTree(t, w.ws, files)
			if tc.bigFile {
				writeTree(t, w.ws, map[string]string{"data/big.bin": strings.Repeat("z", 2<<20)})
			}
			out := w.shell(t, tc.cmd, nil)
			c := w.change(t, out.CallID)
			if (c.Warning != nil) != tc.warn {
				t.Fatalf("warning %+v, want %v", c.Warning, tc.warn)
			}
			said := strings.Contains(resultText(out.Result), "removed tracked files")
			if said != tc.warn {
				t.Fatalf("the model was told: %v; result %q", said, resultText(out.Result))
			}
			if tc.warn && !strings.Contains(resultText(out.Result), "data/") {
				t.Errorf("the model is not told which files: %q", resultText(out.Result))
			}
		})
	}
}

// Restore to here after three calls brings back the state each message saw.
func TestRestoreToHere(t *testing.T) {
	w := newWorld(t)
	writeTree(t, w.ws, map[string]string{"a.txt": "one\n", "b.txt": "bee\n"})
	start := hashTree(t, w.ws)
	m1 := w.message(t, "m1", "write c")
	w.call(t, "fs.write", map[string]string{"path": "c.txt", "content": "sea\n"}, nil)
	m2 := w.message(t, "m2", "edit a")
	w.call(t, "fs.write", map[string]string{"path": "a.txt", "content": "two\n"}, nil)
	afterTwo := hashTree(t, w.ws)
	w.message(t, "m3", "delete b")
	w.shell(t, "rm b.txt", human{yes: true})

	if _, err := w.tr.RestoreTo(context.Background(), w.sess.ID, "m3", false); err != nil {
		t.Fatal(err)
	}
	if got := hashTree(t, w.ws); got != afterTwo {
		t.Fatalf("restore to m3:\n got %s\nwant %s", got, afterTwo)
	}
	if _, err := w.tr.RestoreTo(context.Background(), w.sess.ID, m1, false); err != nil {
		t.Fatal(err)
	}
	if got := hashTree(t, w.ws); got != start {
		t.Fatalf("restore to m1:\n got %s\nwant %s", got, start)
	}
	// m2 comes after the restore to m1 now: the later restore is a change
	// too, and restoring to m2 replays the log to that point.
	if _, err := w.tr.RestoreTo(context.Background(), w.sess.ID, m2, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.ws, "c.txt")); string(b) != "sea\n" {
		t.Fatalf("restore to m2: c.txt is %q", b)
	}
	var nf *NotFoundError
	if _, err := w.tr.RestoreTo(context.Background(), w.sess.ID, "nope", false); !errors.As(err, &nf) {
		t.Fatalf("unknown message: %v", err)
	}
}

// A later call that changed the same file makes undo refuse, naming it;
// --force overwrites.
func TestUndoConflict(t *testing.T) {
	w := newWorld(t)
	first := w.call(t, "fs.write", map[string]string{"path": "a.txt", "content": "first\n"}, nil)
	second := w.call(t, "fs.write", map[string]string{"path": "a.txt", "content": "second\n"}, nil)
	_, err := w.tr.Undo(context.Background(), first.CallID, false)
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("undo over a later change: %v", err)
	}
	if len(ce.Later) != 1 || ce.Later[0].CallID != second.CallID || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("conflict does not name the later call: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.ws, "a.txt")); string(b) != "second\n" {
		t.Fatalf("a refused undo changed the file: %q", b)
	}
	// A human edit outside any call is a conflict too.
	writeTree(t, w.ws, map[string]string{"a.txt": "mine\n"})
	if _, err := w.tr.Undo(context.Background(), second.CallID, false); !errors.As(err, &ce) || !strings.Contains(err.Error(), "outside any recorded call") {
		t.Fatalf("undo over a human edit: %v", err)
	}
	res, err := w.tr.Undo(context.Background(), first.CallID, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Forced) != 1 {
		t.Errorf("forced: %v", res.Forced)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("undo of the call that created a.txt left it: %v", err)
	}
}

// Changes made between calls (a monitor, a human) are seen at the next call
// as their own change set.
func TestOutsideChangesAreRecorded(t *testing.T) {
	w := newWorld(t)
	w.call(t, "fs.write", map[string]string{"path": "a.txt", "content": "a\n"}, nil)
	writeTree(t, w.ws, map[string]string{"by-hand.txt": "typed\n"})
	w.call(t, "fs.write", map[string]string{"path": "b.txt", "content": "b\n"}, nil)
	all, err := w.tr.Changes(context.Background(), w.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var causes []string
	for _, c := range all {
		causes = append(causes, c.Cause+":"+c.Files[0].Path)
	}
	if got := strings.Join(causes, " "); got != "call:a.txt outside:by-hand.txt call:b.txt" {
		t.Fatalf("change sets: %s", got)
	}
}

// Read-only calls take no checkpoint; a call that changes nothing records
// nothing; heavy excluded folders are left out and named.
func TestWhatIsRecorded(t *testing.T) {
	w := newWorld(t)
	writeTree(t, w.ws, map[string]string{"a.txt": "a\n", "node_modules/x/index.js": "x\n"})
	w.call(t, "fs.read", map[string]string{"path": "a.txt"}, nil)
	w.shell(t, "true", nil)
	if all, _ := w.tr.Changes(context.Background(), w.sess.ID); len(all) != 0 {
		t.Fatalf("%d change sets for calls that changed nothing", len(all))
	}
	if _, err := os.Stat(w.root); err != nil {
		t.Fatalf("shell.exec took no checkpoint: %v", err)
	}
	out := w.shell(t, "echo y > node_modules/x/index.js && echo b > b.txt", nil)
	c := w.change(t, out.CallID)
	if len(c.Files) != 1 || c.Files[0].Path != "b.txt" || strings.Join(c.Skipped, ",") != "node_modules/" {
		t.Fatalf("files %+v, skipped %v", c.Files, c.Skipped)
	}
	// Nothing of the checkpoints lands in the workspace.
	ents, _ := os.ReadDir(w.ws)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "a.txt,b.txt,node_modules" {
		t.Fatalf("workspace holds %s", got)
	}
}

// A deleted or damaged snapshot store never blocks a call and says what
// happened in words.
func TestDamagedStore(t *testing.T) {
	w := newWorld(t)
	first := w.call(t, "fs.write", map[string]string{"path": "a.txt", "content": "a\n"}, nil)
	if err := os.RemoveAll(w.root); err != nil {
		t.Fatal(err)
	}
	_, err := w.tr.Undo(context.Background(), first.CallID, false)
	if err == nil || !strings.Contains(err.Error(), "deleted or damaged") {
		t.Fatalf("undo with the store deleted: %v", err)
	}
	second := w.call(t, "fs.write", map[string]string{"path": "b.txt", "content": "b\n"}, nil)
	if c := w.change(t, second.CallID); c.Error != "" || len(c.Files) != 1 {
		t.Fatalf("after the store was deleted: %+v", c.WorkspaceChanged)
	}
	// Garbage where git expects its HEAD and objects: the store is moved
	// aside, the call runs and is covered by a fresh one.
	r, _ := w.tr.Repo(context.Background(), w.ws)
	if err := os.WriteFile(filepath.Join(r.gitDir, "HEAD"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.tr.repos = map[string]*Repo{} // as a new process would
	third := w.call(t, "fs.write", map[string]string{"path": "c.txt", "content": "c\n"}, nil)
	if b, _ := os.ReadFile(filepath.Join(w.ws, "c.txt")); string(b) != "c\n" {
		t.Fatal("the call did not run")
	}
	if c := w.change(t, third.CallID); c.Error != "" {
		t.Fatalf("a damaged store was not recovered: %s", c.Error)
	}
	aside, _ := filepath.Glob(r.dir + ".damaged-*")
	if len(aside) != 1 {
		t.Fatalf("the damaged store was not kept aside: %v", aside)
	}
	// A store git can open but whose objects are gone: the snapshot
	// fails, the call still runs, its change set says why.
	objs := filepath.Join(r.gitDir, "objects")
	if err := os.RemoveAll(objs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(objs, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	fourth := w.call(t, "fs.write", map[string]string{"path": "d.txt", "content": "d\n"}, nil)
	if b, _ := os.ReadFile(filepath.Join(w.ws, "d.txt")); string(b) != "d\n" {
		t.Fatal("a broken store blocked the call")
	}
	c := w.change(t, fourth.CallID)
	if !strings.Contains(c.Error, "without a checkpoint") {
		t.Fatalf("error: %q", c.Error)
	}
	if _, err := w.tr.Undo(context.Background(), fourth.CallID, false); err == nil || !strings.Contains(err.Error(), "no checkpoint") {
		t.Fatalf("undo of a call without a checkpoint: %v", err)
	}
}

// Undo of an unknown call or of one that changed nothing explains itself.
func TestUndoNotFound(t *testing.T) {
	w := newWorld(t)
	quiet := w.shell(t, "true", nil)
	var nf *NotFoundError
	for _, id := range []string{"nope", quiet.CallID} {
		if _, err := w.tr.Undo(context.Background(), id, false); !errors.As(err, &nf) {
			t.Fatalf("undo %s: %v", id, err)
		}
	}
	if _, err := w.tr.Undo(context.Background(), quiet.CallID, false); !strings.Contains(err.Error(), "changed no file") {
		t.Fatalf("undo of a quiet call: %v", err)
	}
	_ = policy.OnRequest
}

// An edited shadow configuration (an fsmonitor command, a hooks folder)
// runs nothing: the configuration is rewritten before every snapshot and
// the security settings are repeated on git's command line.
func TestTamperedShadowRepoRunsNothing(t *testing.T) {
	w := newWorld(t)
	w.call(t, "fs.write", map[string]string{"path": "a.txt", "content": "a\n"}, nil)
	r, _ := w.tr.Repo(context.Background(), w.ws)
	marker := filepath.Join(w.outside, "ran")
	hooks := filepath.Join(r.dir, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho ran >> " + marker + "\n"
	for _, h := range []string{"post-index-change", "post-checkout", "fsmonitor"} {
		if err := os.WriteFile(filepath.Join(hooks, h), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	evil := fmt.Sprintf("[core]\n\tfsmonitor = %s\n\thooksPath = %s\n[filter \"x\"]\n\tclean = %s\n", filepath.Join(hooks, "fsmonitor"), hooks, filepath.Join(hooks, "fsmonitor"))
	if err := os.WriteFile(filepath.Join(r.gitDir, "config"), []byte(evil), 0o600); err != nil {
		t.Fatal(err)
	}
	writeTree(t, w.ws, map[string]string{".gitattributes": "* filter=x\n"})
	out := w.call(t, "fs.write", map[string]string{"path": "b.txt", "content": "b\n"}, nil)
	if _, err := w.tr.Undo(context.Background(), out.CallID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("a command planted in the shadow repository ran")
	}
}

// An undo never writes through a symlink made after the call: a folder
// replaced by a link out of the workspace stops it, in words, and nothing
// lands outside.
func TestUndoNeverWritesThroughALaterSymlink(t *testing.T) {
	w := newWorld(t)
	writeTree(t, w.ws, map[string]string{"src/x.txt": "x\n"})
	out := w.shell(t, "rm -rf src", human{yes: true})
	if err := os.Symlink(w.outside, filepath.Join(w.ws, "src")); err != nil {
		t.Fatal(err)
	}
	_, err := w.tr.Undo(context.Background(), out.CallID, true)
	if err == nil || !strings.Contains(err.Error(), "src is not a folder now") {
		t.Fatalf("undo through a symlink: %v", err)
	}
	if ents, _ := os.ReadDir(w.outside); len(ents) != 0 {
		t.Fatalf("the undo wrote outside the workspace: %v", ents)
	}
	if l, err := os.Readlink(filepath.Join(w.ws, "src")); err != nil || l != w.outside {
		t.Fatalf("the symlink was touched: %q %v", l, err)
	}
}
