package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// tableExample is where an entry of the one protected list is tried: a
// path (relative to the workspace) for an entry that exists before the
// call, and one for an entry the call creates.
type tableExample struct {
	entry            policy.ProtectedEntry
	existing, create string
	// file is the file written inside a folder entry (relative to it).
	file string
}

func examplesOf(t *testing.T, e policy.ProtectedEntry, i int) (tableExample, bool) {
	t.Helper()
	ex := tableExample{entry: e}
	var rel string
	switch e.Match {
	case policy.MatchName:
		rel = e.Name
	case policy.MatchPrefix:
		rel = e.Name + ".local"
	case policy.MatchUnder:
		rel = filepath.Join(e.Parent, e.Name)
	case policy.MatchGitdir:
		rel = filepath.Join("%GIT%", e.Name)
	case policy.MatchGitFile:
		rel = ".git"
	case policy.MatchWorktreeAdmin:
		rel = filepath.Join("%GIT%", "worktrees", "w")
	case policy.MatchSystem:
		return ex, false // outside every writable root: the engine side only
	default:
		t.Fatalf("entry %+v: unknown match kind", e)
	}
	if e.Dir {
		ex.file = "f"
	}
	ex.existing = filepath.Join(fmt.Sprintf("have%d", i), rel)
	ex.create = filepath.Join(fmt.Sprintf("make%d", i), rel)
	return ex, true
}

// TestProtectedTableBothSides walks the one list of protected paths and
// checks, for every entry, both sides: the engine's tier (a visible write
// to it needs a human) and what a real cage does with a call no human
// approved that writes it through a script — an existing one changed, a
// missing one created — in a workspace laid out like a home folder. An
// entry held read-only ends unchanged and uncreated; one the table leaves
// writable (lockfiles, git's data) is written.
func TestProtectedTableBothSides(t *testing.T) {
	c := newCage(t, Config{})
	ws := testDir(t)
	var exs []tableExample
	var script strings.Builder
	for i, e := range policy.ProtectedTable() {
		// The engine side: a path matching the entry is in its tier.
		probe := filepath.Join("/w/p", e.Name)
		switch e.Match {
		case policy.MatchPrefix:
			probe = filepath.Join("/w/p", e.Name+".local")
		case policy.MatchUnder:
			probe = filepath.Join("/w/p", e.Parent, e.Name)
		case policy.MatchGitdir:
			probe = filepath.Join("/w/p/.git", e.Name)
		case policy.MatchWorktreeAdmin:
			probe = "/w/p/.git/worktrees/w/HEAD"
		case policy.MatchSystem:
			probe = filepath.Join(e.Name, "x")
		}
		if e.Dir && e.Match != policy.MatchWorktreeAdmin && e.Name != ".git" {
			probe = filepath.Join(probe, "f")
		}
		cage, edit := policy.ProtectedTier(probe, "/w")
		if e.Match == policy.MatchGitFile {
			// Only its kind tells a .git file from git's folder.
			cage, edit = policy.CageProtected(probe, "/w", false), true
		}
		if !edit || cage != (e.Tier == policy.TierCage) {
			t.Errorf("engine: %s (%s %q) is cage=%v edit=%v, the table says tier %d", probe, matchName(e.Match), e.Name, cage, edit, e.Tier)
		}
		if e.Reader == "" || e.Why == "" {
			t.Errorf("entry %q names no reader or reason", e.Name)
		}
		ex, ok := examplesOf(t, e, i)
		if !ok {
			continue
		}
		// Lay the example out: a repository for the gitdir entries, the
		// existing entry with content, the parent of the missing one.
		for _, side := range []*string{&ex.existing, &ex.create} {
			if strings.Contains(*side, "%GIT%") {
				repo := filepath.Join(ws, strings.SplitN(*side, "%GIT%", 2)[0])
				if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v %s", err, out)
				}
				*side = strings.Replace(*side, "%GIT%", ".git", 1)
			}
		}
		target := func(p string) string {
			if ex.file != "" {
				return filepath.Join(p, ex.file)
			}
			return p
		}
		existing := filepath.Join(ws, target(ex.existing))
		if err := os.MkdirAll(filepath.Dir(existing), 0o755); err != nil {
			t.Fatal(err)
		}
		if e.Match == policy.MatchGitdir && !e.Dir {
			// git init made it; keep git's content and add a marker line.
			f, err := os.OpenFile(existing, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(f, "# before")
			f.Close()
		} else if e.Match == policy.MatchGitFile {
			if err := os.WriteFile(existing, []byte("gitdir: /nowhere\n# before\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(existing, []byte("# before\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(ex.create)), 0o755); err != nil {
			t.Fatal(err)
		}
		// What the call writes: a line a later reader would act on. In a
		// gitdir's config that is a key git init does not write (the cage
		// keeps a new repository's config but unsets such keys).
		fmt.Fprintf(&script, "printf %q >> %q 2>/dev/null; mkdir -p %q 2>/dev/null; printf %q >> %q 2>/dev/null\n",
			cagedLine, target(ex.existing), filepath.Dir(target(ex.create)), cagedLine, target(ex.create))
		exs = append(exs, ex)
	}
	p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: policy.SandboxPolicy{Kind: policy.WorkspaceWrite},
		Args: []string{"bash", "-c", script.String()}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := p.Cmd.CombinedOutput()
	v := p.Finish()
	for _, ex := range exs {
		t.Run(matchName(ex.entry.Match)+" "+ex.entry.Parent+"/"+ex.entry.Name, func(t *testing.T) {
			target := func(p string) string {
				if ex.file != "" {
					return filepath.Join(ws, p, ex.file)
				}
				return filepath.Join(ws, p)
			}
			b, _ := os.ReadFile(target(ex.existing))
			changed := strings.Contains(string(b), cagedKey)
			made, err := os.ReadFile(target(ex.create))
			created := err == nil && strings.Contains(string(made), cagedKey)
			if ex.entry.Cage == policy.HeldReadOnly && (changed || created) {
				t.Fatalf("the cage let a call no human approved change %s (%v) or create %s (%v)\nviolations: %v\noutput: %s",
					ex.existing, changed, ex.create, created, v, out)
			}
			if ex.entry.Cage == policy.HeldWritable && (!changed || !created) {
				t.Fatalf("the table leaves %q writable in the cage (%s), but the write failed: changed %v, created %v\noutput: %s",
					ex.entry.Name, ex.entry.Why, changed, created, out)
			}
		})
	}
}

// cagedLine is what the call writes; cagedKey finds it again.
const (
	cagedLine = "[caged]\n\tmark = 1\n"
	cagedKey  = "mark = 1"
)

func matchName(m policy.MatchKind) string {
	return map[policy.MatchKind]string{policy.MatchName: "name", policy.MatchPrefix: "prefix", policy.MatchUnder: "under",
		policy.MatchGitdir: "gitdir", policy.MatchGitFile: "gitfile", policy.MatchWorktreeAdmin: "worktree-admin",
		policy.MatchSystem: "system"}[m]
}
