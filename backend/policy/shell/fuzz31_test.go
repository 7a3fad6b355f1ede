package shell

import (
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// FuzzResolvePath runs the kernel-style path walk on any path and any links:
// no panic, the same answer twice, an absolute clean result, and with no
// links and no kernel paths the lexical answer.
func FuzzResolvePath(f *testing.F) {
	for _, s := range []string{"/dev/fd/../../../home/u/.bashrc", "a/../b", "/proc/self/cwd/../x", "link/../y", "/dev/stdout/x", "../../..", "/proc/1/fd/3/x"} {
		f.Add(s, "link=/etc;a=b;b=/srv", "/work/ws")
	}
	f.Fuzz(func(t *testing.T, p, links, cwd string) {
		m := map[string]string{}
		for _, kv := range strings.Split(links, ";") {
			k, v, ok := strings.Cut(kv, "=")
			if ok && k != "" {
				m[filepath.Join("/work/ws", k)] = v
			}
		}
		if !filepath.IsAbs(cwd) {
			cwd = "/work/ws"
		}
		sc := &scope{cwd: filepath.Clean(cwd), known: true}
		for _, follow := range []bool{true, false} {
			w := &walker{diskLinks: m}
			a, okA := w.resolvePath(sc, p, follow)
			b, okB := (&walker{diskLinks: m}).resolvePath(sc, p, follow)
			if a != b || okA != okB {
				t.Fatalf("%q: not deterministic", p)
			}
			if !okA {
				continue
			}
			if strings.HasPrefix(p, "~") {
				continue
			}
			if !filepath.IsAbs(a) || filepath.Clean(a) != a {
				t.Fatalf("%q resolves to %q: not absolute and clean", p, a)
			}
			full := p
			if !filepath.IsAbs(p) {
				full = sc.cwd + "/" + p
			}
			if !strings.Contains(full, "/dev/") && !strings.Contains(full, "/proc/") {
				plain, _ := (&walker{}).resolvePath(sc, p, follow)
				if plain != filepath.Clean(full) {
					t.Fatalf("%q without links is %q, want the lexical %q", p, plain, filepath.Clean(full))
				}
			}
		}
	})
}

// FuzzAwkProgram reads any awk program: no panic, the same answer twice, and
// a print redirected to a file appended on its own line is always seen.
func FuzzAwkProgram(f *testing.F) {
	for _, s := range []string{`{print $1}`, `NR > 1 {print}`, `{print > "out"}`, `BEGIN { "id" | getline }`, `{printf("%s", $0) >> "log"}`, `/a>b/ {print}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		files, why := awkProgram(p)
		files2, why2 := awkProgram(p)
		if why != why2 || !reflect.DeepEqual(files, files2) {
			t.Fatal("not deterministic")
		}
		if strings.ContainsAny(p, "\"/\\#'(") {
			return // the appended line may sit inside a string, regex or comment
		}
		files, why = awkProgram(p + "\n{ print > \"zz.out\" }")
		if why == "" && !contains(files, "zz.out") {
			t.Fatalf("%q followed by print > \"zz.out\" writes %q", p, files)
		}
	})
}

// FuzzSedWrites: a w command appended on its own line is always seen as a
// write of its file or refused.
func FuzzSedWrites(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1,5p", "/x/{s|a|b|;p}", "$!N;P;D", "s/a/b/w out"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		files, ok := sedScript(s)
		files2, ok2 := sedScript(s)
		if ok != ok2 || !reflect.DeepEqual(files, files2) {
			t.Fatal("not deterministic")
		}
		if strings.ContainsAny(s, "/\\|,{}[]ayci") {
			return
		}
		files, ok = sedScript(s + "\nw zz.out")
		if ok && !contains(files, "zz.out") {
			t.Fatalf("%q followed by w zz.out writes %q", s, files)
		}
	})
}

// wrapperOperand is what a wrapper with skip1 takes before its command.
var wrapperOperand = map[string]string{"timeout": "5", "gtimeout": "5", "taskset": "3", "chrt": "0",
	"faketime": "'2020-01-01 00:00:00'", "flock": "/tmp/l"}

type wrapperOpt struct {
	wrapper, spelling string
	def               *optDef
}

func wrapperOpts() []wrapperOpt {
	var out []wrapperOpt
	for _, name := range wrapperNames {
		t := tableFor(name)
		if t == nil {
			continue
		}
		var spellings []string
		for _, l := range t.longs {
			spellings = append(spellings, "--"+l)
		}
		for c, d := range t.short {
			if d != nil {
				spellings = append(spellings, "-"+string(rune(c)))
			}
		}
		sort.Strings(spellings)
		for _, s := range spellings {
			var d *optDef
			if strings.HasPrefix(s, "--") {
				d = t.long[s[2:]]
			} else {
				d = t.short[s[1]]
			}
			switch d.tag {
			case "nocmd", "script", "execmode":
				continue // no command follows, or it is the option's value
			}
			out = append(out, wrapperOpt{name, s, d})
		}
	}
	return out
}

// FuzzWrapperOptions spells every option of every wrapper the way getopt_long
// accepts it (any unambiguous prefix, a value attached or separate) in
// front of `rm -rf src`: the command stays destructive.
func FuzzWrapperOptions(f *testing.F) {
	opts := wrapperOpts()
	if len(opts) < 150 {
		f.Fatalf("only %d wrapper options", len(opts))
	}
	for i := range opts {
		f.Add(uint16(i), uint8(0), false)
		f.Add(uint16(i), uint8(255), true)
	}
	f.Fuzz(func(t *testing.T, pick uint16, cut uint8, sep bool) {
		o := opts[int(pick)%len(opts)]
		t0 := tableFor(o.wrapper)
		spelling := o.spelling
		if strings.HasPrefix(spelling, "--") && !t0.exact {
			n := 3 + int(cut)%(len(spelling)-2)
			if d, why := t0.lookupLong(spelling[2:n]); why == "" && d == o.def {
				spelling = spelling[:n]
			}
		}
		words := []string{o.wrapper}
		if o.wrapper == "time" {
			words[0] = "/usr/bin/time"
		}
		switch {
		case o.def.val == valNone:
			words = append(words, spelling)
		case o.def.val == valOptional:
			words = append(words, spelling+map[bool]string{true: "=1", false: ""}[strings.HasPrefix(spelling, "--")])
		case sep:
			words = append(words, spelling, "1")
		case strings.HasPrefix(spelling, "--"):
			words = append(words, spelling+"=1")
		default:
			words = append(words, spelling+"1")
		}
		if op, ok := wrapperOperand[o.wrapper]; ok {
			words = append(words, op)
		}
		cmd := strings.Join(append(words, "rm", "-rf", "src"), " ")
		if got := Classify(cmd, testCwd); got.Class != ClassDestructive {
			t.Fatalf("%q = %s, want destructive (%q)", cmd, got.Class, got.Unknown)
		}
	})
}
