package config

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// header matches a table or array-of-tables header line.
// Compiled on first use (a save), not at every process start.
var header = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(\[\[?)\s*([^\]\[]+?)\s*(\]\]?)\s*(#.*)?$`)
})

// splice replaces the tables named in repl ([model], [defaults]) in a TOML
// text by their new renderings, leaving every other line — comments
// included — as it was. A missing table is appended; a nil rendering removes
// the table. It works line by line and knows nothing of multi-line strings
// or dotted keys, so its caller must check the result decodes to the
// intended document; nil means the text has a shape it will not touch.
func splice(text []byte, repl map[string][]byte) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	type block struct{ start, end int } // [start, end) lines
	found := map[string]block{}
	cur, start := "", -1
	closeBlock := func(end int) {
		if cur == "" {
			return
		}
		// Comments and blanks right before the next header belong to it.
		for end > start+1 && isTrivia(lines[end-1]) {
			end--
		}
		found[cur] = block{start, end}
	}
	for i, l := range lines {
		m := header().FindStringSubmatch(strings.TrimRight(l, "\r\n"))
		if m == nil {
			continue
		}
		closeBlock(i)
		cur, start = "", i
		name := strings.Join(strings.Fields(m[2]), "")
		if _, ok := repl[name]; ok && m[1] == "[" {
			if _, twice := found[name]; twice {
				return nil
			}
			cur = name
		}
	}
	closeBlock(len(lines))

	var out bytes.Buffer
	for i := 0; i < len(lines); {
		replaced := false
		for name, b := range found {
			if b.start == i {
				out.Write(repl[name])
				i, replaced = b.end, true
				break
			}
		}
		if !replaced {
			out.WriteString(lines[i])
			i++
		}
	}
	for _, name := range []string{"model", "defaults"} {
		if _, ok := found[name]; ok || len(repl[name]) == 0 {
			continue
		}
		if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			out.WriteByte('\n')
		}
		if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n\n")) {
			out.WriteByte('\n')
		}
		out.Write(repl[name])
	}
	return out.Bytes()
}

func isTrivia(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}
