package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBwrapProbe(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	cases := []struct {
		name       string
		probe      BwrapProbe
		available  bool
		version    string // substring of Version
		detailHas  string // substring of Detail
		maxElapsed time.Duration
	}{
		{
			name:      "real bwrap on this machine works",
			probe:     BwrapProbe{},
			available: true,
			version:   "bubblewrap",
			detailHas: "read-only root",
		},
		{
			name:      "missing binary names the package to install",
			probe:     BwrapProbe{Path: "warden-no-such-bwrap"},
			detailHas: "install the bubblewrap package",
		},
		{
			name:      "binary that fails even --version",
			probe:     BwrapProbe{Path: "false"},
			detailHas: "--version failed: exit status 1",
		},
		{
			name:      "namespaces denied reports bwrap's own reason",
			probe:     BwrapProbe{Path: abs("testdata/bwrap-denied.sh")},
			version:   "bubblewrap 0.8.0",
			detailHas: "No permissions to create new namespace",
		},
		{
			name:       "a hung bwrap is cut off at the timeout",
			probe:      BwrapProbe{Path: abs("testdata/bwrap-hangs.sh"), Timeout: 200 * time.Millisecond},
			detailHas:  "no answer within 200ms",
			maxElapsed: 3 * time.Second,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			got := tc.probe.Probe(context.Background())
			elapsed := time.Since(start)
			if got.Available != tc.available {
				t.Fatalf("Available = %v, want %v (detail %q)", got.Available, tc.available, got.Detail)
			}
			if got.Mechanism != "bubblewrap" {
				t.Errorf("Mechanism = %q, want bubblewrap", got.Mechanism)
			}
			if !strings.Contains(got.Version, tc.version) {
				t.Errorf("Version = %q, want it to contain %q", got.Version, tc.version)
			}
			if !strings.Contains(got.Detail, tc.detailHas) {
				t.Errorf("Detail = %q, want it to contain %q", got.Detail, tc.detailHas)
			}
			if tc.maxElapsed > 0 && elapsed > tc.maxElapsed {
				t.Errorf("probe took %s, want under %s", elapsed, tc.maxElapsed)
			}
		})
	}
}

func TestFirstLine(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"one line with newline", "bubblewrap 0.8.0\n", "bubblewrap 0.8.0"},
		{"several lines", "  first \nsecond\n", "first"},
		{"leading blank lines", "\n\nreason\n", "reason"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstLine(tc.in); got != tc.want {
				t.Errorf("firstLine(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
