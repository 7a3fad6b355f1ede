package checkpoint

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIsGitDirAgreesWithGit: the open of a shadow store checks the folder
// without starting git; on every shape of store, damaged or not, the check
// says what `git rev-parse --git-dir` itself says.
func TestIsGitDirAgreesWithGit(t *testing.T) {
	sha1 := strings.Repeat("a1", 20)
	cases := []struct {
		name string
		head string // "" leaves HEAD absent
		// what to do to the folder after git init
		change func(t *testing.T, dir string)
		want   bool
	}{
		{name: "fresh store", head: "ref: refs/heads/main\n", want: true},
		{name: "symbolic ref without a space", head: "ref:refs/heads/main\n", want: true},
		{name: "detached at a sha1", head: sha1 + "\n", want: true},
		{name: "detached without a newline", head: sha1, want: true},
		{name: "garbage HEAD", head: "garbage", want: false},
		{name: "empty HEAD", head: "\n", want: false},
		{name: "symbolic ref outside refs/", head: "ref: heads/main\n", want: false},
		{name: "short object id", head: sha1[:39] + "\n", want: false},
		{name: "upper-case object id", head: strings.ToUpper(sha1) + "\n", want: true},
		{name: "no HEAD", want: false},
		{name: "objects removed", head: "ref: refs/heads/main\n", want: false,
			change: func(t *testing.T, dir string) { must(t, os.RemoveAll(filepath.Join(dir, "objects"))) }},
		{name: "objects is a file", head: "ref: refs/heads/main\n", want: false,
			change: func(t *testing.T, dir string) {
				must(t, os.RemoveAll(filepath.Join(dir, "objects")))
				write(t, filepath.Join(dir, "objects"), "not a folder")
			}},
		{name: "refs removed", head: "ref: refs/heads/main\n", want: false,
			change: func(t *testing.T, dir string) { must(t, os.RemoveAll(filepath.Join(dir, "refs"))) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "git")
			if out, err := exec.Command("git", "init", "-q", "--bare", "--template=", dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			if tc.change != nil {
				tc.change(t, dir)
			}
			if tc.head == "" {
				must(t, os.Remove(filepath.Join(dir, "HEAD")))
			} else {
				write(t, filepath.Join(dir, "HEAD"), tc.head)
			}
			got := isGitDir(dir)
			if got != tc.want {
				t.Errorf("isGitDir = %v, want %v", got, tc.want)
			}
			cmd := exec.Command("git", "--git-dir="+dir, "rev-parse", "--git-dir")
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
			gitSays := cmd.Run() == nil
			if got != gitSays {
				t.Errorf("isGitDir = %v, git rev-parse --git-dir succeeds = %v", got, gitSays)
			}
		})
	}
}
