package settings_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSettingsShowWhatTheCageHides(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, "vault"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, "cage.toml")
	got, err := r.g.Settings.GetSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := got.Cage
	if c == nil {
		t.Fatal("no cage view")
	}
	if !slices.Contains(c.Hidden, filepath.Join(home, "vault")) || slices.Contains(c.Hidden, filepath.Join(home, "not-there")) {
		t.Errorf("hidden %v: want the existing deny_read path, not the missing one", c.Hidden)
	}
	if !slices.Contains(c.Hidden, filepath.Dir(r.path)) {
		t.Errorf("hidden %v: Warden's config folder is missing", c.Hidden)
	}
	if !c.DockerSocket || !slices.Equal(c.AllowUnixSockets, []string{"/run/docker.sock"}) {
		t.Errorf("sockets %v docker=%v", c.AllowUnixSockets, c.DockerSocket)
	}
	if c.Limits.Processes != 512 || c.Limits.TmpBytes != 1<<30 || c.Limits.FileBytes <= 0 {
		t.Errorf("limits %+v", c.Limits)
	}
}
