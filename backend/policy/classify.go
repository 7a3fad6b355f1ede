package policy

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Class is what a shell command would do, ordered from harmless to worst.
type Class uint8

const (
	ClassReadOnly Class = iota
	ClassWrite
	ClassNetwork
	ClassUnknown
	ClassDestructive
)

var classNames = [...]string{"read-only", "write", "network", "unknown", "destructive"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// MarshalText gives the stable kebab-case form.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// ParseClass reads a class in its kebab-case form.
func ParseClass(s string) (Class, error) {
	n := normName(s)
	for i, name := range classNames {
		if name == n {
			return Class(i), nil
		}
	}
	return 0, fmt.Errorf("policy: unknown class %q (valid: %s)", s, strings.Join(classNames[:], ", "))
}

// Classification is the classifier's verdict on a whole script: the worst
// class of its parts, and every fact the engine needs about them.
type Classification struct {
	Class Class `json:"class"`
	// Writes are the files the script visibly writes or removes: absolute and
	// lexically cleaned, or starting with "~" (the home directory).
	Writes []string `json:"writes,omitempty"`
	// Unresolved is set when some write target cannot be known before it runs.
	Unresolved bool `json:"unresolved,omitempty"`
	// Network is set when some part talks to the network; Hosts are those
	// that can be read from the command line.
	Network bool     `json:"network,omitempty"`
	Hosts   []string `json:"hosts,omitempty"`
	// Destructive explains each destructive part ("rm: removes files").
	Destructive []string `json:"destructive,omitempty"`
	// Unknown explains each part that cannot be proven ("python runs code").
	Unknown []string `json:"unknown,omitempty"`
	// Segments counts the simple commands, substitutions included.
	Segments int `json:"segments"`
	// Signature is what an "always" answer remembers for this script.
	Signature string `json:"signature"`
}

// maxDepth bounds `bash -c "bash -c ..."` recursion.
const maxDepth = 8

// ClassifyShell classifies a bash script run in cwd (absolute; relative
// redirect targets are joined to it lexically). It never fails: what it cannot
// parse or prove is ClassUnknown.
func ClassifyShell(command, cwd string) Classification {
	w := &walker{}
	sc := &scope{}
	if filepath.IsAbs(cwd) {
		sc.cwd, sc.known = filepath.Clean(cwd), true
	}
	f, err := parseScript(command, syntax.LangBash)
	if err != nil {
		w.unknown("cannot parse the command: " + err.Error())
		w.res.Signature = "shell=" + strings.TrimSpace(command)
		return w.finish()
	}
	w.stmts(f.Stmts, sc)
	res := w.finish()
	res.Signature = w.signature(f, command, res.Class)
	return res
}

func parseScript(src string, lang syntax.LangVariant) (*syntax.File, error) {
	p := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(false))
	return p.Parse(strings.NewReader(src), "")
}

// scope is the part of shell state that changes how later commands resolve.
type scope struct {
	cwd   string
	known bool // cwd is known
}

func (s *scope) copy() *scope { c := *s; return &c }

// resolve turns a static path argument into the path the engine checks.
func (s *scope) resolve(p string) (string, bool) {
	switch {
	case p == "":
		return "", false
	case strings.HasPrefix(p, "~"):
		return p, true
	case filepath.IsAbs(p):
		return filepath.Clean(p), true
	case s.known:
		return filepath.Join(s.cwd, p), true
	}
	return "", false
}

type walker struct {
	res     Classification
	write   bool
	depth   int
	flagged bool // something beyond one plain command: redirect, substitution, wrapper...
	// first plain command, for the signature
	head     []arg
	headSeen bool
}

func (w *walker) unknown(why string) { w.res.Unknown = append(w.res.Unknown, why) }

func (w *walker) destroy(why string) { w.res.Destructive = append(w.res.Destructive, why) }

func (w *walker) network(hosts ...string) {
	w.res.Network = true
	for _, h := range hosts {
		if h != "" {
			w.res.Hosts = append(w.res.Hosts, strings.ToLower(h))
		}
	}
}

// writeTo records a write to a static target, or an unresolved write.
func (w *walker) writeTo(sc *scope, a arg, what string) {
	w.write = true
	if !a.static || a.glob {
		w.res.Unresolved = true
		w.unknown(what + ": target is computed at run time")
		return
	}
	p, ok := sc.resolve(a.val)
	if !ok {
		w.res.Unresolved = true
		w.unknown(what + ": target " + a.val + " is relative to an unknown directory")
		return
	}
	w.res.Writes = append(w.res.Writes, p)
}

func (w *walker) finish() Classification {
	r := &w.res
	r.Writes = dedupe(r.Writes)
	r.Hosts = dedupe(r.Hosts)
	r.Destructive = dedupeKeep(r.Destructive)
	r.Unknown = dedupeKeep(r.Unknown)
	switch {
	case len(r.Destructive) > 0:
		r.Class = ClassDestructive
	case len(r.Unknown) > 0:
		r.Class = ClassUnknown
	case r.Network:
		r.Class = ClassNetwork
	case w.write || len(r.Writes) > 0:
		r.Class = ClassWrite
	default:
		r.Class = ClassReadOnly
	}
	return *r
}

func dedupe(s []string) []string {
	if len(s) < 2 {
		return s
	}
	sort.Strings(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

func dedupeKeep(s []string) []string {
	if len(s) < 2 {
		return s
	}
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func (w *walker) stmts(list []*syntax.Stmt, sc *scope) {
	for _, st := range list {
		w.stmt(st, sc)
	}
}

func (w *walker) stmt(st *syntax.Stmt, sc *scope) {
	if st.Negated || st.Background || st.Coprocess || st.Disown {
		w.flagged = true
	}
	for _, r := range st.Redirs {
		w.redirect(r, sc)
	}
	if st.Cmd != nil {
		w.command(st.Cmd, sc)
	}
}

func (w *walker) command(c syntax.Command, sc *scope) {
	switch x := c.(type) {
	case *syntax.CallExpr:
		w.call(x, sc)
	case *syntax.BinaryCmd:
		w.flagged = true
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			// Each side of a pipe runs in its own subshell.
			w.stmt(x.X, sc.copy())
			w.stmt(x.Y, sc.copy())
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
		w.stmt(x.Body, sc.copy())
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
	for _, a := range d.Args {
		if a.Name != nil {
			w.assignName(a.Name.Value)
		} else if a.Value != nil {
			if v, static, _ := wordValue(a.Value); !static || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
				w.unknown(d.Variant.Value + ": the variable name is computed at run time")
			}
		}
		w.scanAssign(a, sc)
	}
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
			}
			if x.Index != nil && arithHasVars(x.Index) || x.Slice != nil {
				w.unknown("array subscripts evaluate variable contents as code")
			}
		case *syntax.ArithmExp:
			w.flagged = true
			if arithHasVars(x.X) {
				w.unknown("arithmetic evaluates variable contents as code")
			}
		}
		return true
	})
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
