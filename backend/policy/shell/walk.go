package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The walk over the syntax tree: every statement, compound command,
// substitution and expansion is visited, and each simple command is handed to
// invoke.

func (w *walker) stmts(list []*syntax.Stmt, sc *scope) {
	for _, st := range list {
		w.stmt(st, sc)
	}
}

func (w *walker) stmt(st *syntax.Stmt, sc *scope) {
	w.historyCheck(st)
	if st.Negated || st.Background || st.Coprocess || st.Disown {
		w.flagged = true
	}
	outer := w.stdin
	defer func() { w.stdin = outer }()
	outerNull := w.stdinNull
	defer func() { w.stdinNull = outerNull }()
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			w.stdin = true
			w.stdinNull = false
			if r.Op == syntax.RdrIn && r.Word != nil {
				if a := argOf(r.Word); a.static && a.val == "/dev/null" {
					w.stdinNull = true
				}
			}
		}
	}
	empty := false
	for _, r := range st.Redirs {
		if r.Op == syntax.RdrOut || r.Op == syntax.ClbOut || r.Op == syntax.RdrAll {
			empty = w.emptyOutput(st.Cmd)
			break
		}
	}
	// Descriptors opened by a command's own redirections last for that
	// command; exec's stay.
	saved := w.fds
	if len(st.Redirs) > 0 && !bareExec(st.Cmd) {
		w.fds = cloneFds(saved)
		defer func() { w.fds = saved }()
	}
	for _, r := range st.Redirs {
		w.redirect(r, sc)
		if empty {
			w.truncation(r, sc)
		}
	}
	if st.Cmd != nil {
		w.command(st.Cmd, sc)
	}
}

func cloneFds(m map[int]string) map[int]string {
	if m == nil {
		return nil
	}
	c := make(map[int]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// bareExec reports `exec` with redirections only: they apply to the rest of
// the script.
func bareExec(c syntax.Command) bool {
	ce, ok := c.(*syntax.CallExpr)
	if !ok || len(ce.Args) != 1 {
		return false
	}
	a := argOf(ce.Args[0])
	return a.static && a.val == "exec"
}

// emptyOutput reports a command that writes nothing to stdout: `> f` alone,
// `: > f`, `true > f`, `cat /dev/null > f`, `echo -n > f`. Redirecting it
// truncates the target, which destroys what the file held.
func (w *walker) emptyOutput(c syntax.Command) bool {
	if c == nil {
		return true
	}
	ce, ok := c.(*syntax.CallExpr)
	if !ok {
		return false
	}
	if len(ce.Args) == 0 {
		return true
	}
	if len(ce.Args) > 8 {
		return false
	}
	var buf [8]arg
	args := buf[:0]
	for _, wd := range ce.Args {
		a := argOf(wd)
		if !a.static {
			return false
		}
		args = append(args, a)
	}
	rest := args[1:]
	switch args[0].val {
	case ":", "true", "false":
		return true
	case "exec":
		// exec > f sends the rest of the script to f, emptied first.
		return len(rest) == 0
	case "cat", "head", "tail", "tac":
		if len(rest) == 0 {
			return w.noInput()
		}
		for _, a := range rest {
			if a.val != "/dev/null" {
				return false
			}
		}
		return true
	case "echo":
		for _, a := range rest {
			if a.val != "-n" && a.val != "-ne" && a.val != "-en" && a.val != "" {
				return false
			}
		}
		return len(rest) > 0
	case "printf":
		return len(rest) == 1 && rest[0].val == ""
	}
	return false
}

// noInput reports a command whose stdin is empty: the session's own input
// (there is none), or /dev/null.
func (w *walker) noInput() bool { return !w.stdin || w.stdinNull }

// truncation marks an overwriting redirection of an empty command.
func (w *walker) truncation(r *syntax.Redirect, sc *scope) {
	switch r.Op {
	case syntax.RdrOut, syntax.ClbOut, syntax.RdrAll:
	default:
		return
	}
	if r.Word == nil {
		return
	}
	a := argOf(r.Word)
	if a.static && !a.glob {
		if _, ok := devNetHost(a.val); ok {
			return
		}
		if p, ok := w.resolvePath(sc, a.val, true); ok {
			if f, sink := w.sinkPath(p); sink || f == "" && strings.HasPrefix(p, "/dev/") {
				return
			}
		}
	}
	w.destroy("truncates " + a.val + " to nothing")
}

func (w *walker) command(c syntax.Command, sc *scope) {
	switch x := c.(type) {
	case *syntax.CallExpr:
		w.call(x, sc)
	case *syntax.BinaryCmd:
		w.flagged = true
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			// Each side of a pipe runs in its own subshell, but with
			// lastpipe the last command runs in the caller's shell.
			w.stmt(x.X, sc.copy())
			in := w.stdin
			w.stdin = true
			last := sc.copy()
			if w.state.lastpipe {
				last = sc
			}
			w.stmt(x.Y, last)
			w.stdin = in
			return
		}
		w.stmt(x.X, sc)
		w.stmt(x.Y, sc)
	case *syntax.Block:
		w.flagged = true
		w.stmts(x.Stmts, sc)
	case *syntax.Subshell:
		w.flagged = true
		w.stmts(x.Stmts, sc.copy())
	case *syntax.IfClause:
		w.flagged = true
		for cl := x; cl != nil; cl = cl.Else {
			w.stmts(cl.Cond, sc)
			w.stmts(cl.Then, sc)
		}
	case *syntax.WhileClause:
		w.flagged = true
		w.stmts(x.Cond, sc)
		w.stmts(x.Do, sc)
	case *syntax.ForClause:
		w.flagged = true
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			w.assignName(l.Name.Value)
			w.assigned = append(w.assigned, l.Name.Value)
			for _, it := range l.Items {
				w.scan(it, sc)
			}
		case *syntax.CStyleLoop:
			w.unknown("arithmetic loops evaluate variable contents as code")
			w.scan(l, sc)
		}
		w.stmts(x.Do, sc)
	case *syntax.CaseClause:
		w.flagged = true
		w.scan(x.Word, sc)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				w.scan(p, sc)
			}
			w.stmts(it.Stmts, sc)
		}
	case *syntax.FuncDecl:
		w.flagged = true
		// The body is classified where it is defined (it may run from a
		// trap, a computed name or a child bash) and again at each call,
		// in the caller's shell.
		if w.state.funcs == nil {
			w.state.funcs = map[string]*syntax.Stmt{}
		}
		// zsh declares several names at once, or none: an anonymous
		// function runs where it stands, and its body is walked here.
		for _, n := range append([]*syntax.Lit{x.Name}, x.Names...) {
			if n != nil {
				w.state.funcs[n.Value] = x.Body
			}
		}
		if x.Body != nil {
			w.stmt(x.Body, sc.copy())
		}
	case *syntax.TimeClause:
		w.flagged = true
		if x.Stmt != nil {
			w.stmt(x.Stmt, sc)
		}
	case *syntax.CoprocClause:
		w.flagged = true
		w.stmt(x.Stmt, sc.copy())
	case *syntax.TestClause:
		w.flagged = true
		w.test(x.X, sc)
	case *syntax.ArithmCmd:
		w.flagged = true
		if arithHasVars(x.X) {
			w.unknown("arithmetic evaluates variable contents as code")
		}
		w.scan(x, sc)
	case *syntax.LetClause:
		w.flagged = true
		w.unknown("let evaluates variable contents as code")
		w.scan(x, sc)
	case *syntax.DeclClause:
		w.flagged = true
		w.decl(x, sc)
	default:
		w.flagged = true
		w.unknown(fmt.Sprintf("unsupported shell construct %T", c))
	}
}

// test checks a [[ ]] expression: arithmetic comparisons evaluate their
// operands as arithmetic, which runs $(...) hidden in a variable's value.
func (w *walker) test(x syntax.TestExpr, sc *scope) {
	switch t := x.(type) {
	case *syntax.BinaryTest:
		switch t.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !wordIsNumber(t.X) || !wordIsNumber(t.Y) {
				w.unknown("[[ arithmetic comparison evaluates variable contents as code")
			}
		}
		w.test(t.X, sc)
		w.test(t.Y, sc)
	case *syntax.UnaryTest:
		if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
			if wd, ok := t.X.(*syntax.Word); ok {
				w.nameRef(argOf(wd), "[[ "+t.Op.String(), false)
			}
		}
		w.test(t.X, sc)
	case *syntax.ParenTest:
		w.test(t.X, sc)
	case *syntax.Word:
		w.scan(t, sc)
	}
}

func wordIsNumber(x syntax.TestExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	v, static, _ := wordValue(wd)
	if !static || v == "" {
		return false
	}
	for i, c := range v {
		if !(c >= '0' && c <= '9' || i == 0 && c == '-') {
			return false
		}
	}
	return true
}

func (w *walker) decl(d *syntax.DeclClause, sc *scope) {
	if d.Variant.Value == "nameref" {
		w.unknown("nameref makes later assignments write another variable")
	}
	integer := false
	for _, a := range d.Args {
		if a.Name == nil && a.Value != nil {
			if v, static, _ := wordValue(a.Value); static && strings.HasPrefix(v, "-") && strings.Contains(v, "n") {
				w.unknown(d.Variant.Value + " -n makes later assignments write another variable")
			} else if static && strings.HasPrefix(v, "-") && strings.Contains(v, "i") {
				integer = true
			}
		}
		if a.Name != nil {
			w.assignName(a.Name.Value)
			if integer {
				if w.ints == nil {
					w.ints = map[string]bool{}
				}
				w.ints[a.Name.Value] = true
			}
			w.assignedValue(a)
		} else if a.Value != nil {
			if v, static, _ := wordValue(a.Value); !static || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
				w.unknown(d.Variant.Value + ": the variable name is computed at run time")
			}
		}
		w.scanAssign(a, sc)
	}
}

// assignedValue records a variable given a value that is not a plain
// number, for the integer-variable check at the end of the walk.
func (w *walker) assignedValue(a *syntax.Assign) {
	if a.Name == nil || a.Naked && a.Value == nil {
		return
	}
	if a.Value != nil {
		if v, static, _ := wordValue(a.Value); static && (isDigits(v) || v == "") {
			return
		}
	} else if a.Array == nil {
		return
	}
	w.assigned = append(w.assigned, a.Name.Value)
}

// nameRef checks a word bash reads as a variable name (test -v, printf -v,
// read, unset, wait -p, mapfile, getopts, exec {fd}>). A subscript in it is
// evaluated as arithmetic, and arithmetic runs $(...) written in the text or
// hidden in a variable's value: only NAME and NAME[digits] are data.
func (w *walker) nameRef(a arg, what string, assign bool) {
	if !a.static {
		w.unknown(what + ": the variable name is computed at run time, and a subscript in it runs code")
		return
	}
	name, sub, hasSub := strings.Cut(a.val, "[")
	if hasSub && !(strings.HasSuffix(sub, "]") && isDigits(strings.TrimSuffix(sub, "]"))) {
		w.unknown(what + ": the subscript in " + a.val + " is evaluated as arithmetic and can run code")
		return
	}
	if !validIdent(name) {
		w.unknown(what + ": " + a.val + " is not a plain variable name")
		return
	}
	if assign {
		w.assignName(name)
		w.assigned = append(w.assigned, name)
	}
}

func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (w *walker) scanAssign(a *syntax.Assign, sc *scope) {
	if a.Value != nil {
		w.scan(a.Value, sc)
	}
	if a.Array != nil {
		w.scan(a.Array, sc)
	}
	if a.Index != nil {
		w.unknown("array subscripts evaluate variable contents as code")
		w.scan(a.Index, sc)
	}
}

// scan classifies every substitution inside a node and refuses the
// expansions that execute code hidden in data.
func (w *walker) scan(n syntax.Node, sc *scope) {
	if wd, ok := n.(*syntax.Word); ok && plainWord(wd) {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			w.flagged = true
			w.stmts(x.Stmts, sc.copy())
			return false
		case *syntax.ProcSubst:
			w.flagged = true
			w.stmts(x.Stmts, sc.copy())
			return false
		case *syntax.ParamExp:
			w.flagged = true
			if x.Excl || x.Flags != nil || x.NestedParam != nil {
				w.unknown("indirect expansion can run code hidden in a variable")
			}
			if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps {
				w.unknown("${x@...} can expand prompts that run code")
			}
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) && x.Param != nil {
				w.assignName(x.Param.Value)
				w.assigned = append(w.assigned, x.Param.Value)
			}
			if x.Index != nil && arithHasVars(x.Index) || x.Slice != nil {
				w.unknown("array subscripts evaluate variable contents as code")
			}
		case *syntax.ArithmExp:
			w.flagged = true
			if arithHasVars(x.X) {
				w.unknown("arithmetic evaluates variable contents as code")
			}
		case *syntax.ArrayElem:
			if x.Index != nil && arithHasVars(x.Index) {
				w.unknown("array subscripts evaluate variable contents as code")
			}
		}
		return true
	})
}

// plainWord reports a word made only of literal and single-quoted parts,
// which hold nothing to scan.
func plainWord(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

// arithHasVars reports whether an arithmetic expression names a variable:
// bash evaluates a variable's value recursively, and `a[$(cmd)]` inside that
// value runs cmd.
func arithHasVars(x syntax.Node) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch y := n.(type) {
		case *syntax.ParamExp:
			found = true
		case *syntax.Lit:
			if y.Value != "" && (y.Value[0] == '_' || y.Value[0] >= 'a' && y.Value[0] <= 'z' || y.Value[0] >= 'A' && y.Value[0] <= 'Z') {
				found = true
			}
		}
		return !found
	})
	return found
}
