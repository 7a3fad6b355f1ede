//go:build !wardenslim

package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// userCacheSeeds are the toolchains' own cache folders in a home folder,
// each seeded with a file, whose bytes and inode times a caged build must
// leave as they were.
var userCacheSeeds = []string{
	".cache/go-build", "go/pkg/mod", ".npm", ".cache/pip", ".cargo/registry", ".m2/repository",
	".gradle/caches", ".cache/yarn", ".local/share/pnpm", ".yarn/berry",
}

// TestToolchainsRunInTheDefaultCage runs the ordinary build and test
// commands of real projects (a Go module, a Node package, a Python
// package under unittest and pytest, a Rust crate offline, make, git)
// through `warden tool` in the default cage — workspace-write, on
// request — and checks that every one exits 0 without an ask, that the
// second `go test` comes from the cage's persistent build cache, and that
// the user's own cache folders are byte-for-byte and inode-for-inode what
// they were.
func TestToolchainsRunInTheDefaultCage(t *testing.T) {
	realHome, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	isolateHome(t)
	home := cagedDir(t, "_toolchain-home-")
	for _, rel := range userCacheSeeds {
		p := filepath.Join(home, rel, "seed")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("the user's own "+rel+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// rustup's proxies find the toolchains under $HOME/.rustup.
	if fi, err := os.Stat(filepath.Join(realHome, ".rustup")); err == nil && fi.IsDir() {
		if err := os.Symlink(filepath.Join(realHome, ".rustup"), filepath.Join(home, ".rustup")); err != nil {
			t.Fatal(err)
		}
	}
	// The cage's caches persist between runs of this test (the first one
	// builds Go's standard library, minutes on a busy machine): Warden's
	// cache folder is a fixed one of the test's, outside the home folder.
	xdg := filepath.Join(realHome, ".cache", "warden-cage-test", "toolchain-xdg-cache")
	if err := os.MkdirAll(xdg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "CARGO_HOME", "RUSTUP_HOME", "npm_config_cache", "GOFLAGS"} {
		t.Setenv(v, "")
	}
	t.Setenv("XDG_CACHE_HOME", xdg)
	before := snapshotTrees(t, home, userCacheSeeds)

	ws := cagedDir(t, "_toolchain-ws-")
	if out, err := exec.Command("cp", "-r", "testdata/projects/.", ws).CombinedOutput(); err != nil {
		t.Fatalf("copy the projects: %v %s", err, out)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	db := filepath.Join(t.TempDir(), "w.db")
	cases := []struct {
		name, cwd, command, want string
	}{
		{"go vet, test, build, run", "gomod", "go vet ./... && go test ./... && go build -o bin/calc . && ./bin/calc && go run .", "sum 5"},
		{"go test again, from the cage's cache", "gomod", "go test ./...", "(cached)"},
		{"npm test and a build script", "node", "npm test && npm run build && test -f dist/add.js", "built dist/add.js"},
		{"python unittest", "python", "/usr/bin/python3 -m unittest discover -v", "OK"},
		{"pytest", "python", "/usr/bin/python3 -m pytest -q -p no:cacheprovider", "passed"},
		{"cargo offline", "rust/hello", "cargo build --offline && cargo test --offline && cargo run --offline", "hello cage"},
		{"make", "make", "make && make test && ./hello && make clean", "hello from make"},
		{"git add and commit", "", "git add -A && git commit -qm 'from the cage' && git log --oneline -1", "from the cage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]any{"command": tc.command, "cwd": tc.cwd, "timeout_ms": 900000})
			r := runToolCLI(t, "shell.exec", "--workspace", ws, "--db", db, "--args", string(args))
			var res struct {
				ExitCode int          `json:"exit_code"`
				Stdout   string       `json:"stdout"`
				Stderr   string       `json:"stderr"`
				Confined bool         `json:"confined"`
				Cage     *policy.Cage `json:"cage"`
			}
			_ = json.Unmarshal(r.out.Result.Structured, &res)
			if r.code != 0 || r.out.Decision == nil || r.out.Decision.Verdict != policy.VerdictAllow || !res.Confined {
				t.Fatalf("exit %d, decision %+v, confined %v\nstdout: %s\nstderr: %s\n%s", r.code, r.out.Decision, res.Confined, res.Stdout, res.Stderr, r.stderr)
			}
			if !strings.Contains(res.Stdout+res.Stderr, tc.want) {
				t.Fatalf("%q not in the output:\nstdout: %s\nstderr: %s", tc.want, res.Stdout, res.Stderr)
			}
			if res.Cage == nil || res.Cage.Shape != policy.CageWorkspaceWrite {
				t.Fatalf("ran in %+v, want the workspace-write cage", res.Cage)
			}
		})
	}
	after := snapshotTrees(t, home, userCacheSeeds)
	if diff := diffSnapshots(before, after); diff != "" {
		t.Fatalf("the user's own caches changed:\n%s", diff)
	}
	// The builds used the cage's caches instead.
	root := filepath.Join(xdg, "warden-cage")
	for _, d := range []string{"go-build", "npm"} {
		ents, err := os.ReadDir(filepath.Join(root, d))
		if err != nil || len(ents) == 0 {
			t.Errorf("the cage's %s cache is empty: %v", d, err)
		}
	}
}

// snapshotTrees records, for every entry below home/rel, its kind, mode,
// size, content hash and inode change time: any write, chmod, rename or
// new entry shows.
func snapshotTrees(t *testing.T, home string, rels []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rel := range rels {
		root := filepath.Join(home, rel)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			st := fi.Sys().(*syscall.Stat_t)
			sum := ""
			if fi.Mode().IsRegular() {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				sum = fmt.Sprintf("%x", sha256.Sum256(b))
			}
			out[p] = fmt.Sprintf("%v %d %s ctime=%d.%d mtime=%d", fi.Mode(), fi.Size(), sum, st.Ctim.Sec, st.Ctim.Nsec, fi.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func diffSnapshots(a, b map[string]string) string {
	var lines []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			lines = append(lines, "removed "+k)
		} else if v != w {
			lines = append(lines, "changed "+k+": "+v+" -> "+w)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			lines = append(lines, "added "+k)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
