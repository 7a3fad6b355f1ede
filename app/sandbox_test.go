package app

import (
	"testing"

	"github.com/warden-dev/warden/backend/cage/sandbox"
)

// TestCageProbe shows the window's indicator is the cage's own probe: the
// real bwrap here, and a broken one, reported field by field.
func TestCageProbe(t *testing.T) {
	cases := []struct {
		name      string
		cfg       sandbox.Config
		available bool
	}{
		{"real bwrap", sandbox.Config{}, true},
		{"missing bwrap", sandbox.Config{Bwrap: "warden-no-such-bwrap"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cage := sandbox.New(tc.cfg)
			t.Cleanup(func() { _ = cage.Close() })
			got, _ := New(Options{Sandbox: CageProbe(cage.Detect)}).SandboxStatus()
			want := cage.Status()
			if got.Available != tc.available || got.Available != want.Available || got.Detail != want.Reason ||
				got.Mechanism != want.Mechanism || got.Version != want.Version {
				t.Errorf("SandboxStatus() = %+v, want the cage's %+v", got, want)
			}
		})
	}
}

func TestNoProbeSaysSo(t *testing.T) {
	got, _ := New(Options{}).SandboxStatus()
	if got.Available || got.Detail == "" {
		t.Errorf("SandboxStatus() without a probe = %+v, want unavailable with a reason", got)
	}
}
