package readers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shapeEntries are what a fuzzed folder may hold, each in a few forms.
var shapeEntries = []struct {
	name  string
	forms []func(dir, p string) error
}{
	{"HEAD", []func(dir, p string) error{
		file("ref: refs/heads/main\n"), file("ref:refs/heads/x\n"), file("ref: heads/main\n"), file("0123456789abcdef0123456789abcdef01234567\n"),
		file("0123456789abcdef0123456789abcdef0123456\n"), file("0123456789abcdef0123456789abcdef01234567 junk\n"), file(""),
		link("refs/heads/main"), link("../elsewhere"), mkdir, file("ref: refs/heads/main"),
		file("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"),
	}},
	{"objects", []func(dir, p string) error{mkdir, file("x"), link("other/objects"), link("nowhere")}},
	{"refs", []func(dir, p string) error{mkdir, file("x"), link("other/refs"), link("nowhere")}},
	{"commondir", []func(dir, p string) error{file("other\n"), file("other"), file("nowhere\n"), file("\n"), mkdir}},
	{"config", []func(dir, p string) error{file("[core]\n\tbare = true\n"), mkdir}},
	{"other/objects", []func(dir, p string) error{mkdir}},
	{"other/refs", []func(dir, p string) error{mkdir}},
}

func file(content string) func(dir, p string) error {
	return func(_, p string) error { return os.WriteFile(p, []byte(content), 0o644) }
}

func link(target string) func(dir, p string) error {
	return func(_, p string) error { return os.Symlink(target, p) }
}

func mkdir(_, p string) error { return os.MkdirAll(p, 0o755) }

// FuzzGitDirShapes lays out a folder from the input (which entries exist,
// in which form) and checks the discovery rules against real git: git run
// in the folder, with discovery stopped above it, takes the folder itself
// for its gitdir exactly when IsGitDir says so; and LooksLikeGitDir, the
// walk's cheap first test, never turns down one IsGitDir accepts.
func FuzzGitDirShapes(f *testing.F) {
	for _, seed := range [][]byte{
		{1, 0, 1, 0, 1, 0},                         // HEAD ref, objects, refs: a gitdir
		{1, 0, 1, 0, 0, 0},                         // no refs
		{1, 3, 1, 0, 1, 0},                         // detached HEAD
		{1, 7, 1, 0, 1, 0},                         // HEAD a link into refs
		{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0}, // HEAD + commondir → other
		{1, 4, 1, 0, 1, 0},                         // a short object id
		{1, 0, 1, 2, 1, 2, 0, 0, 0, 0, 1, 0, 1, 0}, // objects and refs links into other
	} {
		f.Add(seed)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		f.Fatal("git is needed: the rules are checked against it")
	}
	f.Fuzz(func(t *testing.T, shape []byte) {
		base := t.TempDir()
		dir := filepath.Join(base, "d")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var laid []string
		for i, e := range shapeEntries {
			if 2*i+1 >= len(shape) || shape[2*i]%2 == 0 {
				continue
			}
			form := e.forms[int(shape[2*i+1])%len(e.forms)]
			p := filepath.Join(dir, e.name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := form(dir, p); err != nil {
				return // an impossible combination (a file under a file)
			}
			laid = append(laid, e.name)
		}
		cmd := exec.Command(git, "rev-parse", "--absolute-git-dir")
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES=" + base}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, _ := cmd.Output()
		gitSays := strings.TrimSpace(string(out)) == dir
		// git takes the folder for a repository and then may still refuse
		// to work in it (a config it cannot read, an unknown format): then
		// it runs nothing either, and IsGitDir's yes is merely cautious.
		refused := !gitSays && !strings.Contains(stderr.String(), "not a git repository")
		if got := IsGitDir(dir); got != gitSays && !(got && refused) {
			t.Fatalf("layout %v: IsGitDir = %v, git takes the folder for its gitdir: %v (%q %q)", laid, got, gitSays, out, stderr.String())
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if IsGitDir(dir) && !LooksLikeGitDir(ents) {
			t.Fatalf("layout %v: LooksLikeGitDir turns down a gitdir", laid)
		}
	})
}
