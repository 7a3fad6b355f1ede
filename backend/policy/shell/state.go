package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The shell's own state changes what later commands mean, and the walk keeps
// it as bash does:
//   - history expansion (set -H / set -o history): a later `!-1:1` rebuilds a
//     command from the text of earlier lines, which no parse of the script
//     shows, so any later `!` makes the script Unknown;
//   - functions run in the caller's shell: a function that cds moves the
//     caller, and a function named like a program is what that name runs;
//   - keyword mode (set -k): NAME=value words anywhere in a command are
//     environment for it, not arguments;
//   - lastpipe: the last command of a pipeline runs in the caller's shell;
//   - aliases, once expanded (shopt -s expand_aliases, POSIX mode, sh -c):
//     the alias text is what runs.
// Flags are sticky: once set anywhere in the walk they stay set, whatever
// branch set them, which can only make the walk see more.

type shellState struct {
	keyword, lastpipe, expandAliases, histExpand, physical, cdableVars bool
	aliases                                                            map[string]string
	funcs                                                              map[string]*syntax.Stmt
	// expansions counts function bodies and alias texts walked, to bound
	// the work of scripts that call functions in loops of functions.
	expansions int
}

// maxExpansions bounds the function calls and alias expansions followed.
const maxExpansions = 256

// knownShopt are shopt options whose only effect is on globbing, messages,
// history files or interactive use; the ones that change what runs are
// handled by name below.
var knownShopt = map[string]bool{
	"assoc_expand_once": true, "autocd": true, "checkhash": true, "checkjobs": true, "checkwinsize": true,
	"cmdhist": true, "compat31": true, "compat32": true, "compat40": true, "compat41": true, "compat42": true,
	"compat43": true, "compat44": true, "complete_fullquote": true, "direxpand": true, "dirspell": true,
	"dotglob": true, "execfail": true, "extglob": true, "extquote": true, "failglob": true,
	"force_fignore": true, "globasciiranges": true, "globskipdots": true, "globstar": true, "gnu_errfmt": true,
	"histappend": true, "histreedit": true, "histverify": true, "hostcomplete": true, "huponexit": true,
	"inherit_errexit": true, "interactive_comments": true, "lithist": true, "localvar_inherit": true,
	"localvar_unset": true, "login_shell": true, "mailwarn": true, "no_empty_cmd_completion": true,
	"nocaseglob": true, "nocasematch": true, "noexpand_translation": true, "nullglob": true,
	"patsub_replacement": true, "progcomp": true, "progcomp_alias": true, "restricted_shell": true,
	"shift_verbose": true, "varredir_close": true, "xpg_echo": true, "cdspell": true, "array_expand_once": true,
	"bash_source_fullpath": true,
	// Handled: they change what later commands do.
	"expand_aliases": true, "lastpipe": true, "cdable_vars": true, "extdebug": true, "sourcepath": true,
	"promptvars": true,
}

// setOption applies one `set -o NAME` / shopt name being turned on.
func (w *walker) setOption(name string, on bool) {
	if !on {
		return // sticky: turning an option off is not followed
	}
	switch name {
	case "keyword", "k":
		w.state.keyword = true
	case "histexpand", "history", "H":
		w.enableHistory()
	case "physical", "P":
		w.state.physical = true
	case "posix":
		// POSIX mode expands aliases in scripts.
		w.state.expandAliases = true
	case "expand_aliases":
		w.state.expandAliases = true
	case "lastpipe":
		w.state.lastpipe = true
	case "cdable_vars":
		w.state.cdableVars = true
	}
}

// enableHistory turns history expansion on: from here every `!` in the
// script's text may rebuild a command from earlier lines.
func (w *walker) enableHistory() {
	if !w.state.histExpand {
		w.state.histExpand = true
	}
}

// historyCheck refuses a statement with a `!` once history expansion is on.
func (w *walker) historyCheck(st *syntax.Stmt) {
	if !w.state.histExpand || w.src == "" {
		return
	}
	from, to := int(st.Pos().Offset()), int(st.End().Offset())
	if from < 0 || to > len(w.src) || from > to {
		to = len(w.src)
		from = 0
	}
	if strings.Contains(w.src[from:to], "!") {
		w.unknown("history expansion is on (set -H): `!` rebuilds a command from the text of earlier lines")
	}
}

// setLetters are set's single-letter options; o takes a name.
func hSet(w *walker, inv *invocation) {
	for i := 0; i < len(inv.args); i++ {
		a := inv.args[i]
		if !a.static {
			w.unknown("set: an option computed at run time")
			return
		}
		v := a.val
		if v == "--" || v == "-" || len(v) < 2 || v[0] != '-' && v[0] != '+' {
			return // positional parameters
		}
		on := v[0] == '-'
		for j := 1; j < len(v); j++ {
			c := v[j]
			if c == 'o' {
				if i+1 >= len(inv.args) {
					return // set -o: prints the options
				}
				i++
				n := inv.args[i]
				if !n.static {
					w.unknown("set -o: an option name computed at run time")
					return
				}
				w.setOption(n.val, on)
				continue
			}
			w.setOption(string(c), on)
		}
	}
}

func hShopt(w *walker, inv *invocation) {
	on, setMode, query := false, false, false
	i := 0
	for ; i < len(inv.args); i++ {
		a := inv.args[i]
		if !a.static {
			w.unknown("shopt: an option computed at run time")
			return
		}
		v := a.val
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		for _, c := range v[1:] {
			switch c {
			case 's':
				on = true
			case 'u':
				on = false
			case 'o':
				setMode = true
			case 'p', 'q':
				query = true
			default:
				w.unknown("shopt: unknown option -" + string(c))
				return
			}
		}
	}
	if query && !on {
		return
	}
	for _, a := range inv.args[i:] {
		if !a.static {
			w.unknown("shopt: an option name computed at run time")
			return
		}
		if setMode {
			w.setOption(a.val, on)
			continue
		}
		if !knownShopt[a.val] {
			w.unknown("shopt " + a.val + " is not a shell option known to be harmless")
			continue
		}
		if a.val == "extdebug" && on {
			w.unknown("shopt -s extdebug lets a DEBUG trap skip or change commands")
		}
		if a.val == "sourcepath" || a.val == "promptvars" {
			continue
		}
		w.setOption(a.val, on)
	}
}

// hAlias records alias definitions; they change what runs only once aliases
// are expanded, and then the alias text is classified where it is used.
func hAlias(w *walker, inv *invocation) {
	for _, a := range inv.args {
		if !a.static {
			w.unknown("alias: a definition computed at run time")
			return
		}
		name, val, ok := strings.Cut(a.val, "=")
		if !ok || strings.HasPrefix(a.val, "-") {
			continue // alias NAME, alias -p: prints
		}
		if w.state.aliases == nil {
			w.state.aliases = map[string]string{}
		}
		w.state.aliases[name] = val
	}
}

// keywordArgs moves NAME=value words out of a command's arguments in keyword
// mode (set -k): bash passes them as its environment.
func (w *walker) keywordArgs(ce *syntax.CallExpr, args []arg) []arg {
	if !w.state.keyword || len(ce.Args) != len(args) {
		if w.state.keyword {
			// Brace expansion changed the words: refuse to guess.
			for _, wd := range ce.Args[1:] {
				if _, ok := assignWord(wd); ok {
					w.unknown("keyword mode (set -k) makes NAME=value words environment")
					break
				}
			}
		}
		return args
	}
	out := args[:1]
	for i, wd := range ce.Args[1:] {
		if name, ok := assignWord(wd); ok {
			w.flagged = true
			w.assignName(name)
			continue
		}
		out = append(out, args[i+1])
	}
	return out
}

// assignWord reports a word bash reads as an assignment: it starts with an
// unquoted NAME= (or NAME+=, NAME[...]=).
func assignWord(wd *syntax.Word) (string, bool) {
	if len(wd.Parts) == 0 {
		return "", false
	}
	l, ok := wd.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	i := strings.IndexByte(l.Value, '=')
	if i <= 0 {
		return "", false
	}
	name := strings.TrimSuffix(l.Value[:i], "+")
	if b := strings.IndexByte(name, '['); b > 0 && strings.HasSuffix(name, "]") {
		name = name[:b]
	}
	if !validIdent(name) {
		return "", false
	}
	return name, true
}

// callFunction runs a function the script defined, in the caller's shell.
// It reports whether name is such a function.
func (w *walker) callFunction(name string, sc *scope) bool {
	body := w.state.funcs[name]
	if body == nil {
		return false
	}
	w.flagged = true
	if w.state.expansions >= maxExpansions || w.depth >= maxDepth {
		w.unknown("too many function calls to follow")
		return true
	}
	w.state.expansions++
	w.depth++
	w.stmt(body, sc)
	w.depth--
	return true
}

// expandAlias classifies the text an alias expands to, with the command's
// other words after it. It reports whether name is an alias being expanded.
func (w *walker) expandAlias(name string, rest []arg, sc *scope) bool {
	if !w.state.expandAliases {
		return false
	}
	text, ok := w.state.aliases[name]
	if !ok {
		return false
	}
	w.flagged = true
	if w.state.expansions >= maxExpansions {
		w.unknown("too many aliases to follow")
		return true
	}
	w.state.expansions++
	var b strings.Builder
	b.WriteString(text)
	for _, a := range rest {
		if !a.static {
			w.unknown("alias " + name + " is followed by words computed at run time")
			return true
		}
		b.WriteString(" '")
		b.WriteString(strings.ReplaceAll(a.val, "'", `'\''`))
		b.WriteString("'")
	}
	// An alias is not expanded again inside its own text.
	saved := w.state.aliases[name]
	delete(w.state.aliases, name)
	w.script(b.String(), sc, syntax.LangBash)
	w.state.aliases[name] = saved
	return true
}
