package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// arg is one word of a command after quote removal.
type arg struct {
	val    string
	static bool // the value is fixed when the command is written
	glob   bool // unquoted *, ?, [ or { that the shell may expand
}

func staticArgs(vals ...string) []arg {
	out := make([]arg, len(vals))
	for i, v := range vals {
		out[i] = arg{val: v, static: true}
	}
	return out
}

// wordValue removes quotes from a word. static is false when any part is
// computed at run time (parameters, substitutions, arithmetic, extglobs).
func wordValue(w *syntax.Word) (val string, static, glob bool) {
	if len(w.Parts) == 1 {
		switch x := w.Parts[0].(type) {
		case *syntax.Lit:
			v, g := unescapeUnquoted(x.Value)
			return v, true, g
		case *syntax.SglQuoted:
			if !x.Dollar {
				return x.Value, true, false
			}
		}
	}
	var b strings.Builder
	static = true
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			s, g := unescapeUnquoted(x.Value)
			b.WriteString(s)
			glob = glob || g
		case *syntax.SglQuoted:
			if x.Dollar {
				s, ok := decodeANSIC(x.Value)
				if !ok {
					static = false
				}
				b.WriteString(s)
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
				} else {
					static = false
				}
			}
		case *syntax.ExtGlob:
			glob = true
			static = false
		default:
			static = false
		}
	}
	return b.String(), static, glob
}

// unescapeUnquoted applies the shell's backslash removal outside quotes and
// reports unescaped patterns the shell would expand: *, ?, [...] and brace
// expansions {a,b} / {1..3}. A lone {} or [ stays literal, as in bash.
func unescapeUnquoted(s string) (string, bool) {
	if !strings.ContainsAny(s, "\\*?[{") {
		return s, false
	}
	var b strings.Builder
	// Positions in the output of the last unescaped [ and {: enough to
	// recognise [..] and {a,b} in linear time.
	lastBracket, lastBrace := -1, -1
	glob := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		switch c {
		case '*', '?':
			glob = true
		case '[':
			lastBracket = b.Len()
		case '{':
			lastBrace = b.Len()
		case ']':
			if lastBracket >= 0 && b.Len() > lastBracket+1 {
				glob = true
			}
		case '}':
			if lastBrace >= 0 {
				inner := b.String()[lastBrace+1:]
				if strings.Contains(inner, ",") || strings.Contains(inner, "..") {
					glob = true
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String(), glob
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of $'...'. ok is false for escapes it does not
// know, so `$'\x72m'` is "rm" and anything stranger is not trusted.
func decodeANSIC(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				return b.String(), false
			}
			n, err := strconv.ParseUint(s[i+1:j], 16, 32)
			if err != nil {
				return b.String(), false
			}
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			return b.String(), false
		}
	}
	if !utf8.ValidString(b.String()) {
		return b.String(), false
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// safeUpperEnv are upper-case variables that only change formatting or
// locale. Any other upper-case name may be read by a program as code or
// config (PATH, LD_PRELOAD, GIT_*, PAGER, HOME...), so setting it is Unknown.
var safeUpperEnv = map[string]bool{
	"LANG": true, "LANGUAGE": true, "LC_ALL": true, "TZ": true, "TERM": true, "COLUMNS": true, "LINES": true,
	"NO_COLOR": true, "FORCE_COLOR": true, "CLICOLOR": true, "CLICOLOR_FORCE": true, "CI": true,
	"DEBUG": true, "VERBOSE": true, "RUST_LOG": true, "RUST_BACKTRACE": true, "NODE_ENV": true,
	"CGO_ENABLED": true, "GOOS": true, "GOARCH": true, "GOGC": true, "GOMAXPROCS": true,
	"TIME_STYLE": true, "BLOCK_SIZE": true, "POSIXLY_CORRECT": true, "GREP_COLOR": true,
	"GREP_COLORS": true, "LS_COLORS": true, "PYTHONUNBUFFERED": true, "PYTHONDONTWRITEBYTECODE": true,
}

// assignName checks a variable the script sets. Lower-case names are script
// locals by convention and are not read by programs; upper-case ones are
// allowed only when known to be inert.
func (w *walker) assignName(name string) {
	if safeVarName(name) {
		return
	}
	w.unknown("sets " + name + ", which can change what later programs run")
}

func safeVarName(name string) bool {
	if safeUpperEnv[name] || strings.HasPrefix(name, "LC_") {
		return true
	}
	lower := false
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			return false
		}
	}
	return lower && !strings.HasSuffix(name, "_proxy")
}

// isDevSink reports, for a word as written, a target that discards output
// or passes it through: exactly /dev/null, /dev/zero, /dev/tty, /dev/std*
// and /dev/fd/N. Anything else under /dev/fd or /proc/self/fd (.. climbs
// out of them) is a path like any other. Writes are checked on the resolved
// path (walker.sinkPath), which also knows the descriptors the script opened.
func isDevSink(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero":
		return true
	}
	for _, pre := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok && isDigits(rest) {
			return true
		}
	}
	return false
}

// devNetHost extracts the host of bash's /dev/tcp/HOST/PORT files.
func devNetHost(p string) (string, bool) {
	for _, pre := range []string{"/dev/tcp/", "/dev/udp/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok {
			host, _, _ := strings.Cut(rest, "/")
			return host, true
		}
	}
	return "", false
}

func (w *walker) redirect(r *syntax.Redirect, sc *scope) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		w.nameRef(arg{val: strings.Trim(r.N.Value, "{}"), static: true}, "exec {fd}>", true)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		// Heredoc bodies are data, but an unquoted delimiter still expands
		// $(...) inside them.
		if r.Hdoc != nil {
			w.scan(r.Hdoc, sc)
		}
		return
	}
	w.flagged = true
	if r.Word == nil {
		return
	}
	w.scan(r.Word, sc)
	a := argOf(r.Word)
	fd := -1
	switch {
	case r.N == nil && (r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut):
		fd = 0
	case r.N == nil:
		fd = 1
	case isDigits(r.N.Value) && len(r.N.Value) < 5:
		fd, _ = strconv.Atoi(r.N.Value)
	}
	switch r.Op {
	case syntax.RdrIn, syntax.WordHdoc, syntax.DplIn:
		if host, ok := devNetHost(a.val); ok && a.static {
			w.network(host)
			return
		}
		if r.Op == syntax.RdrIn && a.static && !a.glob && fd >= 0 {
			// A file opened for reading can be reopened for writing
			// through /dev/fd/N.
			if p, ok := w.resolvePath(sc, a.val, true); ok {
				if f, sink := w.sinkPath(p); !sink {
					w.openFd(fd, nonEmpty(f, p))
				}
			}
		}
		return
	case syntax.DplOut:
		if a.static && (a.val == "-" || isDigits(a.val)) {
			return
		}
	}
	// >, >>, >|, &>, &>>, <>, >&file: a write to the target.
	if a.static && !a.glob {
		// bash opens /dev/tcp and /dev/udp itself, by their spelling.
		if host, ok := devNetHost(a.val); ok {
			w.network(host)
			return
		}
		if p, ok := w.resolvePath(sc, a.val, true); ok && fd >= 0 {
			if f, sink := w.sinkPath(p); !sink {
				w.openFd(fd, nonEmpty(f, p))
			}
		}
	}
	w.writeTo(sc, a, "redirection")
}

func nonEmpty(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func argOf(wd *syntax.Word) arg {
	v, s, g := wordValue(wd)
	return arg{val: v, static: s, glob: g}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func lastComponent(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// NormName lower-cases and turns CamelCase, '_' and ' ' into kebab-case:
// the one spelling rule of every policy name (classes here, axes, reasons
// and kinds in package policy).
func NormName(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for i, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			if i > 0 && s[i-1] >= 'a' && s[i-1] <= 'z' {
				b.WriteByte('-')
			}
			b.WriteRune(c + ('a' - 'A'))
		case c == '_' || c == ' ':
			b.WriteByte('-')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
