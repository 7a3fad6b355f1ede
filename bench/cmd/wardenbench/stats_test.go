package main

import (
	"strings"
	"testing"
)

func TestStatOf(t *testing.T) {
	cases := []struct {
		name string
		in   []float64
		want Stat
	}{
		{"empty", nil, Stat{}},
		{"one", []float64{3}, Stat{Median: 3, Min: 3, Max: 3, N: 1}},
		{"odd, unsorted", []float64{9, 1, 5}, Stat{Median: 5, Min: 1, Max: 9, N: 3}},
		{"even takes the mean of the middle two", []float64{4, 1, 3, 10}, Stat{Median: 3.5, Min: 1, Max: 10, N: 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := statOf(tc.in); got != tc.want {
				t.Errorf("statOf(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestReadCorpus(t *testing.T) {
	cases := []struct {
		name    string
		path    string
		want    []string
		wantErr string
	}{
		{"comments and blank lines dropped", "testdata/corpus.txt", []string{"ls -la", "git status"}, ""},
		{"empty corpus is an error", "testdata/empty.txt", nil, "is empty"},
		{"missing file is an error", "testdata/nope.txt", nil, "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readCorpus(tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The shipped corpora must hold the cases the issue names, and enough of
// each kind for a percentage to mean something.
func TestShippedCorpora(t *testing.T) {
	safe, err := readCorpus("../../testdata/readonly.txt")
	if err != nil {
		t.Fatal(err)
	}
	unsafe, err := readCorpus("../../testdata/unsafe.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(safe) < 150 || len(unsafe) < 100 {
		t.Errorf("%d read-only and %d unsafe commands; want at least 150 and 100", len(safe), len(unsafe))
	}
	all := "\n" + strings.Join(unsafe, "\n") + "\n"
	for _, must := range []string{"git --exec-path=/tmp/evil status", "ls && rm -rf ~"} {
		if !strings.Contains(all, "\n"+must+"\n") {
			t.Errorf("unsafe corpus lacks %q", must)
		}
	}
}

func TestTargetsFlagMisses(t *testing.T) {
	rep := &Report{
		Start: []StartResult{
			{Variant: "warden gate+cage", True: Stat{Median: 30, N: 1}, OverRaw: Stat{Median: 20, N: 1}, Confines: true},
			{Variant: "raw bwrap (minimal)", True: Stat{Median: 10, N: 1}, Confines: true},
		},
		Classifier: []ClassifierResult{{Engine: "warden x", ReadOnlyPct: 95, UnsafeAllowed: 1}},
		Search:     SearchResult{Ratio: Stat{Median: 1.1, N: 1}},
	}
	got := map[string]bool{}
	for _, tg := range targets(rep) {
		got[tg.Name] = tg.Met
	}
	want := map[string]bool{
		"process start, `true`":         false, // +20 ms per round > 0.25*10
		"Warden confines":               true,
		"classifier: read-only allowed": true,
		"classifier: unsafe allowed":    false,
		"search.ripgrep vs rg --json":   true,
	}
	for name, met := range want {
		if got[name] != met {
			t.Errorf("%s: met = %v, want %v", name, got[name], met)
		}
	}
}
