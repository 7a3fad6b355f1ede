package ignore

import (
	"os"
	"testing"
)

func TestIgnored(t *testing.T) {
	root, err := os.ReadFile("testdata/gitignore")
	if err != nil {
		t.Fatal(err)
	}
	stack := Stack{Parse("", string(root)), Parse("sub", "*.tmp\n!keep.tmp\n/local\n")}
	tests := []struct {
		name string
		path string
		dir  bool
		want bool
	}{
		{"plain name at root", "debug.log", false, true},
		{"plain name deep", "a/b/debug.log", false, true},
		{"negated", "important.log", false, false},
		{"dir only matches a dir", "build", true, true},
		{"dir only skips a file", "build", false, false},
		{"anchored", "docs/generated", true, true},
		{"anchored does not float", "x/docs/generated", true, false},
		{"double star", "a/b/c/cache.bin", false, true},
		{"class", "file1.o", false, true},
		{"negated class", "filex.o", false, false},
		{"comment is not a rule", "#notarule", false, false},
		{"escaped hash", "#hash", false, true},
		{"nested file", "sub/x.tmp", false, true},
		{"nested negation", "sub/keep.tmp", false, false},
		{"nested anchored", "sub/local", false, true},
		{"nested rules stay nested", "x.tmp", false, false},
		{"trailing double star", "vendor/a/b", false, true},
		{"not ignored", "main.go", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := stack.Ignored(tc.path, tc.dir); got != tc.want {
				t.Fatalf("Ignored(%q, dir=%v) = %v, want %v", tc.path, tc.dir, got, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile("testdata/gitignore")
	f.Add(string(b), "a/b/c.log", true)
	f.Add("[", "x", false)
	f.Add("**/\\", "", true)
	f.Fuzz(func(t *testing.T, content, rel string, dir bool) {
		_ = Stack{Parse("", content), Parse("a", content)}.Ignored(rel, dir)
	})
}
