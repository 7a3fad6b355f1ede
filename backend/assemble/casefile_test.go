package assemble

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// caseBlock is one case of a sectioned test-data file: "=== name" starts a
// case, "--- section" a section of it, and every other line that is not
// blank or a "#" comment belongs to the current section.
type caseBlock struct {
	name     string
	sections map[string][]string
}

// readCaseFile reads a sectioned test-data file (testdata/gitdirs_by_tools.txt,
// testdata/readers_probes.txt); a line in a section not named in known fails
// the test.
func readCaseFile(t *testing.T, path string, known ...string) []caseBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []caseBlock
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== "):
			out = append(out, caseBlock{name: strings.TrimPrefix(line, "=== "), sections: map[string][]string{}})
			section = ""
		case strings.HasPrefix(line, "--- "):
			section = strings.TrimPrefix(line, "--- ")
		case len(out) == 0 || strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		default:
			cur := &out[len(out)-1]
			found := false
			for _, k := range known {
				found = found || k == section
			}
			if !found {
				t.Fatalf("%s: %s: a line outside any known section (%q): %q", path, cur.name, section, line)
			}
			cur.sections[section] = append(cur.sections[section], line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// text is a section's lines as one text, each ending in a newline.
func (b caseBlock) text(section string) string {
	var s strings.Builder
	for _, l := range b.sections[section] {
		s.WriteString(l + "\n")
	}
	return s.String()
}

// last is a section's last line, trimmed ("" without one).
func (b caseBlock) last(section string) string {
	ls := b.sections[section]
	if len(ls) == 0 {
		return ""
	}
	return strings.TrimSpace(ls[len(ls)-1])
}

// files is a "files" section: path, then a tab and the content (\n and \t
// escaped), then a tab and "+x" for an executable.
func (b caseBlock) files() []toolFile {
	unescape := strings.NewReplacer(`\n`, "\n", `\t`, "\t")
	var out []toolFile
	for _, line := range b.sections["files"] {
		parts := strings.Split(line, "\t")
		tf := toolFile{path: parts[0]}
		if len(parts) > 1 {
			tf.content = unescape.Replace(parts[1])
		}
		tf.exec = len(parts) > 2 && parts[2] == "+x"
		out = append(out, tf)
	}
	return out
}
