package hugeheap

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestDisabled(t *testing.T) {
	tests := []struct {
		name    string
		godebug string
		want    bool
	}{
		{"unset", "", false},
		{"alone", "disablethp=1", true},
		{"among others", "madvdontneed=1,disablethp=1,gctrace=0", true},
		{"the last setting wins", "disablethp=1,disablethp=0", false},
		{"turned back on", "disablethp=0,disablethp=1", true},
		{"zero", "disablethp=0", false},
		{"another value", "disablethp=2", false},
		{"a longer name", "xdisablethp=1", false},
		{"empty items", ",,disablethp=1,", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := disabled(tc.godebug); got != tc.want {
				t.Errorf("disabled(%q) = %v, want %v", tc.godebug, got, tc.want)
			}
		})
	}
}

// hugeKB is the kernel's count of huge-page-backed memory in the mapping
// that holds addr (/proc/self/smaps, AnonHugePages).
func hugeKB(t *testing.T, addr uintptr) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= addr && addr < hi
			continue
		}
		var kb int
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			fmt.Sscanf(strings.TrimPrefix(line, "AnonHugePages:"), "%d", &kb)
			return kb
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return 0
}

// Back leaves the heap's first chunk in huge pages, as the kernel counts
// them; with Go's switch set it leaves the heap alone.
func TestBack(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skipf("transparent huge pages are off here (%q, %v)", b, err)
	}
	t.Setenv("GODEBUG", "disablethp=1")
	if err := Back(); err != nil {
		t.Fatalf("Back with disablethp=1: %v", err)
	}
	if first != nil {
		t.Fatal("Back ran although GODEBUG=disablethp=1")
	}
	t.Setenv("GODEBUG", "")
	err := Back()
	if errors.Is(err, syscall.EINVAL) {
		t.Skipf("MADV_COLLAPSE is not supported by this kernel: %v", err)
	}
	if err != nil {
		t.Fatalf("Back: %v", err)
	}
	if kb := hugeKB(t, uintptr(unsafe.Pointer(first))); kb < 2048 {
		t.Fatalf("the heap chunk holds %d KiB of huge pages after Back, want at least 2048", kb)
	}
}

// FuzzDisabled holds the allocation-free GODEBUG reader to the obvious one.
func FuzzDisabled(f *testing.F) {
	for _, s := range []string{"", "disablethp=1", "a=1,disablethp=1", "disablethp=1,disablethp=0", ",,", "disablethp=", "disablethp=11"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, godebug string) {
		want := false
		for _, item := range strings.Split(godebug, ",") {
			if v, ok := strings.CutPrefix(item, "disablethp="); ok {
				want = v == "1"
			}
		}
		if got := disabled(godebug); got != want {
			t.Fatalf("disabled(%q) = %v, want %v", godebug, got, want)
		}
	})
}
