package sandbox

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDetect is the one probe of the OS sandbox against the real bwrap and
// against stand-ins for the ways it fails on other machines.
func TestDetectProbe(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	cases := []struct {
		name       string
		cfg        Config
		available  bool
		mechanism  string
		version    string // substring of Version
		reasonHas  string // substring of Reason
		maxElapsed time.Duration
	}{
		{name: "real bwrap on this machine works", cfg: Config{}, available: true,
			mechanism: "bubblewrap", version: "bubblewrap", reasonHas: "read-only root"},
		{name: "missing binary names the package to install", cfg: Config{Bwrap: "warden-no-such-bwrap"},
			mechanism: "bubblewrap", reasonHas: "install the bubblewrap package"},
		{name: "binary that fails even --version", cfg: Config{Bwrap: "false"},
			mechanism: "bubblewrap", reasonHas: "--version failed: exit status 1"},
		{name: "namespaces denied reports bwrap's own reason", cfg: Config{Bwrap: abs("testdata/bwrap-denied.sh")},
			mechanism: "bubblewrap", version: "bubblewrap 0.8.0", reasonHas: "No permissions to create new namespace"},
		{name: "a hung bwrap is cut off at the timeout",
			cfg:       Config{Bwrap: abs("testdata/bwrap-hangs.sh"), ProbeTimeout: 200 * time.Millisecond},
			mechanism: "bubblewrap", reasonHas: "no answer within 200ms", maxElapsed: 3 * time.Second},
		{name: "container mode trusts the outer container", cfg: Config{Mode: ModeContainer}, available: true,
			mechanism: "container", reasonHas: "outer container"},
		{name: "unknown mode is not a cage", cfg: Config{Mode: "chroot"}, reasonHas: `unknown sandbox mode "chroot"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.cfg)
			t.Cleanup(func() { _ = c.Close() })
			start := time.Now()
			got := c.Detect(context.Background())
			elapsed := time.Since(start)
			if got.Available != tc.available {
				t.Fatalf("Available = %v, want %v (reason %q)", got.Available, tc.available, got.Reason)
			}
			if got != c.Status() {
				t.Errorf("Status() = %+v, want the last Detect %+v", c.Status(), got)
			}
			if got.Mechanism != tc.mechanism {
				t.Errorf("Mechanism = %q, want %q", got.Mechanism, tc.mechanism)
			}
			if !strings.Contains(got.Version, tc.version) {
				t.Errorf("Version = %q, want it to contain %q", got.Version, tc.version)
			}
			if !strings.Contains(got.Reason, tc.reasonHas) {
				t.Errorf("Reason = %q, want it to contain %q", got.Reason, tc.reasonHas)
			}
			if tc.maxElapsed > 0 && elapsed > tc.maxElapsed {
				t.Errorf("probe took %s, want under %s", elapsed, tc.maxElapsed)
			}
		})
	}
}
