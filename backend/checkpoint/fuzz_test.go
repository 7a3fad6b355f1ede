package checkpoint

import (
	"strconv"
	"strings"
	"testing"
)

// parseRaw reads what git prints; whatever it is given, it returns entries
// whose fields came from the input or an error, and never panics.
func FuzzParseRaw(f *testing.F) {
	f.Add([]byte(":100644 100644 " + strings.Repeat("a", 40) + " " + strings.Repeat("b", 40) + " M\x00src/a.go\x00"))
	f.Add([]byte(":000000 120000 " + zeroID + " " + strings.Repeat("c", 40) + " A\x00link\x00:100755 000000 " + strings.Repeat("d", 40) + " " + zeroID + " D\x00with space é\x00"))
	f.Add([]byte(":100644"))
	f.Add([]byte("\x00\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		list, err := parseRaw(in)
		if err != nil {
			return
		}
		for _, e := range list {
			if e.status == 0 || !strings.Contains(string(in), e.path) {
				t.Fatalf("entry not from the input: %+v", e)
			}
		}
	})
}

func TestParseRawRejects(t *testing.T) {
	cases := []struct{ name, in string }{
		{"no colon", "100644 100644 a b M\x00p\x00"},
		{"too few fields", ":100644 a M\x00p\x00"},
		{"no path", ":100644 100644 a b M"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseRaw([]byte(tc.in)); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// The readers of git's formats that snapshots and change sets rely on:
// whatever they are given, they return what the input says or an error.
func FuzzParseStage(f *testing.F) {
	f.Add([]byte("100644 " + strings.Repeat("a", 40) + " 0\tsrc/a.go\x00120000 " + strings.Repeat("b", 40) + " 0\tlink\x00"))
	f.Add([]byte("160000 " + strings.Repeat("c", 40) + " 0\tsub\x00"))
	f.Add([]byte("100644 x 0\tp\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		list, err := parseStage(in)
		if err != nil {
			return
		}
		for _, e := range list {
			if !strings.Contains(string(in), e.path) || !strings.Contains(string(in), e.id.String()) || e.path == "" {
				t.Fatalf("entry not from the input: %+v", e)
			}
		}
	})
}

func FuzzParseTree(f *testing.F) {
	id := strings.Repeat("\x01", 20)
	f.Add([]byte("100644 a.go\x00" + id + "40000 src\x00" + id))
	f.Add([]byte("100644 \x00" + id))
	f.Add([]byte("100644 a"))
	f.Fuzz(func(t *testing.T, in []byte) {
		list, err := parseTree(in)
		if err != nil {
			return
		}
		n := 0
		for _, e := range list {
			if e.name == "" || !strings.Contains(string(in), e.name+"\x00") {
				t.Fatalf("entry not from the input: %+v", e)
			}
			n += len(strconv.FormatUint(uint64(e.mode), 8)) + 1 + len(e.name) + 21
		}
		if n < len(in) {
			t.Fatalf("%d of %d bytes read", n, len(in))
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	f.Add([]byte("blob 12"), true)
	f.Add([]byte("tree 0"), true)
	f.Add([]byte("blob -1"), true)
	f.Add([]byte("blob 012"), true)
	f.Fuzz(func(t *testing.T, in []byte, terminated bool) {
		kind, size, err := parseHeader(in, terminated)
		if err != nil {
			return
		}
		if size < 0 || !strings.HasPrefix(string(in), kind+" ") || !terminated {
			t.Fatalf("%q → %s %d", in, kind, size)
		}
	})
}
