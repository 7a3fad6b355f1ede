package readers

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInventoryTestsExist: every reader names a mechanism and at least one
// test, and every named test exists in the package it names.
func TestInventoryTestsExist(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "go.mod")); err != nil {
		t.Fatalf("the repository root is not %s: %v", repo, err)
	}
	ids := map[string]bool{}
	for _, r := range Inventory() {
		if r.ID == "" || ids[r.ID] {
			t.Errorf("reader %q: its ID %q is empty or not unique", r.Name, r.ID)
		}
		ids[r.ID] = true
		if r.Name == "" || r.Reads == "" || r.Mechanism == "" || len(r.Tests) == 0 {
			t.Errorf("reader %+v is incomplete", r)
		}
		for _, name := range r.Tests {
			i := strings.LastIndex(name, ".")
			pkg, fn := name[:i], name[i+1:]
			dir := filepath.Join(repo, filepath.FromSlash(strings.TrimPrefix(pkg, "github.com/warden-dev/warden")))
			files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
			re := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(fn) + `\(`)
			found := false
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err == nil && re.Match(b) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: the test %s is not in %s", r.Name, fn, dir)
			}
		}
	}
}
