// Package patch parses unified diffs (plain and git-style: multi-file, new,
// deleted and renamed files, "\ No newline at end of file") and applies their
// hunks to text. It does no I/O: the patch.apply tool reads the files, asks
// for every result first, and writes only when all of them applied.
package patch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Op is what a file section does.
type Op string

const (
	OpModify Op = "modify"
	OpAdd    Op = "add"
	OpDelete Op = "delete"
	OpRename Op = "rename"
)

// File is one file section of a patch. Paths are as written in the patch,
// with git's a/ b/ prefixes removed.
type File struct {
	Op      Op
	OldPath string // empty for OpAdd
	NewPath string // empty for OpDelete
	Hunks   []Hunk
}

// Hunk is one @@ block. Each line keeps its newline unless the patch said
// "\ No newline at end of file" after it.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// Line is one line of a hunk: Kind is ' ', '-' or '+'.
type Line struct {
	Kind byte
	Text string
}

// Parse reads every file section of a unified diff.
func Parse(text string) ([]File, error) {
	lines := strings.SplitAfter(text, "\n")
	var files []File
	p := &parser{lines: lines}
	for p.i < len(p.lines) {
		l := p.peek()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			f, err := p.gitSection()
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		case strings.HasPrefix(l, "--- ") && p.i+1 < len(p.lines) && strings.HasPrefix(p.lines[p.i+1], "+++ "):
			f := File{}
			if err := p.headers(&f, false); err != nil {
				return nil, err
			}
			if err := p.hunks(&f); err != nil {
				return nil, err
			}
			files = append(files, f)
		default:
			p.i++ // preamble, commit message, "index" lines of plain diffs...
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no file sections found (expected a unified diff with ---/+++ headers)")
	}
	for i := range files {
		if err := settle(&files[i]); err != nil {
			return nil, err
		}
	}
	return files, nil
}

type parser struct {
	lines []string
	i     int
}

func (p *parser) peek() string { return strings.TrimRight(p.lines[p.i], "\r\n") }

func (p *parser) gitSection() (File, error) {
	f := File{Op: OpModify}
	head := p.peek()
	p.i++
	var rFrom, rTo string
	for p.i < len(p.lines) {
		l := p.peek()
		switch {
		case strings.HasPrefix(l, "new file mode"):
			f.Op = OpAdd
		case strings.HasPrefix(l, "deleted file mode"):
			f.Op = OpDelete
		case strings.HasPrefix(l, "rename from "):
			rFrom = unquote(strings.TrimPrefix(l, "rename from "))
		case strings.HasPrefix(l, "rename to "):
			rTo = unquote(strings.TrimPrefix(l, "rename to "))
		case strings.HasPrefix(l, "copy from "), strings.HasPrefix(l, "copy to "):
			return f, fmt.Errorf("%s: copies are not supported", head)
		case strings.HasPrefix(l, "GIT binary patch"), strings.HasPrefix(l, "Binary files "):
			return f, fmt.Errorf("%s: binary patches are not supported", head)
		case strings.HasPrefix(l, "index "), strings.HasPrefix(l, "similarity index"),
			strings.HasPrefix(l, "dissimilarity index"), strings.HasPrefix(l, "old mode"), strings.HasPrefix(l, "new mode"):
		case strings.HasPrefix(l, "--- "):
			if err := p.headers(&f, true); err != nil {
				return f, err
			}
			if err := p.hunks(&f); err != nil {
				return f, err
			}
			return f, gitNames(&f, head, rFrom, rTo)
		default:
			// Next section or trailing text: a header-only section.
			return f, gitNames(&f, head, rFrom, rTo)
		}
		p.i++
	}
	return f, gitNames(&f, head, rFrom, rTo)
}

// gitNames fills paths of sections without ---/+++ (pure renames, empty new
// or deleted files) from the rename lines or the diff --git line.
func gitNames(f *File, head, rFrom, rTo string) error {
	if rFrom != "" || rTo != "" {
		if rFrom == "" || rTo == "" {
			return fmt.Errorf("%s: rename without both from and to", head)
		}
		f.Op, f.OldPath, f.NewPath = OpRename, rFrom, rTo
		return nil
	}
	if f.OldPath != "" || f.NewPath != "" {
		return nil
	}
	rest := strings.TrimPrefix(head, "diff --git ")
	a, b, ok := splitGitHead(rest)
	if !ok {
		return fmt.Errorf("%q: cannot read the file names", head)
	}
	switch f.Op {
	case OpAdd:
		f.NewPath = b
	case OpDelete:
		f.OldPath = a
	default:
		f.OldPath, f.NewPath = a, b
	}
	return nil
}

// splitGitHead splits "a/x b/x"; names with spaces are found by symmetry.
func splitGitHead(s string) (string, string, bool) {
	if strings.HasPrefix(s, `"`) {
		parts := strings.SplitN(s, `" `, 2)
		if len(parts) != 2 {
			return "", "", false
		}
		return stripPrefix(unquote(parts[0]+`"`), "a/"), stripPrefix(unquote(parts[1]), "b/"), true
	}
	if len(s)%2 == 1 {
		half := len(s) / 2
		if s[half] == ' ' && strings.HasPrefix(s, "a/") && s[half+1:half+3] == "b/" && s[2:half] == s[half+3:] {
			return s[2:half], s[half+3:], true
		}
	}
	a, b, ok := strings.Cut(s, " ")
	return stripPrefix(a, "a/"), stripPrefix(unquote(b), "b/"), ok
}

func (p *parser) headers(f *File, git bool) error {
	oldName := headerPath(strings.TrimPrefix(p.peek(), "--- "))
	p.i++
	if p.i >= len(p.lines) || !strings.HasPrefix(p.lines[p.i], "+++ ") {
		return fmt.Errorf("line %d: '---' header without a '+++' line", p.i)
	}
	newName := headerPath(strings.TrimPrefix(p.peek(), "+++ "))
	p.i++
	bothPrefixed := strings.HasPrefix(oldName, "a/") && strings.HasPrefix(newName, "b/")
	if git || bothPrefixed || (oldName == "/dev/null" && strings.HasPrefix(newName, "b/")) || (newName == "/dev/null" && strings.HasPrefix(oldName, "a/")) {
		oldName, newName = stripPrefix(oldName, "a/"), stripPrefix(newName, "b/")
	}
	switch {
	case oldName == "/dev/null" && newName == "/dev/null":
		return fmt.Errorf("line %d: both sides are /dev/null", p.i)
	case oldName == "/dev/null":
		f.Op, f.NewPath = OpAdd, newName
	case newName == "/dev/null":
		f.Op, f.OldPath = OpDelete, oldName
	default:
		if f.Op == "" {
			f.Op = OpModify
		}
		if f.Op != OpRename || f.OldPath == "" {
			f.OldPath, f.NewPath = oldName, newName
		}
		if f.Op == OpModify && oldName != newName {
			f.Op = OpRename
		}
	}
	return nil
}

// headerPath drops a tab-separated timestamp and git's C quoting.
func headerPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		return unquote(s)
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ")
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

func stripPrefix(s, pre string) string { return strings.TrimPrefix(s, pre) }

func (p *parser) hunks(f *File) error {
	for p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], "@@ ") {
		h, err := p.hunk()
		if err != nil {
			return fmt.Errorf("%s: %w", name(*f), err)
		}
		f.Hunks = append(f.Hunks, h)
	}
	return nil
}

func (p *parser) hunk() (Hunk, error) {
	var h Hunk
	head := p.peek()
	at := p.i + 1
	rest, ok := strings.CutPrefix(head, "@@ -")
	if !ok {
		return h, fmt.Errorf("line %d: bad hunk header %q", at, head)
	}
	ranges, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return h, fmt.Errorf("line %d: bad hunk header %q", at, head)
	}
	oldR, newR, ok := strings.Cut(ranges, " +")
	if !ok {
		return h, fmt.Errorf("line %d: bad hunk header %q", at, head)
	}
	var err error
	if h.OldStart, h.OldLines, err = parseRange(oldR); err != nil {
		return h, fmt.Errorf("line %d: %w", at, err)
	}
	if h.NewStart, h.NewLines, err = parseRange(newR); err != nil {
		return h, fmt.Errorf("line %d: %w", at, err)
	}
	p.i++
	oldN, newN := 0, 0
	for oldN < h.OldLines || newN < h.NewLines {
		if p.i >= len(p.lines) {
			return h, fmt.Errorf("line %d: hunk ends early (want -%d +%d lines, got -%d +%d)", p.i, h.OldLines, h.NewLines, oldN, newN)
		}
		raw := p.lines[p.i]
		if raw == "\n" || raw == "\r\n" || raw == "" {
			raw = " " + raw // an editor stripped the context line's space
		}
		kind := raw[0]
		switch kind {
		case ' ':
			oldN++
			newN++
		case '-':
			oldN++
		case '+':
			newN++
		case '\\':
			p.noNewline(&h)
			p.i++
			continue
		default:
			return h, fmt.Errorf("line %d: unexpected %q inside a hunk", p.i+1, strings.TrimRight(raw, "\n"))
		}
		if oldN > h.OldLines || newN > h.NewLines {
			return h, fmt.Errorf("line %d: hunk is longer than its header says", p.i+1)
		}
		h.Lines = append(h.Lines, Line{Kind: kind, Text: raw[1:]})
		p.i++
	}
	if p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], `\`) {
		p.noNewline(&h)
		p.i++
	}
	if p.i < len(p.lines) && overrun(p.lines[p.i]) {
		return h, fmt.Errorf("line %d: hunk is longer than its header says", p.i+1)
	}
	return h, nil
}

// overrun says a line right after a complete hunk still looks like hunk
// content; the next section's "--- " and a mail signature "-- " do not.
func overrun(l string) bool {
	switch {
	case strings.HasPrefix(l, "+"):
		return !strings.HasPrefix(l, "+++ ")
	case strings.HasPrefix(l, "-"):
		return !strings.HasPrefix(l, "--- ") && strings.TrimRight(l, "\r\n") != "-- "
	}
	return false
}

// noNewline marks the previous line as lacking its final newline.
func (p *parser) noNewline(h *Hunk) {
	if n := len(h.Lines); n > 0 {
		h.Lines[n-1].Text = strings.TrimSuffix(strings.TrimSuffix(h.Lines[n-1].Text, "\n"), "\r")
	}
}

func parseRange(s string) (start, n int, err error) {
	a, b, has := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad range %q", s)
	}
	n = 1
	if has {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return 0, 0, fmt.Errorf("bad range %q", s)
		}
	}
	return start, n, nil
}

// settle checks a section is coherent.
func settle(f *File) error {
	switch f.Op {
	case OpAdd:
		if f.NewPath == "" {
			return errors.New("new file without a name")
		}
		for _, h := range f.Hunks {
			if h.OldLines != 0 {
				return fmt.Errorf("%s: new file with hunks removing lines", f.NewPath)
			}
		}
	case OpDelete:
		if f.OldPath == "" {
			return errors.New("deleted file without a name")
		}
	default:
		if f.OldPath == "" || f.NewPath == "" {
			return errors.New("file section without names")
		}
	}
	return nil
}

func name(f File) string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}
