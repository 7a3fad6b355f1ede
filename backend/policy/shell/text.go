package shell

import "strings"

// Text tools that read files, each with an option or script command that
// writes, executes or changes the system: read-only only without it.

func hSed(w *walker, inv *invocation) {
	opts, ops, ok := w.tableOpts(inv, inv.name, inv.args)
	if !ok {
		return
	}
	var scripts []string
	for _, o := range tagged(opts, "script") {
		scripts = append(scripts, o.val)
	}
	if len(scripts) == 0 && len(tagged(opts, "unknown")) == 0 {
		if len(ops) == 0 {
			return
		}
		scripts, ops = []string{ops[0].val}, ops[1:]
	}
	for _, s := range scripts {
		files, ok := sedScript(s)
		if !ok {
			w.unknown("sed script runs commands (e) or cannot be followed")
		}
		for _, f := range files {
			w.writePath(inv.sc, f, "sed w", true)
		}
	}
	if hasTag(opts, "inplace") {
		w.writeOps(inv, ops, "sed -i")
	}
}

// sedScriptSafe reports a sed script that neither runs nor writes anything.
func sedScriptSafe(s string) bool {
	files, ok := sedScript(s)
	return ok && len(files) == 0
}

// sedScript walks a sed script's commands: the files its w and W commands
// and s///w flags write (to the end of the line, as GNU sed reads them;
// /dev/stdout and /dev/stderr are sed's own), and ok false for e, s///e and
// anything it cannot follow.
func sedScript(s string) (files []string, ok bool) {
	i := 0
	toFile := func() bool {
		start := i
		for i < len(s) && s[i] != '\n' {
			i++
		}
		f := strings.TrimLeft(s[start:i], " \t")
		if f == "" {
			return false
		}
		if f != "/dev/stdout" && f != "/dev/stderr" {
			files = append(files, f)
		}
		return true
	}
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
					if s[i] == '\n' {
						return false // sed: unterminated address regex
					}
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
				if s[i] == '\n' {
					return "", false // sed: unterminated `s' command
				}
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
			return files, i >= len(s)
		}
		c := s[i]
		i++
		switch c {
		case 's':
			flagStart := -1
			flags, ok := delimited(2)
			if ok {
				flagStart = i - len(flags)
			}
			k := strings.IndexByte(flags, 'w')
			before := flags
			if k >= 0 {
				before = flags[:k]
			}
			if !ok || strings.ContainsAny(before, "eW") || strings.Trim(before, "gpiImM0123456789 \t") != "" {
				// e runs the pattern space; anything that is no flag makes
				// sed refuse the script (or read it some other way).
				return files, false
			}
			if k >= 0 {
				i = flagStart + k + 1
				if !toFile() {
					return files, false
				}
			}
		case 'w', 'W':
			if !toFile() {
				return files, false
			}
		case 'y':
			if _, ok := delimited(2); !ok {
				return files, false
			}
		case 'a', 'i', 'c':
			toEOL()
		case ':', 'b', 't', 'T':
			toSep()
		case 'r', 'R', 'q', 'Q', 'l', 'L':
			toSep()
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F', '{', '}':
		default:
			// e, v and anything unknown.
			return files, false
		}
	}
	return files, true
}

func hAwk(w *walker, inv *invocation) {
	opts, ops, ok := w.tableOpts(inv, inv.name, inv.args)
	if !ok || hasTag(opts, "unknown") {
		return
	}
	var progs []string
	for _, o := range tagged(opts, "program") {
		progs = append(progs, o.val)
	}
	if len(progs) == 0 && len(ops) > 0 {
		progs = []string{ops[0].val}
	}
	for _, p := range progs {
		files, why := awkProgram(p)
		for _, f := range files {
			w.writePath(inv.sc, f, inv.name+" print >", true)
		}
		if why != "" {
			w.unknown(inv.name + " program " + why)
			return
		}
	}
}

// awkRunsOrWrites reports why an awk program is not read-only, or "".
func awkRunsOrWrites(p string) string {
	files, why := awkProgram(p)
	if why == "" && len(files) > 0 {
		return "writes output to a file (>)"
	}
	return why
}

// awkProgram reads an awk program token by token, skipping strings,
// regular expressions and comments. Inside a print or printf statement, a >,
// >> or | outside parentheses redirects output to a file or a command: a
// file named by one string literal is returned in files, any other target
// is a why; a | before getline runs a command; system(), gawk's |&
// coprocesses and @load / @include run code. Comparisons such as NR > 1
// outside print stay data.
func awkProgram(p string) (files []string, why string) {
	inPrint := false // the current statement is print/printf
	depth := 0       // parentheses within it
	operand := false // the last token can end an expression, so / divides
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '"':
			for i++; i < len(p) && p[i] != '"'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
			operand = true
		case c == '/' && !operand:
			for i++; i < len(p) && p[i] != '/' && p[i] != '\n'; i++ {
				if p[i] == '\\' {
					i++
				} else if p[i] == '[' {
					for i++; i < len(p) && p[i] != ']'; i++ {
					}
				}
			}
			operand = true
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			inPrint = false
		case c == '@':
			return files, "loads or includes code (@load, @include)"
		case c == ';' || c == '\n' || c == '{' || c == '}':
			inPrint, depth, operand = false, 0, false
		case c == '(':
			depth++
			operand = false
		case c == ')':
			depth--
			operand = true
		case c == '|':
			if i+1 < len(p) && p[i+1] == '|' {
				i++
				operand = false
				continue
			}
			if i+1 < len(p) && p[i+1] == '&' {
				return files, "runs a coprocess (|&)"
			}
			rest := strings.TrimLeft(p[i+1:], " \t")
			if strings.HasPrefix(rest, "getline") {
				return files, "runs a command and reads its output (| getline)"
			}
			if inPrint && depth <= 0 {
				return files, "pipes output to a command"
			}
			return files, "pipes to a command"
		case c == '>':
			if i+1 < len(p) && p[i+1] == '=' {
				i++
			} else if inPrint && depth <= 0 {
				f, next, ok := awkTarget(p, i+1)
				if !ok {
					return files, "writes output to a file named at run time (>)"
				}
				if f != "/dev/stdout" && f != "/dev/stderr" && f != "-" {
					files = append(files, f)
				}
				i = next - 1
				inPrint = false
			}
			operand = false
		case isAwkIdent(c):
			j := i
			for j < len(p) && (isAwkIdent(p[j]) || p[j] >= '0' && p[j] <= '9') {
				j++
			}
			word := p[i:j]
			i = j - 1
			switch word {
			case "print", "printf":
				inPrint, depth = true, 0
				operand = false
			case "system":
				return files, "runs a command (system)"
			case "getline", "in", "return", "case":
				operand = false
			default:
				operand = true
			}
		case c >= '0' && c <= '9':
			operand = true
		case c == ' ' || c == '\t' || c == '\\':
		default:
			operand = false
		}
	}
	return files, ""
}

// awkTarget reads the target of print's > or >> at p[i:]: one string
// literal followed by the end of the statement. ok is false for anything
// else (a variable, a concatenation): the file is named at run time.
func awkTarget(p string, i int) (file string, next int, ok bool) {
	if i < len(p) && p[i] == '>' {
		i++
	}
	for i < len(p) && (p[i] == ' ' || p[i] == '\t') {
		i++
	}
	if i >= len(p) || p[i] != '"' {
		return "", i, false
	}
	var b strings.Builder
	i++
	for ; i < len(p) && p[i] != '"'; i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			i++
			switch p[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case '"', '\\', '/':
				c = p[i]
			default:
				return "", i, false
			}
		}
		b.WriteByte(c)
	}
	if i >= len(p) {
		return "", i, false
	}
	i++
	j := i
	for j < len(p) && (p[j] == ' ' || p[j] == '\t') {
		j++
	}
	if j < len(p) && !strings.ContainsRune(";}\n#", rune(p[j])) {
		return "", j, false
	}
	if b.Len() == 0 {
		return "", i, false
	}
	return b.String(), i, true
}

func isAwkIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func hRg(w *walker, inv *invocation) { w.tableOpts(inv, "rg", inv.args) }

func hBase64(w *walker, inv *invocation) { w.tableOpts(inv, inv.name, inv.args) }

func hSort(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "sort", inv.args)
	for _, o := range tagged(opts, "output") {
		if w.sinkArg(inv.sc, arg{val: o.val, static: !o.dynamic}) {
			continue
		}
		empty := len(ops) == 0 && w.noInput()
		if len(ops) > 0 {
			empty = true
			for _, a := range ops {
				if a.val != "/dev/null" {
					empty = false
				}
			}
		}
		if empty {
			w.destroy("sort -o " + o.val + " from no input: truncates it")
		}
		w.outputOpt(inv.sc, o.val, o.dynamic, "sort -o")
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

func hTree(w *walker, inv *invocation) { w.tableOpts(inv, "tree", inv.args) }

func hXxd(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		return
	}
	_, ops := parseOpts(inv.args, optSpec{short: "cglosn"})
	if len(ops) >= 2 {
		w.writeTo(inv.sc, ops[1], "xxd output file")
	}
}

func hDate(w *walker, inv *invocation) { w.tableOpts(inv, "date", inv.args) }

func hHostname(w *walker, inv *invocation) {
	_, ops, ok := w.tableOpts(inv, "hostname", inv.args)
	if ok && len(ops) > 0 {
		w.unknown("hostname with an argument sets the host name")
	}
}

func hPager(w *walker, inv *invocation) {
	w.quietEnv("LESSHISTFILE=-")
	opts, ops, ok := w.tableOpts(inv, "less", inv.args)
	if !ok {
		return
	}
	for _, a := range ops {
		if strings.HasPrefix(a.val, "+") {
			w.unknown(inv.name + " startup commands can run a shell")
			return
		}
	}
	_ = opts
}

// hMan: man-db saves formatted pages in its cache only for line lengths
// from 66 to 80; MANWIDTH=81 keeps a read from writing.
func hMan(w *walker, inv *invocation) {
	w.quietEnv("MANWIDTH=81", "LESSHISTFILE=-")
	w.tableOpts(inv, "man", inv.args)
}

func hGofmt(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "gofmt", inv.args)
	if hasTag(opts, "inplace") {
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

// hTabled is a reading program whose option table is the whole rule: known
// harmless options only.
func hTabled(w *walker, inv *invocation) { w.tableOpts(inv, inv.name, inv.args) }
