package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.log")
	var b strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&b, "line %06d\n", i) // 12 bytes a line
	}
	if err := os.WriteFile(big, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		path      string
		n         int
		limit     int64
		want      []string
		truncated bool
	}{
		{name: "missing file", path: "testdata/none.log", n: 5, limit: 1 << 20, want: []string{}},
		{name: "empty file", path: "testdata/empty.log", n: 5, limit: 1 << 20, want: []string{}},
		{name: "no final newline", path: "testdata/no-newline.log", n: 5, limit: 1 << 20, want: []string{"one", "two", "three"}},
		{name: "fewer than asked", path: "testdata/no-newline.log", n: 2, limit: 1 << 20, want: []string{"two", "three"}, truncated: true},
		{name: "carriage returns go", path: "testdata/crlf.log", n: 3, limit: 1 << 20,
			want: []string{"listening on stdio", "warning: slow start", "ready"}, truncated: true},
		{name: "big file, last lines", path: big, n: 3, limit: 1 << 20, want: []string{"line 099997", "line 099998", "line 099999"}, truncated: true},
		{name: "big file, more than one chunk", path: big, n: 6000, limit: 1 << 20, truncated: true},
		{name: "byte bound drops the partial line", path: big, n: 100, limit: 30, want: []string{"line 099998", "line 099999"}, truncated: true},
		{name: "one line longer than the bound", path: "testdata/crlf.log", n: 3, limit: 3, want: []string{}, truncated: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, truncated, err := tail(tc.path, tc.n, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(got) != tc.n || got[0] != fmt.Sprintf("line %06d", 100000-tc.n) || got[tc.n-1] != "line 099999" {
					t.Errorf("got %d lines from %q to %q", len(got), got[0], got[len(got)-1])
				}
			} else if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if truncated != tc.truncated {
				t.Errorf("truncated %v, want %v", truncated, tc.truncated)
			}
		})
	}
}

func BenchmarkTailBigLog(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.log")
	data := strings.Repeat("2026-11-30T05:00:00Z server said something moderately long\n", 1<<17) // ~7.5 MiB
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := tail(path, maxLogLines, maxLogBytes); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzTail checks tail against reading the whole file: its lines are the
// file's last lines, never more than asked, and truncated says whether
// any were left out.
func FuzzTail(f *testing.F) {
	for _, name := range []string{"crlf.log", "no-newline.log", "empty.log"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, 2, int64(10))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, n int, limit int64) {
		if n <= 0 || n > 5000 || limit <= 0 || limit > 1<<20 {
			return
		}
		path := filepath.Join(dir, "f.log")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, truncated, err := tail(path, n, limit)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		if text := strings.TrimSuffix(string(data), "\n"); text != "" {
			for _, l := range strings.Split(text, "\n") {
				all = append(all, strings.TrimSuffix(l, "\r"))
			}
		}
		if len(got) > n || len(got) > len(all) || !slices.Equal(got, all[len(all)-len(got):]) {
			t.Fatalf("got %q, not a tail of %q", got, all)
		}
		if truncated != (len(got) < len(all)) {
			t.Fatalf("truncated %v with %d of %d lines", truncated, len(got), len(all))
		}
		if int64(len(data)) <= limit && len(got) != min(n, len(all)) {
			t.Fatalf("got %d lines, want %d", len(got), min(n, len(all)))
		}
	})
}
