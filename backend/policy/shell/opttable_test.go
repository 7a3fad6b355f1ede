package shell

import "testing"

func TestOptionTablesParse(t *testing.T) {
	if len(optTables()) < 40 {
		t.Fatalf("only %d option tables", len(optTables()))
	}
	for _, name := range []string{"sort", "tar", "rsync", "git push", "git log", "rg", "go test"} {
		if optTables()[name] == nil {
			t.Errorf("no table %q", name)
		}
	}
}

// TestLongOptionPrefixes resolves abbreviations the way getopt_long does.
func TestLongOptionPrefixes(t *testing.T) {
	cases := []struct {
		name, table, word, want, bad string
	}{
		{"exact", "sort", "--output", "--output", ""},
		{"unique prefix", "sort", "--outp", "--output", ""},
		{"shortest unique prefix", "rsync", "--remove-s", "--remove-source-files", ""},
		{"exact name that is also a prefix", "rsync", "--del", "--del", ""},
		{"ambiguous prefix", "rsync", "--dele", "", "ambiguous"},
		{"ambiguous prefix of differently tagged options", "sort", "--c", "", "ambiguous"},
		{"unknown", "sort", "--frobnicate", "", "unknown"},
		{"exact-only table refuses prefixes", "rg", "--pr", "", "unknown"},
		{"git negation", "git branch", "--no-colu", "--no-column", ""},
		{"prefix with value", "tar", "--use-comp=gzip", "--use-compress-program", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts, _, bad := tableFor(c.table).parse(staticArgs(c.word))
			if c.bad != "" {
				if bad == "" {
					t.Fatalf("%s %s resolved to %v, want %s", c.table, c.word, opts, c.bad)
				}
				return
			}
			if bad != "" || len(opts) != 1 || opts[0].def.canonical() != c.want {
				t.Fatalf("%s %s: %v (%s), want %s", c.table, c.word, opts, bad, c.want)
			}
		})
	}
}

// TestAmbiguousPrefixKeepsSharedTag: a prefix several options share is not
// resolved, but when they all do the same thing the command is classified
// as doing it.
func TestAmbiguousPrefixKeepsSharedTag(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"rsync -a --dele a/ b/", "destructive"},
		{"rsync -a --delete-d a/ b/", "destructive"},
		{"git push --forc origin main", "destructive"},
		{"sort --c f", "unknown"},
	} {
		if got := Classify(c.cmd, testCwd).Class.String(); got != c.want {
			t.Errorf("%q = %s, want %s", c.cmd, got, c.want)
		}
	}
}
