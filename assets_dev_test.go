//go:build !production

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The development build reads its frontend only from the folder
// WARDEN_DEV_ASSETS names, never from the working directory.
func TestDevAssetsNeverFromTheWorkingDirectory(t *testing.T) {
	cwd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, "frontend", "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "frontend", "dist", "index.html"), []byte("PLANTED"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	for _, tc := range []struct {
		name, env, want, err string
	}{
		{name: "no variable: a page that says so", want: "WARDEN_DEV_ASSETS"},
		{name: "a relative variable is refused", env: "frontend/dist", err: "not an absolute path"},
		{name: "the named folder", env: filepath.Join(cwd, "frontend", "dist"), want: "PLANTED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(devAssetsEnv, tc.env)
			fsys, err := assets()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := fs.ReadFile(fsys, "index.html")
			if err != nil || !strings.Contains(string(b), tc.want) {
				t.Fatalf("index.html = %q, %v; want %q", b, err, tc.want)
			}
		})
	}
}
