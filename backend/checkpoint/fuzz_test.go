package checkpoint

import (
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
