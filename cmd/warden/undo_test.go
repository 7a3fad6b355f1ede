//go:build !wardenslim

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/checkpoint"
)

func undoCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// treeState describes every entry under root except .git: path, mode, and
// content or link target hash.
func treeState(t *testing.T, root string, skipGit bool) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if skipGit && rel == ".git" {
			return filepath.SkipDir
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sum := ""
		if st.Mode()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			sum = "-> " + l
		} else if st.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		lines = append(lines, fmt.Sprintf("%s %v %s", rel, st.Mode(), sum))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func cliWorkspace(t *testing.T) (ws, db string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the audit key, the user config
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws, filepath.Join(t.TempDir(), "warden.db")
}

func mustWrite(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// `warden tool shell.exec rm -rf src`, `warden changes`, `warden undo`:
// every file comes back byte for byte with its mode and symlinks, and the
// user's .git is byte-identical throughout.
func TestUndoCommandRestoresRmRf(t *testing.T) {
	ws, db := cliWorkspace(t)
	mustWrite(t, filepath.Join(ws, "src", "main.go"), "package main\n", 0o644)
	mustWrite(t, filepath.Join(ws, "src", "tool.sh"), "#!/bin/sh\n", 0o755)
	mustWrite(t, filepath.Join(ws, "src", "a", "b", "c.bin"), "\x00\x01\x02binary", 0o644)
	if err := os.Symlink("main.go", filepath.Join(ws, "src", "link")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
	for _, a := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "i"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, a...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", a, err, out)
		}
	}
	want, gitWant := treeState(t, ws, true), treeState(t, filepath.Join(ws, ".git"), false)

	r := runToolCLI(t, "shell.exec", "--args", `{"command":"rm -rf src"}`, "--workspace", ws, "--db", db, "--approval", "never")
	if r.code != 0 {
		t.Fatalf("warden tool: %d %s %+v", r.code, r.stderr, r.out.Result)
	}
	if _, err := os.Lstat(filepath.Join(ws, "src")); !os.IsNotExist(err) {
		t.Fatal("rm -rf src did not run")
	}
	code, out, errs := undoCLI(t, "changes", "--session", r.out.SessionID, "--db", db, "--json")
	if code != 0 {
		t.Fatalf("changes: %d %s", code, errs)
	}
	var list []checkpoint.Change
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(list) != 1 || list[0].CallID != r.out.CallID || len(list[0].Files) != 4 {
		t.Fatalf("changes: %s", out)
	}
	code, out, _ = undoCLI(t, "changes", "--session", r.out.SessionID, "--db", db)
	if code != 0 || !strings.Contains(out, "4 files changed: src/a/b/c.bin (deleted, binary") {
		t.Fatalf("changes (text): %d\n%s", code, out)
	}

	code, out, errs = undoCLI(t, "undo", r.out.CallID, "--db", db)
	if code != 0 {
		t.Fatalf("undo: %d %s", code, errs)
	}
	if !strings.Contains(out, "4 file(s) put back") {
		t.Errorf("undo said: %s", out)
	}
	if got := treeState(t, ws, true); got != want {
		t.Fatalf("after undo:\n got %s\nwant %s", got, want)
	}
	if got := treeState(t, filepath.Join(ws, ".git"), false); got != gitWant {
		t.Fatalf("the user's .git changed")
	}
}

// A later call over the same file makes undo refuse in words, exit 1,
// leaving the file; --force overwrites.
func TestUndoCommandConflictAndErrors(t *testing.T) {
	ws, db := cliWorkspace(t)
	first := runToolCLI(t, "fs.write", "--args", `{"path":"a.txt","content":"one\n"}`, "--workspace", ws, "--db", db, "--approval", "never")
	second := runToolCLI(t, "fs.write", "--args", `{"path":"a.txt","content":"two\n"}`, "--workspace", ws, "--db", db, "--approval", "never")
	if first.code != 0 || second.code != 0 {
		t.Fatalf("writes: %s %s", first.stderr, second.stderr)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"later call refuses", []string{"undo", first.out.CallID, "--db", db}, 1, "changed again after " + first.out.CallID},
		{"names the later call", []string{"undo", first.out.CallID, "--db", db}, 1, "fs.write call " + second.out.CallID},
		{"unknown call", []string{"undo", "no-such-call", "--db", db}, 1, "no such call"},
		{"no call id", []string{"undo", "--db", db}, 2, "Usage: warden undo"},
		{"restore-to without session", []string{"undo", "--restore-to", "m1", "--db", db}, 2, "--restore-to takes --session"},
		{"changes without session", []string{"changes", "--db", db}, 2, "--session is required"},
		{"changes of an unknown session", []string{"changes", "--session", "nope", "--db", db}, 1, "session nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := undoCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Fatalf("exit %d (want %d)\n%s%s\nwant %q", code, tc.code, out, errs, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "two\n" {
		t.Fatalf("a refused undo changed a.txt: %q", b)
	}
	if code, _, errs := undoCLI(t, "undo", second.out.CallID, "--db", db); code != 0 {
		t.Fatalf("undo of the latest call: %s", errs)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one\n" {
		t.Fatalf("after undo of the second write: %q", b)
	}
	mustWrite(t, filepath.Join(ws, "a.txt"), "three\n", 0o644)
	if code, _, errs := undoCLI(t, "undo", first.out.CallID, "--db", db, "--force"); code != 0 {
		t.Fatalf("undo --force: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); !os.IsNotExist(err) {
		t.Fatal("undo of the call that created a.txt left it")
	}
}
