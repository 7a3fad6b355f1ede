package shell

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// destructiveSegments are appended to fuzzed prefixes: whatever comes
// before them, the script contains a destructive segment and must never be
// allowed by OnRequest or Always without a grant.
var destructiveSegments = []string{"rm -rf ~", "git push --force", "git reset --hard", "find . -delete",
	"dd if=/dev/zero of=x", "shred x", "git clean -fdx", "sudo ls", "chmod -R 777 ."}

func FuzzClassifyShell(f *testing.F) {
	for _, c := range loadClassifyCases(f) {
		f.Add(c.Cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		a := Classify(cmd, testCwd)
		b := Classify(cmd, testCwd)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("not deterministic for %q", cmd)
		}
		if a.Class > ClassDestructive || a.Signature == "" {
			t.Fatalf("bad result %+v", a)
		}
		if a.Class == ClassReadOnly && (len(a.Writes) > 0 || a.Network || len(a.Unknown) > 0 || len(a.Destructive) > 0) {
			t.Fatalf("read-only with effects: %+v", a)
		}
		// A destructive segment joined by a separator stays destructive,
		// unless the prefix leaves the shell unable to parse it at all (then
		// it is Unknown) or comments it out / quotes it away.
		for _, seg := range destructiveSegments[:2] {
			full := cmd + "\n" + seg
			c := Classify(full, testCwd)
			if c.Class == ClassReadOnly || c.Class == ClassWrite || c.Class == ClassNetwork {
				if !swallows(cmd) {
					t.Fatalf("%q classified %s", full, c.Class)
				}
			}
		}
	})
}

// swallows reports prefixes that legitimately turn what follows into data:
// an open quote, heredoc, comment, or line continuation.
func swallows(prefix string) bool {
	f, err := parseScript(prefix, syntax.LangBash)
	return err != nil || strings.Contains(prefix, "<<") || strings.Contains(prefix, "#") || strings.HasSuffix(prefix, "\\") || f == nil
}

// FuzzSedScript runs the sed script scanner on anything: no panic, same
// answer twice, and a script with a w or e command appended is never safe.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1,5p", "/x/{s|a|b|;p}", "y/abc/xyz/", "a\\\ntext", "$!N;P;D", ":a;N;ba", "s/a/b/e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := sedScriptSafe(s)
		if a != sedScriptSafe(s) {
			t.Fatal("not deterministic")
		}
		if a && sedScriptSafe(s+"\nw /tmp/out") && !strings.ContainsAny(s, "/\\|,{}[]") {
			t.Fatalf("%q followed by a w command is safe", s)
		}
	})
}
