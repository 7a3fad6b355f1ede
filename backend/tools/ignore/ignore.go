// Package ignore matches paths against .gitignore files: blank lines and
// comments skipped, "!" re-includes, a trailing "/" matches directories only,
// a pattern with a "/" before its end is anchored to its file's folder, "*",
// "?", "[...]" and "**" glob. A folder that is ignored is not descended into,
// so nothing below it can be re-included, as in git.
package ignore

import (
	"path"
	"regexp"
	"strings"
)

type rule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
	// anchored rules match the path relative to the file's folder; others
	// match the last path element.
	anchored bool
}

// File is one parsed .gitignore, whose patterns are relative to Base (a
// slash-separated path relative to the walk root, "" for the root).
type File struct {
	Base  string
	rules []rule
}

// Parse reads the content of a .gitignore found in folder base. Patterns
// that cannot be compiled are skipped, as git ignores them.
func Parse(base, content string) *File {
	f := &File{Base: strings.Trim(base, "/")}
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = trimTrailingSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := rule{}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored, line = true, strings.TrimPrefix(line, "/")
		}
		re, err := regexp.Compile("^" + globToRegexp(line) + "$")
		if err != nil {
			continue
		}
		r.re = re
		f.rules = append(f.rules, r)
	}
	return f
}

// trimTrailingSpace drops unescaped trailing spaces.
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

func globToRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "/**") && i+3 == len(g):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+end]
			if end == 0 { // "[]...]" : a literal ] first
				end2 := strings.IndexByte(g[i+2:], ']')
				if end2 < 0 {
					b.WriteString(`\[`)
					continue
				}
				class = g[i+1 : i+2+end2]
				end = end2 + 1
			}
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			class = strings.ReplaceAll(class, `\`, `\\`)
			b.WriteString("[" + class + "]")
			i += end + 1
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(string(g[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// match says whether this file decides rel (relative to the walk root) and
// how: ignored (true) or re-included (false).
func (f *File) match(rel string, isDir bool) (ignored, decided bool) {
	if f.Base != "" {
		if !strings.HasPrefix(rel, f.Base+"/") {
			return false, false
		}
		rel = rel[len(f.Base)+1:]
	}
	name := path.Base(rel)
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		subject := name
		if r.anchored {
			subject = rel
		}
		if r.re.MatchString(subject) {
			return !r.negate, true
		}
	}
	return false, false
}

// Stack is the .gitignore files in effect at a point of a walk, outermost
// first.
type Stack []*File

// Ignored says whether rel (slash-separated, relative to the walk root) is
// ignored: the innermost file with a matching rule decides.
func (s Stack) Ignored(rel string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if ign, ok := s[i].match(rel, isDir); ok {
			return ign
		}
	}
	return false
}
