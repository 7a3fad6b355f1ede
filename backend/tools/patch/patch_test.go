package patch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readCase(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "patch", name, "patch.diff"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseGitDiffs(t *testing.T) {
	type want struct {
		op       Op
		old, new string
		hunks    int
	}
	tests := []struct {
		name string
		want []want
	}{
		{"modify", []want{{OpModify, "lines.txt", "lines.txt", 3}}},
		{"multi", []want{
			{OpModify, "a.txt", "a.txt", 1},
			{OpAdd, "", "added.txt", 1},
			{OpDelete, "gone.txt", "", 1},
			{OpRename, "pure.txt", "moved/pure.txt", 0},
			{OpRename, "old-name.txt", "new-name.txt", 1},
		}},
		{"nonewline", []want{{OpModify, "n.txt", "n.txt", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Parse(readCase(t, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(tc.want) {
				t.Fatalf("got %d files, want %d: %+v", len(files), len(tc.want), files)
			}
			for i, w := range tc.want {
				f := files[i]
				if f.Op != w.op || f.OldPath != w.old || f.NewPath != w.new || len(f.Hunks) != w.hunks {
					t.Errorf("file %d = %s %q→%q %d hunks, want %+v", i, f.Op, f.OldPath, f.NewPath, len(f.Hunks), w)
				}
			}
		})
	}
}

func TestApplyMatchesGit(t *testing.T) {
	for _, name := range []string{"modify", "nonewline"} {
		t.Run(name, func(t *testing.T) {
			files, err := Parse(readCase(t, name))
			if err != nil {
				t.Fatal(err)
			}
			f := files[0]
			dir := filepath.Join("..", "testdata", "patch", name)
			before, _ := os.ReadFile(filepath.Join(dir, "before", f.OldPath))
			after, _ := os.ReadFile(filepath.Join(dir, "after", f.NewPath))
			got, err := Apply(string(before), f.Hunks)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(after) {
				t.Fatalf("applied:\n%q\nwant:\n%q", got, after)
			}
		})
	}
}

func TestApply(t *testing.T) {
	hunk := func(s string) []Hunk {
		fs, err := Parse("--- a/f\n+++ b/f\n" + s)
		if err != nil {
			t.Fatal(err)
		}
		return fs[0].Hunks
	}
	tests := []struct {
		name, old, hunks, want, err string
	}{
		{"exact", "a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nB\nc\n", ""},
		{"offset", "x\ny\na\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "x\ny\na\nB\nc\n", ""},
		{"insert at top", "a\n", "@@ -0,0 +1 @@\n+top\n", "top\na\n", ""},
		{"context mismatch", "a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-z\n+B\n c\n", "", "does not apply"},
		{"empty file", "", "@@ -1 +1 @@\n-a\n+b\n", "", "does not apply"},
		{"blank context line stripped by an editor", "a\n\nc\n", "@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n", "a\n\nC\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply(tc.old, hunk(tc.hunks))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Apply = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, patch, err string }{
		{"empty", "", "no file sections"},
		{"prose", "hello\nworld\n", "no file sections"},
		{"short hunk", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n", "ends early"},
		{"long hunk", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n a\n-b\n", "longer than its header"},
		{"bad header", "--- a/f\n+++ b/f\n@@ -x +1 @@\n a\n", "bad range"},
		{"garbage in hunk", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n?b\n", "unexpected"},
		{"both dev null", "--- /dev/null\n+++ /dev/null\n", "both sides"},
		{"binary", "diff --git a/x b/x\nGIT binary patch\nliteral 1\n", "binary"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.patch)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range []string{"modify", "multi", "nonewline"} {
		b, _ := os.ReadFile(filepath.Join("..", "testdata", "patch", n, "patch.diff"))
		f.Add(string(b), "a\nb\nc\n")
	}
	f.Add("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n", "a\n")
	f.Fuzz(func(t *testing.T, patch, old string) {
		files, err := Parse(patch)
		if err != nil {
			return
		}
		for _, fl := range files {
			_, _ = Apply(old, fl.Hunks)
		}
	})
}
