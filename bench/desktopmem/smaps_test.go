package desktopmem

import (
	"os"
	"strings"
	"testing"
)

func TestParseRollup(t *testing.T) {
	cases := []struct {
		name    string
		file    string
		want    Usage
		wantErr string
	}{
		{"a real rollup", "testdata/rollup.txt", Usage{}, ""},
		{"no Pss line", "testdata/rollup-nopss.txt", Usage{}, "no Pss line"},
		{"a size that is not a number", "testdata/rollup-badsize.txt", Usage{}, `bad size "12x"`},
		{"the fake app's rollup", "testdata/proc/100/smaps_rollup", Usage{RSS: 240000, PSS: 120000, USS: 80000}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := os.Open(c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := ParseRollup(f)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want != (Usage{}) && got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			// Whatever the machine, a real rollup is self-consistent.
			if got.PSS <= 0 || got.PSS > got.RSS || got.USS > got.PSS {
				t.Errorf("inconsistent usage %+v: want 0 < USS <= PSS <= RSS", got)
			}
		})
	}
}

func TestParseSmaps(t *testing.T) {
	f, err := os.Open("testdata/smaps.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ParseSmaps(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Mapping{
		{"/usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0.19.9", 37000},
		{"/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1", 21528},
		{"[anon]", 9500},
		{"[heap]", 1960},
		{"/home/a user/My Fonts/x.ttf", 40},
		{"/memfd:WebKitSharedMemory (deleted)", 12},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d mappings %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseSmapsErrors(t *testing.T) {
	cases := []struct {
		name, in, wantErr string
	}{
		{"Pss before any header", "Pss: 4 kB\n", "before any mapping header"},
		{"bad number", "00400000-00401000 r-xp 00000000 fe:00 1 /bin/x\nPss: -4 kB\n", "bad size"},
		{"empty input is no mappings", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseSmaps(strings.NewReader(c.in))
			if c.wantErr == "" {
				if err != nil || len(got) != 0 {
					t.Fatalf("got %v, %v; want no mappings, no error", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("err = %v, want %q", err, c.wantErr)
			}
		})
	}
}

func FuzzParseRollup(f *testing.F) {
	for _, p := range []string{"testdata/rollup.txt", "testdata/rollup-nopss.txt", "testdata/rollup-badsize.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		u, err := ParseRollup(strings.NewReader(in))
		if err == nil && (u.PSS < 0 || u.RSS < 0 || u.USS < 0) {
			t.Fatalf("negative size accepted: %+v", u)
		}
	})
}

func FuzzParseSmaps(f *testing.F) {
	b, err := os.ReadFile("testdata/smaps.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("00400000-00401000 r-xp 00000000 fe:00 1\nPss: 4 kB\n")
	f.Fuzz(func(t *testing.T, in string) {
		ms, err := ParseSmaps(strings.NewReader(in))
		if err != nil {
			return
		}
		for i, m := range ms {
			if m.Name == "" || m.PSS < 0 || (i > 0 && ms[i-1].PSS < m.PSS) {
				t.Fatalf("bad result %+v", ms)
			}
		}
	})
}
