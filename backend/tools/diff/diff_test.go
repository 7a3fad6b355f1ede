package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/tools/patch"
)

func TestUnified(t *testing.T) {
	tests := []struct{ name, a, b, want string }{
		{"equal", "x\n", "x\n", ""},
		{"one line", "a\nb\nc\n", "a\nB\nc\n", "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"new file", "", "x\ny\n", "--- old\n+++ new\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"no final newline", "a\n", "a", "--- old\n+++ new\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unified("old", "new", tc.a, tc.b); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestUnifiedSeparateHunks(t *testing.T) {
	var a, b []string
	for i := 0; i < 40; i++ {
		a = append(a, fmt.Sprint("l", i))
		b = append(b, fmt.Sprint("l", i))
	}
	b[2], b[30] = "X", "Y"
	got := Unified("o", "n", strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
	if strings.Count(got, "@@ -") != 2 {
		t.Fatalf("want two hunks:\n%s", got)
	}
}

// roundTrip checks that the rendered diff, parsed and applied by the patch
// package, turns a into b.
func roundTrip(t *testing.T, a, b string) {
	d := Unified("a/f", "b/f", a, b)
	if d == "" {
		if a != b {
			t.Fatalf("empty diff for different texts %q %q", a, b)
		}
		return
	}
	files, err := patch.Parse(d)
	if err != nil {
		t.Fatalf("parse own diff: %v\n%s", err, d)
	}
	got, err := patch.Apply(a, files[0].Hunks)
	if err != nil || got != b {
		t.Fatalf("round trip: %q, %v; want %q\n%s", got, err, b, d)
	}
}

func TestRoundTripLarge(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 5000; i++ {
		a.WriteString("line\n")
		if i%7 == 0 {
			b.WriteString("changed\n")
		} else {
			b.WriteString("line\n")
		}
	}
	roundTrip(t, a.String(), b.String())
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Add("same\n", "same\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsAny(a+b, "\r") {
			return // CR handling is the patch parser's leniency, not a diff property
		}
		roundTrip(t, a, b)
	})
}
