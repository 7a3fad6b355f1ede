package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePath(t *testing.T) {
	ws := workspace(t)
	out := workspace(t)
	writeFile(t, filepath.Join(ws, "src", "a.go"), "x")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(out, filepath.Join(ws, "escape")))
	must(os.Symlink("src", filepath.Join(ws, "srclink")))
	must(os.Symlink("../..", filepath.Join(ws, "src", "up")))
	must(os.Symlink("loop2", filepath.Join(ws, "loop1")))
	must(os.Symlink("loop1", filepath.Join(ws, "loop2")))
	must(os.Symlink(filepath.Join(out, "missing"), filepath.Join(ws, "dangling")))
	tests := []struct {
		name, in, want, err string
	}{
		{"relative", "src/a.go", filepath.Join(ws, "src/a.go"), ""},
		{"absolute inside", filepath.Join(ws, "src"), filepath.Join(ws, "src"), ""},
		{"dot dot escapes", "../x", filepath.Join(filepath.Dir(ws), "x"), ""},
		{"dot dot stays", "src/../src/a.go", filepath.Join(ws, "src/a.go"), ""},
		{"symlink pointing outside", "escape/f", filepath.Join(out, "f"), ""},
		{"symlink inside", "srclink/a.go", filepath.Join(ws, "src/a.go"), ""},
		{"dot dot after a symlink follows the link", "escape/../y", filepath.Join(filepath.Dir(out), "y"), ""},
		{"relative link climbing out", "src/up/z", filepath.Join(filepath.Dir(ws), "z"), ""},
		{"nonexistent keeps the rest", "new/dir/f.txt", filepath.Join(ws, "new/dir/f.txt"), ""},
		{"dangling link resolves to its target", "dangling", filepath.Join(out, "missing"), ""},
		{"loop", "loop1/x", "", "too many levels"},
		{"empty", "", "", "empty path"},
		{"nul", "a\x00b", "", "NUL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolvePath(ws, tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ResolvePath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
