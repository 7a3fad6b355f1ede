package tools

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// copyTree copies a testdata tree into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		writeFile(t, filepath.Join(dst, rel), readFile(t, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every file of a tree to its content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			m[rel] = readFile(t, p)
		}
		return nil
	})
	return m
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("files %v, want %v", keys(got), keys(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func keys(m map[string]string) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

func patchArgs(t *testing.T, p string) string {
	return string(mustJSON(t, map[string]string{"patch": p}))
}

func TestPatchApplyGitDiffs(t *testing.T) {
	for _, name := range []string{"modify", "multi", "nonewline"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "patch", name)
			env := testEnv(t)
			copyTree(t, filepath.Join(dir, "before"), env.Workspace)
			r := invoke(t, NewPatchApply(), env, patchArgs(t, readFile(t, filepath.Join(dir, "patch.diff"))))
			if r.IsError {
				t.Fatal(text(r))
			}
			sameTree(t, snapshot(t, env.Workspace), snapshot(t, filepath.Join(dir, "after")))
		})
	}
}

func TestPatchApplyReportsEachFile(t *testing.T) {
	env := testEnv(t)
	dir := filepath.Join("testdata", "patch", "multi")
	copyTree(t, filepath.Join(dir, "before"), env.Workspace)
	r := invoke(t, NewPatchApply(), env, patchArgs(t, readFile(t, filepath.Join(dir, "patch.diff"))))
	for _, want := range []string{"modified a.txt (+1 -1)", "added added.txt (+2 -0)", "deleted gone.txt", "renamed pure.txt -> moved/pure.txt", "renamed old-name.txt -> new-name.txt (+1 -1)"} {
		if !strings.Contains(text(r), want) {
			t.Errorf("missing %q in %s", want, text(r))
		}
	}
}

func TestPatchApplyAllOrNothing(t *testing.T) {
	multi := readFile(t, filepath.Join("testdata", "patch", "multi", "patch.diff"))
	tests := []struct {
		name    string
		spoil   func(t *testing.T, ws string)
		patch   string
		message string
	}{
		{"a later hunk does not apply", func(t *testing.T, ws string) {
			writeFile(t, filepath.Join(ws, "old-name.txt"), "alpha\nbeta was edited\ngamma\ndelta\nepsilon\n")
		}, multi, "old-name.txt: hunk 1"},
		{"the file to add already exists", func(t *testing.T, ws string) { writeFile(t, filepath.Join(ws, "added.txt"), "mine\n") }, multi, "added.txt: already exists"},
		{"the file to delete changed", func(t *testing.T, ws string) { writeFile(t, filepath.Join(ws, "gone.txt"), "edited\n") }, multi, "gone.txt: its content differs"},
		{"the file to modify is gone", func(t *testing.T, ws string) { _ = os.Remove(filepath.Join(ws, "a.txt")) }, multi, "a.txt: does not exist"},
		{"not a patch", func(*testing.T, string) {}, "just some words\n", "no file sections found"},
		{"malformed hunk", func(*testing.T, string) {}, "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n", "hunk ends early"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			copyTree(t, filepath.Join("testdata", "patch", "multi", "before"), env.Workspace)
			tc.spoil(t, env.Workspace)
			before := snapshot(t, env.Workspace)
			r := invoke(t, NewPatchApply(), env, patchArgs(t, tc.patch))
			if !r.IsError || !strings.Contains(text(r), tc.message) {
				t.Fatalf("got %q, want an error with %q", text(r), tc.message)
			}
			sameTree(t, snapshot(t, env.Workspace), before)
		})
	}
}

func TestPatchApplyEffects(t *testing.T) {
	env := testEnv(t)
	ws := env.Workspace
	p := NewPatchApply()
	multi := readFile(t, filepath.Join("testdata", "patch", "multi", "patch.diff"))
	eff, err := p.Effects(json.RawMessage(patchArgs(t, multi)), env)
	if err != nil {
		t.Fatal(err)
	}
	if len(eff) != 2 || eff[0].Kind != policy.EffectWrite || eff[1].Kind != policy.EffectDestructive {
		t.Fatalf("effects %+v", eff)
	}
	var touched []string
	for _, p := range eff[0].Paths {
		touched = append(touched, strings.TrimPrefix(p, ws+"/"))
	}
	want := "a.txt added.txt gone.txt pure.txt moved/pure.txt old-name.txt new-name.txt"
	if strings.Join(touched, " ") != want || len(eff[1].Paths) != 1 || eff[1].Paths[0] != filepath.Join(ws, "gone.txt") {
		t.Fatalf("touched %v destructive %v", touched, eff[1].Paths)
	}
	// Without a deletion, nothing destructive.
	mod := readFile(t, filepath.Join("testdata", "patch", "modify", "patch.diff"))
	eff, _ = p.Effects(json.RawMessage(patchArgs(t, mod)), env)
	if len(eff) != 1 || eff[0].Kind != policy.EffectWrite {
		t.Fatalf("modify-only effects %+v", eff)
	}
	// A path climbing out of the workspace resolves outside, for the policy to see.
	esc := "--- a/../outside.txt\n+++ b/../outside.txt\n@@ -0,0 +1 @@\n+x\n"
	eff, err = p.Effects(json.RawMessage(patchArgs(t, esc)), env)
	if err != nil || eff[0].Paths[0] != filepath.Join(filepath.Dir(ws), "outside.txt") {
		t.Fatalf("escaping path: %+v %v", eff, err)
	}
}
