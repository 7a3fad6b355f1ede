package orgpolicy_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/policy"
)

// testdata/rules/*.toml: user rules files, the first line saying what
// parsing gives ("# want: ok N" or part of the error).
func TestParseRulesFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/rules/*.toml")
	if len(files) < 5 {
		t.Fatalf("%d files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want := strings.TrimPrefix(first, "# want: ")
			rules, err := orgpolicy.ParseRules(data, f, policy.TierUser)
			if n, ok := strings.CutPrefix(want, "ok "); ok {
				if err != nil {
					t.Fatal(err)
				}
				if w, _ := strconv.Atoi(n); len(rules) != w {
					t.Fatalf("want %d rules, got %d", w, len(rules))
				}
				for _, r := range rules {
					if r.Line == 0 || !strings.HasPrefix(strings.TrimSpace(lineOf(data, r.Line)), "[[") {
						t.Fatalf("rule at line %d: %q", r.Line, lineOf(data, r.Line))
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("want an error containing %q, got %v", want, err)
			}
		})
	}
}

func lineOf(data []byte, n int) string {
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
