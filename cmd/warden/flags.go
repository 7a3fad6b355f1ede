package main

import (
	"flag"
	"strings"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parseInterspersed parses flags wherever they stand among the positional
// arguments — `tool --workspace W fs.read --args {...}` and `tool fs.read
// --workspace W --args {...}` mean the same — and returns the positional
// arguments in order. The standard flag package stops at the first
// positional, which silently dropped every flag after it. After "--"
// everything is positional, so a positional may still start with "-".
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse consumed a "--" terminator iff the word just before
		// what is left is "--".
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
