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
		if !sedScriptSafe(s) {
			w.unknown("sed script can run commands or write files (e, w)")
		}
	}
	if hasTag(opts, "inplace") {
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
		if why := awkRunsOrWrites(p); why != "" {
			w.unknown(inv.name + " program " + why)
			return
		}
	}
}

// awkRunsOrWrites reads an awk program token by token, skipping strings,
// regular expressions and comments. Inside a print or printf statement, a >,
// >> or | outside parentheses redirects output to a file or a command; a |
// before getline runs a command; system(), gawk's |& coprocesses and @load /
// @include run code. Comparisons such as NR > 1 outside print stay data.
func awkRunsOrWrites(p string) string {
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
			return "loads or includes code (@load, @include)"
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
				return "runs a coprocess (|&)"
			}
			rest := strings.TrimLeft(p[i+1:], " \t")
			if strings.HasPrefix(rest, "getline") {
				return "runs a command and reads its output (| getline)"
			}
			if inPrint && depth <= 0 {
				return "pipes output to a command"
			}
			return "pipes to a command"
		case c == '>':
			if i+1 < len(p) && p[i+1] == '=' {
				i++
			} else if inPrint && depth <= 0 {
				return "writes output to a file (>)"
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
				return "runs a command (system)"
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
	return ""
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

func hMan(w *walker, inv *invocation) { w.tableOpts(inv, "man", inv.args) }

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
