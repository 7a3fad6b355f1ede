package tools

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type searchOut struct {
	Matches   []Match `json:"matches"`
	Truncated bool    `json:"truncated"`
}

func TestSearchRipgrep(t *testing.T) {
	env := testEnv(t)
	ws := env.Workspace
	gitInit(t, ws)
	writeFile(t, filepath.Join(ws, "a.go"), "package a\nfunc Hello() {}\n")
	writeFile(t, filepath.Join(ws, "b.txt"), "hello world\nHELLO again\n")
	writeFile(t, filepath.Join(ws, "sub", "c.go"), "// hello from c\n")
	writeFile(t, filepath.Join(ws, ".gitignore"), "ignored.txt\n")
	writeFile(t, filepath.Join(ws, "ignored.txt"), "hello hidden\n")
	var many strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&many, "needle %d\n", i)
	}
	writeFile(t, filepath.Join(ws, "many.txt"), many.String())
	tests := []struct {
		name      string
		args      string
		isErr     bool
		want      []string // path:line
		truncated bool
		message   string
	}{
		{"case sensitive", `{"pattern":"hello"}`, false, []string{"b.txt:1", "sub/c.go:1"}, false, ""},
		{"case insensitive", `{"pattern":"hello","case_insensitive":true}`, false, []string{"a.go:2", "b.txt:1", "b.txt:2", "sub/c.go:1"}, false, ""},
		{"glob", `{"pattern":"hello","glob":"*.go","case_insensitive":true}`, false, []string{"a.go:2", "sub/c.go:1"}, false, ""},
		{"path", `{"pattern":"hello","path":"sub"}`, false, []string{"sub/c.go:1"}, false, ""},
		{"capped", `{"pattern":"needle","max_results":10}`, false, nil, true, "stopped at 10 matches"},
		{"no matches", `{"pattern":"zzzz"}`, false, nil, false, "no matches"},
		{"bad regex", `{"pattern":"("}`, true, nil, false, "ripgrep failed: regex parse error"},
		{"pattern that looks like a flag", `{"pattern":"--pre=sh"}`, false, nil, false, "no matches"},
		{"missing pattern", `{}`, true, nil, false, `missing required argument "pattern"`},
		{"nonexistent path", `{"pattern":"x","path":"nope"}`, true, nil, false, "nope does not exist"},
		{"max_results too large", `{"pattern":"x","max_results":100000}`, true, nil, false, "max_results must be between"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := invoke(t, NewSearchRipgrep(""), env, tc.args)
			if r.IsError != tc.isErr || !strings.Contains(text(r), tc.message) {
				t.Fatalf("got %v %q, want %v %q", r.IsError, text(r), tc.isErr, tc.message)
			}
			if tc.isErr {
				return
			}
			var o searchOut
			if err := json.Unmarshal(r.Structured, &o); err != nil {
				t.Fatal(err)
			}
			if o.Truncated != tc.truncated {
				t.Fatalf("truncated = %v", o.Truncated)
			}
			if tc.truncated {
				if len(o.Matches) != 10 {
					t.Fatalf("%d matches, want 10", len(o.Matches))
				}
				return
			}
			var got []string
			for _, m := range o.Matches {
				got = append(got, fmt.Sprintf("%s:%d", m.Path, m.Line))
			}
			if strings.Join(sorted(got), " ") != strings.Join(tc.want, " ") {
				t.Fatalf("matches %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSearchRipgrepAgreesWithRg compares the tool with rg run by hand.
func TestSearchRipgrepAgreesWithRg(t *testing.T) {
	env := testEnv(t)
	for i := 0; i < 50; i++ {
		writeFile(t, filepath.Join(env.Workspace, fmt.Sprintf("d%d", i%5), fmt.Sprintf("f%d.txt", i)), fmt.Sprintf("x\nmatch %d\nmatch again\n", i))
	}
	cmd := exec.Command("rg", "--count-matches", "--no-filename", "match", ".")
	cmd.Dir = env.Workspace
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, l := range strings.Fields(string(out)) {
		var n int
		fmt.Sscan(l, &n)
		total += n
	}
	r := invoke(t, NewSearchRipgrep(""), env, `{"pattern":"match","max_results":5000}`)
	var o searchOut
	_ = json.Unmarshal(r.Structured, &o)
	if len(o.Matches) != total || total != 100 {
		t.Fatalf("tool found %d, rg counted %d", len(o.Matches), total)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// rgLine writes a match line the way rg 13 does.
func rgLine(t testing.TB, path, text string, num int) []byte {
	t.Helper()
	p, _ := json.Marshal(path)
	x, _ := json.Marshal(text)
	return []byte(fmt.Sprintf(`{"type":"match","data":{"path":{"text":%s},"lines":{"text":%s},"line_number":%d,"absolute_offset":0,"submatches":[{"match":{"text":"a"},"start":0,"end":1}]}}`, p, x, num))
}

func TestFastMatch(t *testing.T) {
	tests := []struct {
		name, path, text string
		num              int
	}{
		{"plain", "./a.go", "func a() {}\n", 3},
		{"escapes", `./we"ird\path.go`, "tab\there \"quoted\" back\\slash\r\n", 12},
		{"unicode escape", "./é.go", "\u0001ctrl \u2028 sep\n", 1},
		{"submatches key inside the text", "./x", `,"submatches":[]` + "\n", 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line := rgLine(t, tc.path, tc.text, tc.num)
			ms, _, err := readMatches(strings.NewReader(string(line)+"\n"), 10)
			if err != nil || len(ms) != 1 {
				t.Fatalf("%v %v", ms, err)
			}
			want := strings.TrimPrefix(tc.path, "./")
			if ms[0].Path != want || ms[0].Text != strings.TrimRight(tc.text, "\r\n") || ms[0].Line != tc.num {
				t.Fatalf("got %+v", ms[0])
			}
		})
	}
	// rg's "bytes" form for non-UTF-8 paths takes the encoding/json path.
	line := `{"type":"match","data":{"path":{"bytes":"L3RtcC//"},"lines":{"text":"x\n"},"line_number":1,"absolute_offset":0,"submatches":[]}}` + "\n"
	ms, _, err := readMatches(strings.NewReader(line), 10)
	if err != nil || len(ms) != 1 || ms[0].Path != "/tmp/\xff" {
		t.Fatalf("bytes path: %+v %v", ms, err)
	}
}

func FuzzFastMatch(f *testing.F) {
	f.Add("./a.go", "x\n", 1)
	f.Add(`a\"b`, "\u00e9\t\\", 99)
	f.Fuzz(func(t *testing.T, path, text string, num int) {
		if num < 0 || num > 1e9 {
			return
		}
		line := rgLine(t, path, text, num)
		var m rgMatch
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		p, x, n, ok := fastMatch(line)
		if ok && (p != m.Data.Path.String() || x != m.Data.Lines.String() || n != num) {
			t.Fatalf("fastMatch = %q %q %d, encoding/json = %q %q %d", p, x, n, m.Data.Path.String(), m.Data.Lines.String(), num)
		}
	})
}
