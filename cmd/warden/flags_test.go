//go:build !wardenslim

package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func testFlagSet() (*flag.FlagSet, *string, *bool) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s := fs.String("args", "{}", "")
	b := fs.Bool("planning", false, "")
	return fs, s, b
}

func TestParseInterspersed(t *testing.T) {
	cases := []struct {
		name     string
		argv     string
		pos      []string
		args     string
		planning bool
		err      string
	}{
		{name: "nothing", argv: "", args: "{}"},
		{name: "name only", argv: "fs.read", pos: []string{"fs.read"}, args: "{}"},
		{name: "flag after", argv: "fs.read --args A", pos: []string{"fs.read"}, args: "A"},
		{name: "flag before", argv: "--args A fs.read", pos: []string{"fs.read"}, args: "A"},
		{name: "bool before", argv: "--planning fs.read --args A", pos: []string{"fs.read"}, args: "A", planning: true},
		{name: "two positionals keep their order", argv: "a --planning b", pos: []string{"a", "b"}, args: "{}", planning: true},
		{name: "terminator makes the rest positional", argv: "--args A -- -x --planning", pos: []string{"-x", "--planning"}, args: "A"},
		{name: "terminator after a positional", argv: "a -- --args", pos: []string{"a", "--args"}, args: "{}"},
		{name: "a value may start with a dash", argv: "a --args -x", pos: []string{"a"}, args: "-x"},
		{name: "later flag wins", argv: "--args A a --args B", pos: []string{"a"}, args: "B"},
		{name: "unknown flag after the name", argv: "a --nope", err: "not defined: -nope"},
		{name: "missing value", argv: "a --args", err: "needs an argument"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs, s, b := testFlagSet()
			pos, err := parseInterspersed(fs, strings.Fields(tc.argv))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pos, tc.pos) || *s != tc.args || *b != tc.planning {
				t.Errorf("pos %q args %q planning %v, want %q %q %v", pos, *s, *b, tc.pos, tc.args, tc.planning)
			}
		})
	}
}

// FuzzParseInterspersed: no word is lost or invented — every input word is
// a positional, a flag, or a flag's value — and parsing never panics.
func FuzzParseInterspersed(f *testing.F) {
	for _, s := range []string{"fs.read --args {}", "--args x -- y", "--planning a b", "-", "--", "---x", "a --args"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words := strings.Fields(line)
		fs, _, _ := testFlagSet()
		pos, err := parseInterspersed(fs, words)
		if err != nil {
			return
		}
		if len(pos) > len(words) {
			t.Fatalf("%d positionals from %d words", len(pos), len(words))
		}
		for _, p := range pos {
			if !slices.Contains(words, p) {
				t.Fatalf("positional %q is not an input word", p)
			}
		}
	})
}
