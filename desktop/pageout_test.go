package desktop

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestReadOnlyImage(t *testing.T) {
	maps, err := os.ReadFile("testdata/maps.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		in      string
		exe     string
		want    []imageRange
		wantErr string
	}{
		{"code and read-only data of the executable, not its writable data", string(maps), "/opt/warden/warden-desktop", []imageRange{
			{0x400000, 0x408000}, {0x408000, 0x22df000}, {0x22df000, 0x4ff0000}, {0x4ff0000, 0x4ff1000},
		}, ""},
		{"a path with spaces", string(maps), "/home/a user/warden desktop", []imageRange{{0x7f0c61000000, 0x7f0c61001000}}, ""},
		{"an executable that is not mapped", string(maps), "/usr/bin/nothing", nil, ""},
		{"a range that is not hex", "zz-00408000 r--p 0 fe:00 1 /x\n", "/x", nil, "bad range"},
		{"an empty range", "00408000-00408000 r--p 0 fe:00 1 /x\n", "/x", nil, "bad range"},
		{"no dash", "00408000 r--p 0 fe:00 1 /x\n", "/x", nil, "bad range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readOnlyImage(strings.NewReader(c.in), c.exe)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %x, want %x", got, c.want)
			}
		})
	}
}

// imageRSS sums the resident kB of the running executable's mappings.
func imageRSS(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	total, ours := 0, false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			ours = len(f) >= 6 && strings.Join(f[5:], " ") == exe
			continue
		}
		if ours && len(f) == 3 && f[0] == "Rss:" {
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			total += kb
		}
	}
	return total
}

// The running test binary's own image is released: less of it is resident
// afterwards, and the test goes on running from the pages it faults back.
func TestReleaseStartupPages(t *testing.T) {
	before := imageRSS(t)
	if err := ReleaseStartupPages(); err != nil {
		t.Fatal(err)
	}
	if after := imageRSS(t); after >= before {
		t.Errorf("resident image %d kB after release, %d kB before: want less", after, before)
	}
}

func FuzzReadOnlyImage(f *testing.F) {
	maps, err := os.ReadFile("testdata/maps.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(maps), "/opt/warden/warden-desktop")
	f.Fuzz(func(t *testing.T, in, exe string) {
		rs, err := readOnlyImage(strings.NewReader(in), exe)
		if err != nil {
			return
		}
		for _, r := range rs {
			if r.end <= r.start {
				t.Fatalf("empty or reversed range %x accepted", r)
			}
		}
	})
}
