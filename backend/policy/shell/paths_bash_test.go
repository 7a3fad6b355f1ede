package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestResolvedPathsMatchBash asserts on the outside world: real bash runs
// each command in a workspace holding real symbolic links, and the file it
// writes is the one the classifier named, found through ResolveLinks with
// os.Readlink. The same commands classified without the links name a
// different file, so the test cannot pass by lexical luck.
func TestResolvedPathsMatchBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is part of the machine: %v", err)
	}
	cases := []struct {
		name, cmd, file string // file: where the write lands, relative to the test root
		lexicalSame     bool   // the lexical answer is right too (a twin)
	}{
		{"through-dir-link", "echo x > out/a", "outside/a", false},
		{"link-chain", "echo x > chain/b", "outside/b", false},
		{"file-link", "echo x >> log", "outside/log.txt", false},
		{"cd-into-link", "cd out && echo x > c", "outside/c", false},
		{"dotdot-after-cd-link", "cd deep && echo x > ../d", "outside/d", false},
		{"dotdot-through-link", "echo x > deep/../e", "outside/e", false},
		{"relative-link-up", "echo x > up/f", "f", false},
		{"proc-self-cwd", "echo x > /proc/self/cwd/../outside/g", "outside/g", true},
		{"made-link", "ln -s ../outside m && echo x > m/h", "outside/h", true},
		{"made-link-cd-P", "ln -s ../outside n && cd -P n && echo x > ../i", "i", true},
		{"fd-reopened", "exec 3< out/j0; echo x > /dev/fd/3", "outside/j0", false},
		{"tee-through-link", "echo x | tee out/k >/dev/null", "outside/k", false},
		{"cp-into-dir-link", "cp src.txt out", "outside/src.txt", false},
		{"plain-twin", "echo x > plain", "ws/plain", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			root, err := filepath.EvalSymlinks(root)
			if err != nil {
				t.Fatal(err)
			}
			ws := filepath.Join(root, "ws")
			for _, d := range []string{ws, filepath.Join(root, "outside", "deep")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range map[string]string{
				"out": "../outside", "chain": "hop", "hop": filepath.Join(root, "outside"),
				"log": "../outside/log.txt", "deep": "../outside/deep", "up": "..",
			} {
				if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{filepath.Join(root, "outside", "j0"), filepath.Join(ws, "src.txt")} {
				if err := os.WriteFile(f, []byte("0\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := filepath.Join(root, c.file)
			links := ResolveLinks(c.cmd, ws, os.Readlink)
			got := ClassifyWith(c.cmd, ws, links)
			if !slices.Contains(got.Writes, want) {
				t.Errorf("classifier writes %q, want %s (links %v)", got.Writes, want, links)
			}
			if plain := Classify(c.cmd, ws); !c.lexicalSame && slices.Contains(plain.Writes, want) {
				t.Errorf("without the links the classifier already names %s: the case does not test links", want)
			}
			run := exec.Command(bash, "-c", c.cmd)
			run.Dir = ws
			if out, err := run.CombinedOutput(); err != nil {
				t.Fatalf("bash: %v %s", err, out)
			}
			if _, err := os.Lstat(want); err != nil {
				t.Errorf("bash did not write %s: %v", want, err)
			}
			if fi, err := os.Lstat(want); err == nil && fi.Mode()&os.ModeSymlink != 0 && !strings.HasSuffix(c.file, "log.txt") {
				t.Errorf("%s is a link, not the file written", want)
			}
		})
	}
}

// TestResolveLinksBounded: a link loop and a long chain end in bounded work.
func TestResolveLinksBounded(t *testing.T) {
	calls := 0
	readlink := func(p string) (string, error) {
		calls++
		if strings.HasSuffix(p, "/loop") {
			return "loop", nil
		}
		if strings.Contains(p, "/c") {
			return p + "x", nil // an endless chain of new names
		}
		return "", os.ErrInvalid
	}
	for _, cmd := range []string{"echo x > loop/a", "echo x > c/a", strings.Repeat("echo x > c/a; ", 200)} {
		calls = 0
		links := ResolveLinks(cmd, "/work/ws", readlink)
		got := ClassifyWith(cmd, "/work/ws", links)
		if got.Class != ClassUnknown {
			t.Errorf("%.40q: %s, want unknown (the link cannot be followed to its end)", cmd, got.Class)
		}
		if calls > 4096 {
			t.Errorf("%.40q: %d readlink calls", cmd, calls)
		}
	}
}
