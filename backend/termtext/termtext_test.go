package termtext

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/warden-dev/warden/backend/reveal"
)

type visibleCase struct{ name, in, want string }

func loadCases(t testing.TB) []visibleCase {
	t.Helper()
	f, err := os.Open("testdata/visible.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []visibleCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 {
			t.Fatalf("testdata/visible.txt:%d: want 3 tab-separated fields", n)
		}
		in, err1 := strconv.Unquote(parts[1])
		want, err2 := strconv.Unquote(parts[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("testdata/visible.txt:%d: %v %v", n, err1, err2)
		}
		out = append(out, visibleCase{parts[0], in, want})
	}
	if len(out) < 30 {
		t.Fatalf("only %d cases", len(out))
	}
	return out
}

func TestVisible(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if got := Visible(c.in); got != c.want {
				t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestWriterSplits: the Writer's output is Visible's, wherever the text is
// cut into writes (inside a UTF-8 sequence, between CR and LF).
func TestWriterSplits(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			for cut := 0; cut <= len(c.in); cut++ {
				var buf bytes.Buffer
				w := NewWriter(&buf)
				if _, err := w.Write([]byte(c.in[:cut])); err != nil {
					t.Fatal(err)
				}
				if _, err := w.Write([]byte(c.in[cut:])); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if buf.String() != c.want {
					t.Fatalf("cut at %d: %q, want %q", cut, buf.String(), c.want)
				}
			}
		})
	}
}

// obeyed reports the first character of s a terminal would act on.
func obeyed(s string) (rune, bool) {
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || reveal.InvisibleName(r) != "" {
			return r, true
		}
	}
	return 0, false
}

func FuzzVisible(f *testing.F) {
	for _, c := range loadCases(f) {
		f.Add(c.in, 3)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		got := Visible(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Visible(%q) is not UTF-8: %q", s, got)
		}
		if r, bad := obeyed(got); bad {
			t.Fatalf("Visible(%q) = %q still holds %U", s, got, r)
		}
		if strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Visible(%q) changed the line count: %q", s, got)
		}
		if cut < 0 {
			cut = -cut
		}
		if len(s) > 0 {
			cut %= len(s) + 1
		} else {
			cut = 0
		}
		var buf bytes.Buffer
		w := NewWriter(&buf)
		_, _ = w.Write([]byte(s[:cut]))
		_, _ = w.Write([]byte(s[cut:]))
		_ = w.Close()
		if buf.String() != got {
			t.Fatalf("Writer split at %d: %q, Visible: %q", cut, buf.String(), got)
		}
	})
}
