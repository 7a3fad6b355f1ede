package shell

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// classifyCase is one line of testdata/classify.tsv (class, command, note) or
// of testdata/classify_multiline.jsonl.
type classifyCase struct {
	Class string `json:"class"`
	Cmd   string `json:"cmd"`
	Note  string `json:"note"`
	line  int
}

const testCwd = "/work/ws"

func loadClassifyCases(t testing.TB) []classifyCase {
	t.Helper()
	var cases []classifyCase
	f, err := os.Open("testdata/classify.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) < 2 {
			t.Fatalf("classify.tsv:%d: want class<TAB>command<TAB>note, got %q", n, line)
		}
		c := classifyCase{Class: parts[0], Cmd: parts[1], line: n}
		if len(parts) > 2 {
			c.Note = parts[2]
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	jf, err := os.ReadFile("testdata/classify_multiline.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(jf), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var c classifyCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("classify_multiline.jsonl:%d: %v", i+1, err)
		}
		c.line = -(i + 1)
		cases = append(cases, c)
	}
	return cases
}

func TestClassifyCases(t *testing.T) {
	cases := loadClassifyCases(t)
	if len(cases) < 400 {
		t.Errorf("only %d classifier cases; the suite promises at least 400", len(cases))
	}
	for _, c := range cases {
		want, err := ParseClass(c.Class)
		if err != nil {
			t.Errorf("line %d: %v", c.line, err)
			continue
		}
		got := Classify(c.Cmd, testCwd)
		if got.Class != want {
			t.Errorf("line %d: %q = %s, want %s (%s)\n  unknown=%q destructive=%q writes=%q network=%v",
				c.line, c.Cmd, got.Class, want, c.Note, got.Unknown, got.Destructive, got.Writes, got.Network)
		}
	}
}
