package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// testdata/versions.txt: "input -> want" per line, want "error" for a refusal.
func TestDebianVersion(t *testing.T) {
	f, err := os.Open("testdata/versions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		in, want, ok := strings.Cut(line, " -> ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		n++
		t.Run(in, func(t *testing.T) {
			got, err := debianVersion(in)
			if want == "error" {
				if err == nil {
					t.Fatalf("= %q, want an error", got)
				}
				return
			}
			if err != nil || got != want {
				t.Fatalf("= %q, %v; want %q", got, err, want)
			}
			if !validDebianVersion.MatchString(got) {
				t.Fatalf("%q is not a valid Debian version", got)
			}
		})
	}
	if n < 8 {
		t.Fatalf("only %d cases", n)
	}
}

// Whatever debianVersion accepts is a valid Debian version.
func FuzzDebianVersion(f *testing.F) {
	for _, s := range []string{"0.1.0-dev+044cf63-dirty", "v1.2.3-4-gabc", "1.2", "x", "1.2.3-rc.1+b-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := debianVersion(in)
		if err == nil && !validDebianVersion.MatchString(out) {
			t.Fatalf("debianVersion(%q) = %q, not a valid Debian version", in, out)
		}
	})
}
