package policy

import (
	"os"
	"strings"
	"testing"
)

func readCorpus(t testing.TB, name string) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestReadOnlyCorpus is the benchmark the product is held to: in a
// read-only sandbox with no OS cage (so nothing rides on the cage), at least
// 90% of ordinary read-only commands run without a prompt, and none of the
// unsafe ones do.
func TestReadOnlyCorpus(t *testing.T) {
	e := New(Config{})
	s := session(ReadOnly, OnRequest)
	s.Caged = false
	safe := readCorpus(t, "readonly_corpus.txt")
	allowed := 0
	for _, cmd := range safe {
		if d := e.Decide(shell(cmd), s); d.Verdict == VerdictAllow {
			allowed++
		} else {
			t.Logf("not allowed: %q (%s: %s)", cmd, d.Verdict, d.Detail)
		}
	}
	rate := float64(allowed) / float64(len(safe))
	t.Logf("read-only corpus: %d/%d allowed (%.1f%%)", allowed, len(safe), 100*rate)
	if len(safe) < 150 || allowed != len(safe) {
		t.Errorf("%d/%d read-only commands allowed, want all of at least 150", allowed, len(safe))
	}
	unsafe := readCorpus(t, "unsafe_corpus.txt")
	for _, cmd := range unsafe {
		for _, caged := range []bool{false, true} {
			s.Caged = caged
			if d := e.Decide(shell(cmd), s); d.Verdict == VerdictAllow && (!caged || ClassifyShell(cmd, ws).Class != ClassUnknown) {
				t.Errorf("unsafe command allowed (caged=%v): %q", caged, cmd)
			}
		}
	}
	if len(unsafe) < 80 {
		t.Errorf("only %d unsafe cases", len(unsafe))
	}
}
