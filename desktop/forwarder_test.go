package desktop

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSiblingForwarder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		make  func(dir string) // what lies beside warden-desktop
		found bool
	}{
		{"the packaged CLI beside the window", func(d string) { write(t, filepath.Join(d, "warden"), 0o755) }, true},
		{"no CLI (a development build)", func(string) {}, false},
		{"not executable", func(d string) { write(t, filepath.Join(d, "warden"), 0o644) }, false},
		{"a folder of that name", func(d string) { _ = os.Mkdir(filepath.Join(d, "warden"), 0o755) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			exe := filepath.Join(dir, "warden-desktop")
			write(t, exe, 0o755)
			tc.make(dir)
			got := siblingForwarder(exe)
			if want := filepath.Join(dir, "warden"); tc.found && got != want {
				t.Fatalf("got %q, want %q", got, want)
			} else if !tc.found && got != "" {
				t.Fatalf("got %q, want none", got)
			}
		})
	}
	if got := siblingForwarder("/usr/bin/warden"); got != "" {
		t.Fatalf("the CLI itself is not its own sibling: %q", got)
	}
}

func write(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
}
