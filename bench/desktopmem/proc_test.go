package desktopmem

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		comm    string
		ppid    int
		wantErr string
	}{
		{"plain", "42 (bash) S 7 42 42 0", "bash", 7, ""},
		{"a name with spaces and parentheses", "43 (odd (name) x) S 9 43", "odd (name) x", 9, ""},
		{"no parentheses", "44 bash S 7", "", 0, "no (comm)"},
		{"cut short", "45 (bash) S", "", 0, "too few fields"},
		{"ppid not a number", "46 (bash) S x", "", 0, "bad ppid"},
		{"reversed parentheses", "47 )bash( S 1", "", 0, "no (comm)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			comm, ppid, err := parseStat([]byte(c.in))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || comm != c.comm || ppid != c.ppid {
				t.Fatalf("got %q %d %v, want %q %d", comm, ppid, err, c.comm, c.ppid)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("42 (bash) S 7 42 42 0")
	f.Add("43 (odd (name) x) S 9 43")
	f.Fuzz(func(t *testing.T, in string) {
		if _, ppid, err := parseStat([]byte(in)); err == nil && ppid < 0 {
			t.Fatalf("negative ppid accepted from %q", in)
		}
	})
}

// The fake /proc under testdata holds the app (100), its two WebKit
// children, a grandchild with an awkward name, an unrelated WebKit process
// (200) and an unrelated shell (300).
func TestReadSumsTheWholeTree(t *testing.T) {
	o := Options{Proc: "testdata/proc"}.withDefaults()
	r, err := read(o, 100)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range r.Processes {
		names = append(names, p.Name)
	}
	if want := []string{"warden-desktop", "WebKitNetworkPr", "WebKitWebProces", "odd (name) x"}; !reflect.DeepEqual(names, want) {
		t.Errorf("processes = %v, want %v", names, want)
	}
	if want := (Usage{RSS: 500000, PSS: 250000, USS: 154500}); r.Total != want {
		t.Errorf("total = %+v, want %+v", r.Total, want)
	}
	if r.Neighbours != 1 {
		t.Errorf("neighbours = %d, want 1 (pid 200 maps WebKit)", r.Neighbours)
	}
}

func TestReadBreakdownAndErrors(t *testing.T) {
	cases := []struct {
		name      string
		root      int
		breakdown int
		wantTop   int
		wantErr   string
	}{
		{"top mappings of the web process", 102, 3, 3, ""},
		{"asking for more than there are", 102, 50, 6, ""},
		{"a process without smaps cannot be broken down", 101, 2, 0, "smaps"},
		{"an app that is gone", 999, 0, 0, "exited before the reading"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Proc: "testdata/proc", Breakdown: c.breakdown}.withDefaults()
			r, err := read(o, c.root)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(r.Processes[0].Top); got != c.wantTop {
				t.Fatalf("top = %d mappings, want %d", got, c.wantTop)
			}
			if r.Processes[0].Top[0].Name != "/usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0.19.9" {
				t.Errorf("largest mapping = %+v", r.Processes[0].Top[0])
			}
		})
	}
}
