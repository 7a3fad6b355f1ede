package readers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckLoad(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	root := filepath.Join(base, "root")
	installed := filepath.Join(base, "usr", "lib", "warden")
	for _, d := range []string{ws, root, installed, filepath.Join(ws, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) string {
		if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	node := write(filepath.Join(installed, "node"))
	planted := write(filepath.Join(ws, "bin", "node"))
	// A link outside every root that leads into the workspace.
	linkOut := filepath.Join(base, "node-link")
	if err := os.Symlink(planted, linkOut); err != nil {
		t.Fatal(err)
	}
	// A link inside the workspace that leads to the installed file.
	linkIn := filepath.Join(ws, "installed-node")
	if err := os.Symlink(node, linkIn); err != nil {
		t.Fatal(err)
	}
	// A workspace reached through a link.
	wsLink := filepath.Join(base, "ws-link")
	if err := os.Symlink(ws, wsLink); err != nil {
		t.Fatal(err)
	}
	roots := []string{ws, root}
	for _, tc := range []struct {
		name   string
		path   string
		roots  []string
		refuse string // the root named, "" for allowed
	}{
		{"installed location", node, roots, ""},
		{"planted in the workspace", planted, roots, ws},
		{"the workspace itself", ws, roots, ws},
		{"a writable root", filepath.Join(root, "dist", "index.html"), roots, root},
		{"a link leading into the workspace", linkOut, roots, ws},
		{"a link in the workspace, even to an installed file", linkIn, roots, ws},
		{"the workspace named through a link", filepath.Join(wsLink, "bin", "node"), roots, ws},
		{"a root named through a link", planted, []string{wsLink}, wsLink},
		{"a name next to the root", ws + "-other/node", roots, ""},
		{"no roots", planted, nil, ""},
		{"a relative root is ignored", planted, []string{"ws"}, ""},
		{"a missing file under a root", filepath.Join(ws, "nope", "cli.js"), roots, ws},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLoad("the browser driver's Node", tc.path, tc.roots)
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) || re.Root != tc.refuse {
				t.Fatalf("err = %v, want a refusal naming %s", err, tc.refuse)
			}
			for _, want := range []string{"the browser driver's Node", tc.path, tc.refuse, "caged command can write"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q: %v", want, err)
				}
			}
		})
	}
}
