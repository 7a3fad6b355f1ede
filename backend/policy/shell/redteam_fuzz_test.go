package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dangerTags are the option tags whose presence must keep a command from
// being read-only, whatever the spelling.
var dangerTags = map[string]string{
	"exec": "sh -c id", "write": "out.txt", "destroy": "", "net": "evil.example.com", "unknown": "x",
	"inplace": "", "output": "out.txt", "force": "", "prune": "now", "delete": "", "forcedelete": "",
	"forcemove": "", "reset": "", "overwrite": "", "dockerhost": "tcp://evil.example.com:2375",
	"connectto": "::evil.example.com:443", "resolve": "localhost:80:203.0.113.7", "unixsocket": "/run/x.sock",
	"jump": "evil.example.com", "config": "Dir::Cache=/x", "env": "LD_PRELOAD=x",
}

// commandFor turns a table name into the words that invoke it; pseudo
// tables shared by several git commands map to one of them.
func commandFor(table string) []string {
	switch table {
	case "git diffopts", "git revopts":
		return []string{"git", "log"}
	}
	return strings.Fields(table)
}

type dangerOpt struct {
	table string
	name  string // a spelling: "--output" or "-o"
	def   *optDef
	val   string
}

func dangerOpts() []dangerOpt {
	var out []dangerOpt
	names := make([]string, 0, len(optTables()))
	for n := range optTables() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, tn := range names {
		t := optTables()[tn]
		if t.any {
			continue
		}
		seen := map[*optDef]bool{}
		add := func(spelling string, d *optDef) {
			val, ok := dangerTags[d.tag]
			if !ok {
				return
			}
			out = append(out, dangerOpt{table: tn, name: spelling, def: d, val: val})
			seen[d] = true
		}
		for _, l := range t.longs {
			prefix := "--"
			if t.single {
				prefix = "-"
			}
			add(prefix+l, t.long[l])
		}
		for c, d := range t.short {
			if d != nil {
				add("-"+string(rune(c)), d)
			}
		}
	}
	return out
}

// FuzzLongOptionPrefixes spells every dangerous option of every table as
// getopt_long would accept it (any prefix, = or a separate value, attached
// short values) and asserts the command is never read-only.
func FuzzLongOptionPrefixes(f *testing.F) {
	opts := dangerOpts()
	if len(opts) < 100 {
		f.Fatalf("only %d dangerous options in the tables", len(opts))
	}
	for i := range opts {
		f.Add(uint16(i), uint8(0), false, "")
		f.Add(uint16(i), uint8(255), true, "")
	}
	f.Fuzz(func(t *testing.T, pick uint16, cut uint8, sep bool, extra string) {
		o := opts[int(pick)%len(opts)]
		words := commandFor(o.table)
		spelling := o.name
		long := strings.HasPrefix(spelling, "--") || len(spelling) > 2
		if long && !optTables()[o.table].exact {
			// Any prefix that keeps at least one letter.
			dashes := 2
			if !strings.HasPrefix(spelling, "--") {
				dashes = 1
			}
			n := dashes + 1 + int(cut)%(len(spelling)-dashes)
			spelling = spelling[:n]
			if d, why := optTables()[o.table].lookupLong(spelling[dashes:]); why == "" && d != nil && d != o.def {
				return // the prefix is another option's full name, which wins
			}
		}
		val := o.val
		if strings.ContainsAny(extra, "'\n\x00") {
			extra = ""
		}
		val += extra
		switch {
		case o.def.val == valNone:
			words = append(words, spelling)
		case long && sep && o.def.val == valRequired:
			words = append(words, spelling, shellQuote(val))
		case long:
			words = append(words, spelling+"="+shellQuote(val))
		default:
			// Short option: attached value, or the next word.
			if sep && o.def.val == valRequired {
				words = append(words, spelling, shellQuote(val))
			} else {
				words = append(words, spelling+shellQuote(val))
			}
		}
		words = append(words, "file.txt")
		cmd := strings.Join(words, " ")
		if got := Classify(cmd, testCwd); got.Class == ClassReadOnly {
			t.Fatalf("%q is read-only (table %s, option %s tagged %s)", cmd, o.table, o.name, o.def.tag)
		}
	})
}

func shellQuote(s string) string { return "'" + s + "'" }

// nameTemplates put a variable name (%s) where bash reads one.
var nameTemplates = []string{
	"test -v '%s'", "[ -v '%s' ]", "printf -v '%s' x", "printf -v'%s' x", "read '%s' < f", "read -r -a '%s' < f",
	"unset '%s'", "unset -v '%s'", "wait -p '%s'", "wait -n -p '%s'", "mapfile '%s' < f", "readarray -t '%s' < f",
	"getopts ab '%s'", "declare '%s'", "f() { local '%s'; }", "export '%s'", "typeset '%s'", "readonly '%s'",
	"declare -i n; n='%s'", "declare -i n='%s'", "let '%s'", "command test -v '%s'", "builtin printf -v '%s' x",
	"x='%s'; [[ -v $x ]]", "x='%s'; (( x ))", "x='%s'; echo $((x))", "x='%s'; test -v \"$x\"",
}

// FuzzNameBuiltins puts a subscript (anything but a plain number) into every
// name-taking builtin and asserts the command is never read-only.
func FuzzNameBuiltins(f *testing.F) {
	for i := range nameTemplates {
		f.Add(uint8(i), "$(id)")
		f.Add(uint8(i), "`touch x`")
		f.Add(uint8(i), "k")
		f.Add(uint8(i), "$i+1")
	}
	f.Fuzz(func(t *testing.T, pick uint8, sub string) {
		sub = strings.Map(func(r rune) rune {
			if strings.ContainsRune("]'\"\n\x00\\;&|#", r) {
				return -1
			}
			return r
		}, sub)
		if strings.Trim(sub, "0123456789 ") == "" {
			sub += "k"
		}
		cmd := strings.ReplaceAll(nameTemplates[int(pick)%len(nameTemplates)], "%s", "a["+sub+"]")
		if got := Classify(cmd, testCwd); got.Class == ClassReadOnly {
			t.Fatalf("%q is read-only", cmd)
		}
	})
}

// TestNameBuiltinsRunCodeInBash asserts on the outside world: real bash
// runs the command hidden in each subscript (a marker file appears), and
// the classifier never calls one of them read-only.
func TestNameBuiltinsRunCodeInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is part of the machine: %v", err)
	}
	ran := 0
	for _, tmpl := range nameTemplates {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a b\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := strings.ReplaceAll(tmpl, "%s", "a[$(touch marker)]")
		if strings.HasPrefix(tmpl, "f()") {
			cmd += "; f"
		}
		if got := Classify(cmd, testCwd); got.Class == ClassReadOnly {
			t.Errorf("%q is read-only", cmd)
		}
		run := exec.Command(bash, "-c", "a=(1 2); "+cmd)
		run.Dir = dir
		_ = run.Run() // many of these fail after the subscript ran
		if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
			ran++
			t.Logf("bash ran the subscript of %q", cmd)
		}
	}
	if ran < 10 {
		t.Errorf("bash ran only %d of the hidden commands; the harness is not testing what it claims", ran)
	}
}

// destroyingSpellings are work-destroying commands with a long option that
// the fuzzer abbreviates; wrappers put them behind other programs.
var destroyingSpellings = []struct{ head, long, tail string }{
	{"git reset", "--hard", ""}, {"git checkout", "--force", "main"}, {"git switch", "--discard-changes", "main"},
	{"git branch", "--delete --force", "x"}, {"git gc", "--prune=now", ""}, {"git clean", "--force", ""},
	{"rsync -a", "--delete", "a/ b/"}, {"rsync -a", "--remove-source-files", "a/ b/"}, {"git read-tree -u", "--reset", "HEAD"},
	{"git checkout-index -a", "--force", ""}, {"git push", "--force", "origin main"}, {"git push", "--mirror", "origin"},
	{"tar -cf a.tar", "--remove-files", "src"}, {"git restore", "--worktree", "f"}, {"git restore", "--source=HEAD", "f"},
}

var wrappers = []string{"", "command ", "env ", "env -C sub ", "nice -n 1 ", "timeout 5 ", "nohup ", "time ", "xargs -0 ",
	"flock /tmp/l ", "bash -c '%s'", "sh -c '%s'", "eval '%s'", "stdbuf -oL ", "builtin ", "exec "}

// FuzzDestructiveSpellings abbreviates the long option of a destroying
// command (any prefix git or getopt_long would still resolve to it) and
// wraps it: the command stays destructive.
func FuzzDestructiveSpellings(f *testing.F) {
	for i := range destroyingSpellings {
		f.Add(uint8(i), uint8(0), uint8(0))
		f.Add(uint8(i), uint8(255), uint8(i))
	}
	f.Fuzz(func(t *testing.T, pick, cut, wrap uint8) {
		s := destroyingSpellings[int(pick)%len(destroyingSpellings)]
		var words []string
		for _, l := range strings.Fields(s.long) {
			name, val, hasVal := strings.Cut(l, "=")
			words1 := strings.Fields(s.head)
			table := tableFor(words1[0] + " " + words1[1])
			if table == nil {
				table = tableFor(words1[0])
			}
			full := name
			n := 3 + int(cut)%(len(name)-2)
			name = name[:n]
			if d, why := table.lookupLong(name[2:]); d == nil || why != "" || d != table.long[full[2:]] {
				name = full // that prefix is ambiguous or another option's name
			}
			if hasVal {
				name += "=" + val
			}
			words = append(words, name)
		}
		cmd := strings.TrimSpace(s.head + " " + strings.Join(words, " ") + " " + s.tail)
		w := wrappers[int(wrap)%len(wrappers)]
		if strings.Contains(w, "%s") {
			cmd = strings.ReplaceAll(w, "%s", cmd)
		} else {
			cmd = w + cmd
		}
		if got := Classify(cmd, testCwd); got.Class != ClassDestructive {
			t.Fatalf("%q = %s, want destructive (%q)", cmd, got.Class, got.Unknown)
		}
	})
}
