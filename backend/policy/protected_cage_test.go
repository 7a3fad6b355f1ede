package policy

import (
	"strings"
	"testing"
)

// TestCageProtected is what the OS cage asks of each real entry it finds.
func TestCageProtected(t *testing.T) {
	ws := "/w"
	tests := []struct {
		name  string
		path  string
		isDir bool
		want  bool
	}{
		{"root hooks", "/w/.git/hooks", true, true},
		{"root config", "/w/.git/config", false, true},
		{"root commondir", "/w/.git/commondir", false, true},
		{"root info", "/w/.git/info", true, true},
		{"info exclude", "/w/.git/info/exclude", false, true},
		{"worktree commondir", "/w/.git/worktrees/x/commondir", false, true},
		{"worktree config.worktree", "/w/.git/worktrees/x/config.worktree", false, true},
		{"submodule hooks", "/w/.git/modules/m/hooks/pre-commit", false, true},
		{"nested submodule config", "/w/.git/modules/a/modules/b/config", false, true},
		{"nested submodule commondir", "/w/.git/modules/a/modules/b/commondir", false, true},
		{"nested repo hooks", "/w/vendor/lib/.git/hooks", true, true},
		{"nested repo commondir", "/w/vendor/lib/.git/commondir", false, true},
		{"gitdir file", "/w/sub/.git", false, true},
		{"git folder itself", "/w/sub/.git", true, false},
		{"objects stay writable", "/w/.git/objects/ab", true, false},
		{"index stays writable", "/w/.git/index", false, false},
		{"worktree HEAD stays writable", "/w/.git/worktrees/x/HEAD", false, false},
		{"refs stay writable", "/w/.git/refs/heads/main", false, false},
		{"envrc at depth", "/w/a/b/.envrc", false, true},
		{"vscode at depth", "/w/pkg/.vscode", true, true},
		{"submodule gitdir with a slash in its name", "/w/.git/modules/a/b/config", false, true},
		{"branch named hooks", "/w/.git/refs/heads/hooks", false, false},
		{"objects info", "/w/.git/objects/info", true, false},
		{"bare repository hook", "/w/remote.git/hooks/post-receive", false, true},
		{"bare repository config", "/w/remote.git/config", false, true},
		{"bare repository objects", "/w/remote.git/objects/ab", true, false},
		{"bare repository folder itself", "/w/remote.git", true, false},
		{"a file named like a bare repository", "/w/notes.git", false, false},
		{"plain file", "/w/src/main.go", false, false},
		{"a file named commondir outside git", "/w/docs/commondir", false, false},
		{"workspace itself under a .vscode folder", "/w", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CageProtected(tc.path, ws, tc.isDir); got != tc.want {
				t.Fatalf("CageProtected(%q, dir=%v) = %v, want %v", tc.path, tc.isDir, got, tc.want)
			}
		})
	}
}

func TestGitInitConfigKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"core.repositoryformatversion", true},
		{"core.bare", true},
		{"core.logallrefupdates", true},
		{"extensions.objectformat", true},
		{"remote.origin.url", true},
		{"remote.my.fork.fetch", true},
		{"branch.main.remote", true},
		{"branch.feature/x.merge", true},
		{"core.fsmonitor", false},
		{"core.hooksPath", false},
		{"core.pager", false},
		{"core.sshCommand", false},
		{"remote.origin.uploadpack", false},
		{"include.path", false},
		{"includeif.gitdir:/x.path", false},
		{"filter.lfs.smudge", false},
		{"alias.st", false},
		{"diff.x.textconv", false},
		{"remote.url", false},
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			if got := GitInitConfigKey(tc.key); got != tc.want {
				t.Fatalf("GitInitConfigKey(%q) = %v, want %v", tc.key, got, tc.want)
			}
		})
	}
}

func TestGitInitEntry(t *testing.T) {
	for rel, want := range map[string]bool{
		"hooks": true, "hooks/pre-commit.sample": true, "info": true, "info/exclude": true, "config": true,
		"hooks/pre-commit": false, "hooks/sub/x.sample": false, "commondir": false, "config.worktree": false,
		"info/attributes": false, "modules/m/config": false,
	} {
		if got := GitInitEntry(rel); got != want {
			t.Errorf("GitInitEntry(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestSplitGitdir: the cage finds the gitdir of a new entry by the same walk
// that protects it, so every gitdir shape the rule knows (nested submodule
// names included) splits at the metadata entry.
func TestSplitGitdir(t *testing.T) {
	for _, tc := range []struct{ path, gitdir, rel string }{
		{"/w/.git/hooks/pre-commit.sample", "/w/.git", "hooks/pre-commit.sample"},
		{"/w/.git/config", "/w/.git", "config"},
		{"/w/.git/info/exclude", "/w/.git", "info/exclude"},
		{"/w/.git/worktrees/x/commondir", "/w/.git/worktrees/x", "commondir"},
		{"/w/.git/modules/a/modules/b/hooks", "/w/.git/modules/a/modules/b", "hooks"},
		{"/w/.git/modules/a/b/config", "/w/.git/modules/a/b", "config"},
		{"/w/vendor/x/.git/info", "/w/vendor/x/.git", "info"},
		{"/w/remote.git/hooks/post-receive", "/w/remote.git", "hooks/post-receive"},
		{"/w/.git/refs/heads/hooks", "", ""},
		{"/w/.git/objects/info/packs", "", ""},
		{"/w/sub/.envrc", "", ""},
		{"/w/src/config", "", ""},
	} {
		g, rel, ok := SplitGitdir(tc.path)
		if g != tc.gitdir || rel != tc.rel || ok != (tc.gitdir != "") {
			t.Errorf("SplitGitdir(%q) = %q, %q, %v; want %q, %q", tc.path, g, rel, ok, tc.gitdir, tc.rel)
		}
	}
	// Agreement with GitMetaNames at every gitdir shape.
	for _, gitdir := range []string{"/w/.git", "/w/.git/worktrees/wt", "/w/.git/modules/lib", "/w/.git/modules/a/modules/b", "/w/vendor/x/.git", "/w/remote.git"} {
		for _, n := range GitMetaNames() {
			g, rel, ok := SplitGitdir(gitdir + "/" + n.Name)
			if !ok || g != gitdir || rel != n.Name {
				t.Errorf("SplitGitdir(%s/%s) = %q, %q, %v", gitdir, n.Name, g, rel, ok)
			}
		}
	}
}

func FuzzCageProtected(f *testing.F) {
	for _, p := range []string{"/w/.git/hooks", "/w/a/.git", "/w/.git/modules/a/modules/b/commondir", "/w//.git///config", "/w/.git/worktrees"} {
		f.Add(p, true)
	}
	f.Fuzz(func(t *testing.T, p string, isDir bool) {
		got := CageProtected(p, "/w", isDir)
		// Whatever ProtectedTier protects, the cage protects too.
		if cage, _ := ProtectedTier(p, "/w"); cage && !got {
			t.Fatalf("%q: the engine protects it, the cage does not", p)
		}
		// A split gitdir is a prefix of the path and its rest is protected.
		if g, rel, ok := SplitGitdir(p); ok {
			if !strings.HasPrefix(p, g) || !strings.HasSuffix(p, rel) || !cageProtected(p) {
				t.Fatalf("SplitGitdir(%q) = %q, %q", p, g, rel)
			}
		}
	})
}
