package shell

import (
	"regexp"
	"strings"
)

// Text tools that read files, each with an option or script command that
// writes, executes or changes the system: read-only only without it.

func hSed(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	// -I is BSD sed's in-place; GNU accepts unambiguous long prefixes
	// (--in, --fi).
	opts, ops := parseOpts(inv.args, optSpec{short: "efl", shortOpt: "iI",
		long: []string{"expression", "file", "line-length"}})
	if has(opts, "-f", "--file") || longPrefix(opts, "--file", 2) {
		w.unknown("sed -f: the script is in a file")
		return
	}
	scripts := values(opts, "-e", "--expression")
	if len(scripts) == 0 {
		if len(ops) == 0 {
			return
		}
		scripts, ops = []string{ops[0].val}, ops[1:]
	}
	for _, s := range scripts {
		if !sedScriptSafe(s) {
			w.unknown("sed script can run commands or write files (e, w)")
		}
	}
	if has(opts, "-i", "-I") || longPrefix(opts, "--in-place", 1) {
		w.writeOps(inv, ops, "sed -i")
	}
}

// sedScriptSafe walks a sed script's commands and refuses e, w, W and the
// s///e and s///w flags. It errs towards false on anything it cannot follow.
func sedScriptSafe(s string) bool {
	i := 0
	skipAddr := func() bool {
		for i < len(s) {
			c := s[i]
			switch {
			case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+' || c == ' ' || c == '!':
				i++
			case c == '/' || c == '\\':
				d := byte('/')
				if c == '\\' {
					if i+1 >= len(s) {
						return false
					}
					i++
					d = s[i]
				}
				i++
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				if i >= len(s) {
					return false
				}
				i++
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			default:
				return true
			}
		}
		return true
	}
	// delimited skips n delimited parts after a command letter and returns
	// the flags that follow.
	delimited := func(n int) (string, bool) {
		if i >= len(s) {
			return "", false
		}
		d := s[i]
		if d == '\\' || d == '\n' {
			return "", false
		}
		i++
		for k := 0; k < n; k++ {
			for i < len(s) && s[i] != d {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(s) {
				return "", false
			}
			i++
		}
		start := i
		for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
			i++
		}
		return s[start:i], true
	}
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	toSep := func() {
		for i < len(s) && s[i] != '\n' && s[i] != ';' {
			i++
		}
	}
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', ';', '{', '}':
			i++
			continue
		case '#':
			toEOL()
			continue
		}
		if !skipAddr() || i >= len(s) {
			return i >= len(s)
		}
		c := s[i]
		i++
		switch c {
		case 's':
			flags, ok := delimited(2)
			if !ok || strings.ContainsAny(flags, "ewW") {
				return false
			}
		case 'y':
			if _, ok := delimited(2); !ok {
				return false
			}
		case 'a', 'i', 'c':
			toEOL()
		case ':', 'b', 't', 'T':
			toSep()
		case 'r', 'R', 'q', 'Q', 'l', 'L':
			toSep()
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F', '{', '}':
		default:
			// e, w, W, v and anything unknown.
			return false
		}
	}
	return true
}

func hAwk(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, ops := parseOpts(inv.args, optSpec{short: "FvfeiElW", shortOpt: "odpDL",
		long: []string{"field-separator", "assign", "file", "source", "include", "load", "exec"}})
	if has(opts, "-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec", "-o", "-p", "-d", "-D", "-W",
		"--pretty-print", "--profile", "--dump-variables", "--debug") {
		w.unknown(inv.name + ": program or output in another file")
		return
	}
	progs := values(opts, "-e", "--source")
	if len(progs) == 0 && len(ops) > 0 {
		progs = []string{ops[0].val}
	}
	for _, p := range progs {
		if awkRunsOrWrites(p) {
			w.unknown(inv.name + " program can run commands or write files")
			return
		}
	}
}

var (
	awkOutput = regexp.MustCompile(`\bprintf?\b[^;{}\n]*(>|\|)`)
	awkPipeIn = regexp.MustCompile(`\|&?\s*getline`)
)

// awkRunsOrWrites finds system(), output redirection and pipes of print,
// command pipes into getline, and gawk's @load/@include. Comparisons such as
// NR>1 outside print are fine.
func awkRunsOrWrites(p string) bool {
	return strings.Contains(p, "system") || strings.Contains(p, "@") || awkOutput.MatchString(p) || awkPipeIn.MatchString(p)
}

func hRg(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "ABCEMTdefgjmrt",
		long: []string{"after-context", "before-context", "context", "encoding", "max-columns", "type-not",
			"max-depth", "regexp", "file", "glob", "threads", "max-count", "replace", "type", "pre", "pre-glob",
			"hostname-bin", "iglob", "type-add", "sort", "sortr", "color", "colors", "path-separator"}})
	if has(opts, "--pre", "--search-zip", "-z", "--hostname-bin") {
		w.unknown("rg --pre / --search-zip / --hostname-bin run other programs")
	}
}

func hBase64(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "bwoi", long: []string{"wrap", "output", "input", "break"}})
	for _, o := range values(opts, "-o", "--output") {
		w.writeTo(inv.sc, arg{val: o, static: true}, "base64 -o")
	}
}

func hSort(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "kotST",
		long: []string{"key", "output", "field-separator", "buffer-size", "temporary-directory", "compress-program", "batch-size", "files0-from", "random-source", "parallel", "sort"}})
	if has(opts, "--compress-program") || longPrefix(opts, "--compress-program", 2) {
		w.unknown("sort --compress-program runs another program")
	}
	for _, o := range opts {
		if o.name == "-o" || o.name == "--output" || len(o.name) > 2 && strings.HasPrefix("--output", o.name) {
			w.writeTo(inv.sc, arg{val: o.val, static: true}, "sort -o")
		}
	}
}

func hUniq(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	_, ops := parseOpts(inv.args, optSpec{short: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"}})
	if len(ops) >= 2 {
		w.writeTo(inv.sc, ops[1], "uniq output file")
	}
}

func hTree(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "LPIoHT",
		long: []string{"charset", "filelimit", "timefmt", "sort", "infofile", "fromfile"}})
	for _, o := range values(opts, "-o") {
		w.writeTo(inv.sc, arg{val: o, static: true}, "tree -o")
	}
}

func hXxd(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	_, ops := parseOpts(inv.args, optSpec{short: "cglosn"})
	if len(ops) >= 2 {
		w.writeTo(inv.sc, ops[1], "xxd output file")
	}
}

func hDate(w *walker, inv *invocation) {
	opts, _ := parseOpts(inv.args, optSpec{short: "dfrs", shortOpt: "IR",
		long: []string{"date", "file", "reference", "set"}})
	if has(opts, "-s", "--set") || longPrefix(opts, "--set", 3) {
		w.unknown("date -s sets the system clock")
	}
}

func hHostname(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{short: "F", long: []string{"file"}})
	if len(ops) > 0 || has(opts, "-F", "--file", "-b", "--boot") {
		w.unknown("hostname with an argument sets the host name")
	}
}

func hPager(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	for _, a := range inv.args {
		if strings.HasPrefix(a.val, "+") || strings.HasPrefix(a.val, "--lesskey") || a.val == "-k" {
			w.unknown(inv.name + " startup commands can run a shell")
			return
		}
	}
}

func hMan(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	opts, _ := parseOpts(inv.args, optSpec{short: "PHCMELmSsRp", long: []string{"pager", "html", "config-file", "manpath", "extension", "locale", "systems", "sections", "recode", "preprocessor"}})
	if has(opts, "-P", "--pager", "-H", "--html", "-C", "--config-file", "-p", "--preprocessor") {
		w.unknown("man --pager / --html / --preprocessor run another program")
	}
}

func hGofmt(w *walker, inv *invocation) {
	opts, ops := parseOpts(inv.args, optSpec{short: "r"})
	if has(opts, "-w") {
		w.writeOps(inv, ops, "gofmt -w")
	}
}

// hBat is bat/batcat: a cat with highlighting whose pager option runs a
// program.
func hBat(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	for _, a := range inv.args {
		if strings.HasPrefix(a.val, "--pager") {
			w.unknown(inv.name + " --pager runs another program")
		}
	}
}
