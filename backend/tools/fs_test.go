package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

func TestFsRead(t *testing.T) {
	env := testEnv(t)
	ws := env.Workspace
	writeFile(t, filepath.Join(ws, "a.txt"), "one\ntwo\nthree\n")
	var long strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	writeFile(t, filepath.Join(ws, "long.txt"), long.String())
	writeFile(t, filepath.Join(ws, "wide.txt"), strings.Repeat("é", 3000)+"\n")
	writeFile(t, filepath.Join(ws, "empty.txt"), "")
	if err := os.WriteFile(filepath.Join(ws, "bin.dat"), []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "latin1.txt"), []byte("caf\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		isErr      bool
		contains   []string
		absent     []string
	}{
		{"numbered lines", `{"path":"a.txt"}`, false, []string{"     1\tone\n", "     3\tthree"}, nil},
		{"offset and limit", `{"path":"a.txt","offset":2,"limit":1}`, false, []string{"     2\ttwo", "call fs.read again with offset=3"}, []string{"one", "three"}},
		{"large file paged", `{"path":"long.txt"}`, false, []string{"  2000\tline 2000", "lines 1-2000 shown", "offset=2001"}, []string{"line 2001"}},
		{"second page", `{"path":"long.txt","offset":2001}`, false, []string{"  3000\tline 3000"}, []string{"again"}},
		{"long line cut", `{"path":"wide.txt"}`, false, []string{"[line truncated]"}, nil},
		{"empty file", `{"path":"empty.txt"}`, false, []string{"empty.txt is empty"}, nil},
		{"binary refused", `{"path":"bin.dat"}`, true, []string{"bin.dat is a binary file (7 bytes"}, nil},
		{"invalid utf-8 refused", `{"path":"latin1.txt"}`, true, []string{"binary file"}, nil},
		{"nonexistent", `{"path":"nope.txt"}`, true, []string{"nope.txt does not exist"}, nil},
		{"directory", `{"path":"."}`, true, []string{"is a directory; use fs.list"}, nil},
		{"offset past the end", `{"path":"a.txt","offset":10}`, true, []string{"offset 10 is past the end"}, nil},
		{"missing path", `{}`, true, []string{`missing required argument "path"`}, nil},
		{"wrong type", `{"path":"a.txt","limit":"x"}`, true, []string{`"limit" must be a JSON integer`}, nil},
		{"negative offset", `{"path":"a.txt","offset":-1}`, true, []string{"must not be negative"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := invoke(t, NewFsRead(), env, tc.args)
			got := text(r)
			if r.IsError != tc.isErr {
				t.Fatalf("IsError=%v: %s", r.IsError, got)
			}
			for _, c := range tc.contains {
				if !strings.Contains(got, c) {
					t.Errorf("missing %q in:\n%.300s", c, got)
				}
			}
			for _, c := range tc.absent {
				if strings.Contains(got, c) {
					t.Errorf("unexpected %q in:\n%.300s", c, got)
				}
			}
		})
	}
}

func TestFsReadEffectsSeeThroughSymlinks(t *testing.T) {
	env := testEnv(t)
	out := workspace(t)
	if err := os.Symlink(out, filepath.Join(env.Workspace, "link")); err != nil {
		t.Fatal(err)
	}
	eff, err := NewFsRead().Effects(json.RawMessage(`{"path":"link/secret"}`), env)
	if err != nil || eff[0].Kind != policy.EffectRead || eff[0].Paths[0] != filepath.Join(out, "secret") {
		t.Fatalf("effects %+v %v", eff, err)
	}
}

func TestFsWrite(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, ws string)
		args    string
		isErr   bool
		message string
		check   func(t *testing.T, ws string)
	}{
		{
			name: "create", args: `{"path":"new.txt","content":"hello\n"}`, message: "created new.txt (6 bytes)",
			check: func(t *testing.T, ws string) {
				if readFile(t, filepath.Join(ws, "new.txt")) != "hello\n" {
					t.Fatal("content")
				}
			},
		},
		{
			name: "replace keeps the mode",
			setup: func(t *testing.T, ws string) {
				writeFile(t, filepath.Join(ws, "run.sh"), "old")
				_ = os.Chmod(filepath.Join(ws, "run.sh"), 0o755)
			},
			args: `{"path":"run.sh","content":"new"}`, message: "replaced run.sh",
			check: func(t *testing.T, ws string) {
				fi, _ := os.Stat(filepath.Join(ws, "run.sh"))
				if readFile(t, filepath.Join(ws, "run.sh")) != "new" || fi.Mode().Perm() != 0o755 {
					t.Fatalf("content or mode %v", fi.Mode())
				}
			},
		},
		{
			name: "create_dirs", args: `{"path":"a/b/c.txt","content":"x","create_dirs":true}`, message: "created a/b/c.txt",
			check: func(t *testing.T, ws string) {
				if readFile(t, filepath.Join(ws, "a/b/c.txt")) != "x" {
					t.Fatal("content")
				}
			},
		},
		{
			name: "missing directory", args: `{"path":"a/b/c.txt","content":"x"}`, isErr: true, message: "directory a/b does not exist (set create_dirs",
			check: func(t *testing.T, ws string) {
				if exists(filepath.Join(ws, "a")) {
					t.Fatal("partial write")
				}
			},
		},
		{
			name: "onto a directory", setup: func(t *testing.T, ws string) { _ = os.Mkdir(filepath.Join(ws, "d"), 0o755) },
			args: `{"path":"d","content":"x"}`, isErr: true, message: "d exists and is not a regular file",
		},
		{name: "missing content", args: `{"path":"x"}`, isErr: true, message: `missing required argument "content"`},
		{name: "wrong type", args: `{"path":"x","content":5}`, isErr: true, message: `"content" must be a JSON string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			if tc.setup != nil {
				tc.setup(t, env.Workspace)
			}
			r := invoke(t, NewFsWrite(), env, tc.args)
			if r.IsError != tc.isErr || !strings.Contains(text(r), tc.message) {
				t.Fatalf("got %v %q, want %v %q", r.IsError, text(r), tc.isErr, tc.message)
			}
			if tc.check != nil {
				tc.check(t, env.Workspace)
			}
			// Atomic writes leave no temp files behind.
			_ = filepath.WalkDir(env.Workspace, func(p string, d os.DirEntry, err error) error {
				if strings.Contains(p, ".warden-") {
					t.Errorf("temp file left: %s", p)
				}
				return nil
			})
		})
	}
}

func TestFsWritePreview(t *testing.T) {
	env := testEnv(t)
	writeFile(t, filepath.Join(env.Workspace, "a.txt"), "one\ntwo\nthree\n")
	w := NewFsWrite()
	tests := []struct{ name, args, want string }{
		{"diff against the old content", `{"path":"a.txt","content":"one\nTWO\nthree\n"}`, "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"},
		{"new file", `{"path":"n.txt","content":"x\n"}`, "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n"},
		{"unchanged", `{"path":"a.txt","content":"one\ntwo\nthree\n"}`, "a.txt: content unchanged\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := w.Preview(json.RawMessage(tc.args), env)
			if err != nil || got != tc.want {
				t.Fatalf("Preview = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestFsList(t *testing.T) {
	env := testEnv(t)
	ws := env.Workspace
	gitInit(t, ws)
	writeFile(t, filepath.Join(ws, ".gitignore"), "*.log\nbuild/\n")
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	writeFile(t, filepath.Join(ws, "debug.log"), "x")
	writeFile(t, filepath.Join(ws, "build", "out.bin"), "x")
	writeFile(t, filepath.Join(ws, "src", "lib.go"), "x")
	writeFile(t, filepath.Join(ws, "src", ".gitignore"), "gen_*.go\n")
	writeFile(t, filepath.Join(ws, "src", "gen_x.go"), "x")
	writeFile(t, filepath.Join(ws, "src", "trace.log"), "x")
	writeFile(t, filepath.Join(ws, "src", "deep", "deeper", "f.txt"), "x")
	writeFile(t, filepath.Join(ws, ".env"), "SECRET=1")
	if err := os.Symlink("/etc", filepath.Join(ws, "etc")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		isErr      bool
		contains   []string
		absent     []string
	}{
		{"gitignore respected", `{}`, false, []string{"main.go (13 bytes)", "src/", "lib.go", "deep/", "etc -> /etc"},
			[]string{"debug.log", "build", "gen_x.go", ".env", "deeper", "passwd"}},
		{"hidden on demand, .git not descended", `{"include_hidden":true,"depth":1}`, false, []string{".env", ".git/", ".gitignore"}, []string{"HEAD", "lib.go"}},
		{"depth", `{"depth":4}`, false, []string{"f.txt"}, nil},
		{"subfolder keeps outer ignores", `{"path":"src"}`, false, []string{"lib.go"}, []string{"gen_x.go", "trace.log"}},
		{"nonexistent", `{"path":"nope"}`, true, []string{"nope does not exist"}, nil},
		{"a file", `{"path":"main.go"}`, true, []string{"is a file; use fs.read"}, nil},
		{"depth too large", `{"depth":99}`, true, []string{"depth must be between"}, nil},
		{"wrong type", `{"depth":"2"}`, true, []string{`"depth" must be a JSON integer`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := invoke(t, NewFsList(), env, tc.args)
			got := text(r)
			if r.IsError != tc.isErr {
				t.Fatalf("IsError=%v: %s", r.IsError, got)
			}
			for _, c := range tc.contains {
				if !strings.Contains(got, c) {
					t.Errorf("missing %q in:\n%s", c, got)
				}
			}
			for _, c := range tc.absent {
				if strings.Contains(got, c) {
					t.Errorf("unexpected %q in:\n%s", c, got)
				}
			}
		})
	}
}
