//go:build packagecheck

// The package check (`make package-check`, part of `make test`): the built
// .deb inspected with dpkg-deb, unpacked with `dpkg -x` into a throw-away
// root, and its programs run from there — never installed, so the
// machine's package database is not touched.
package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	distDir  = flag.String("dist", "", "the folder with the .deb")
	buildVer = flag.String("version", "", "the build's version (the Makefile's VERSION)")
)

func debPath(t *testing.T) (path, ver string) {
	t.Helper()
	if *distDir == "" || *buildVer == "" {
		t.Fatal("run as `make package-check` (it passes -dist and -version)")
	}
	ver, err := debianVersion(*buildVer)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(*distDir, fmt.Sprintf("warden_%s_amd64.deb", ver))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%v (make package builds it)", err)
	}
	return path, ver
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// control reads the control fields (continuation lines joined).
func control(t *testing.T, deb string) map[string]string {
	t.Helper()
	fields := map[string]string{}
	var last string
	for _, line := range strings.Split(run(t, "dpkg-deb", "--field", deb), "\n") {
		if strings.HasPrefix(line, " ") && last != "" {
			fields[last] += "\n" + strings.TrimSpace(line)
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			last = k
			fields[k] = strings.TrimSpace(v)
		}
	}
	return fields
}

func list(field string) map[string]bool {
	out := map[string]bool{}
	for _, d := range strings.Split(field, ",") {
		name := strings.Fields(strings.TrimSpace(d))
		if len(name) > 0 {
			out[name[0]] = true
		}
	}
	return out
}

func TestPackageControl(t *testing.T) {
	deb, ver := debPath(t)
	info := run(t, "dpkg-deb", "--info", deb)
	for _, script := range []string{"preinst", "postinst", "prerm", "postrm"} {
		// No maintainer scripts: installing runs nothing, and removing
		// cannot touch the user's data (~/.config/warden, ~/.local/share/warden).
		if regexp.MustCompile(`\s` + script + `\s`).MatchString(info) {
			t.Errorf("the package has a %s script:\n%s", script, info)
		}
	}
	f := control(t, deb)
	for k, want := range map[string]string{"Package": "warden", "Version": ver, "Architecture": "amd64"} {
		if f[k] != want {
			t.Errorf("%s: %q, want %q", k, f[k], want)
		}
	}
	deps, recs := list(f["Depends"]), list(f["Recommends"])
	for _, d := range []string{"libwebkit2gtk-4.1-0", "libgtk-3-0", "bubblewrap", "ripgrep"} {
		if !deps[d] {
			t.Errorf("Depends lacks %s: %s", d, f["Depends"])
		}
	}
	// Debian 12's nodejs (18) is too old for playwright-core: the package
	// carries its own Node, and must not pull in one it would not use.
	if deps["nodejs"] || recs["nodejs"] {
		t.Errorf("the package asks for Debian's nodejs: Depends %s, Recommends %s", f["Depends"], f["Recommends"])
	}
	for d := range deps {
		if strings.HasSuffix(d, "-dev") {
			t.Errorf("Depends names a development package %s", d)
		}
	}
	for _, r := range []string{"chromium", "tmux", "xdg-utils"} {
		if !recs[r] {
			t.Errorf("Recommends lacks %s: %s", r, f["Recommends"])
		}
	}
	if deps["chromium"] || deps["tmux"] {
		t.Errorf("optional programs are hard dependencies: %s", f["Depends"])
	}
}

type entry struct {
	mode, owner string
	size        int64
}

// contents lists the package's files: path -> mode string and owner.
func contents(t *testing.T, deb string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	sc := bufio.NewScanner(strings.NewReader(run(t, "dpkg-deb", "--contents", deb)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 {
			continue
		}
		var size int64
		fmt.Sscan(f[2], &size)
		p := strings.TrimSuffix(strings.TrimPrefix(f[5], "."), "/")
		out[p] = entry{mode: f[0], owner: f[1], size: size}
	}
	return out
}

func TestPackageContents(t *testing.T) {
	deb, _ := debPath(t)
	c := contents(t, deb)
	want := map[string]string{ // path -> mode
		"/usr/bin/warden-desktop":                           "-rwxr-xr-x",
		"/usr/bin/warden":                                   "-rwxr-xr-x",
		"/usr/bin/warden-full":                              "-rwxr-xr-x",
		"/usr/share/applications/warden.desktop":            "-rw-r--r--",
		"/usr/share/icons/hicolor/256x256/apps/warden.png":  "-rw-r--r--",
		"/usr/share/icons/hicolor/scalable/apps/warden.svg": "-rw-r--r--",
		"/usr/share/man/man1/warden.1.gz":                   "-rw-r--r--",
		"/usr/share/doc/warden/copyright":                   "-rw-r--r--",
		"/usr/lib/warden/playwright-core/package.json":      "-rw-r--r--",
		"/usr/lib/warden/playwright-core/cli.js":            "-rwxr-xr-x",
		"/usr/lib/warden/playwright-core/LICENSE":           "-rw-r--r--",
		"/usr/lib/warden/node/bin/node":                     "-rwxr-xr-x",
		"/usr/lib/warden/node/LICENSE":                      "-rw-r--r--",
		"/usr/share/warden/frontend/index.html":             "-rw-r--r--",
	}
	for p, mode := range want {
		e, ok := c[p]
		switch {
		case !ok:
			t.Errorf("missing %s", p)
		case e.mode != mode:
			t.Errorf("%s: mode %s, want %s", p, e.mode, mode)
		case e.size == 0:
			t.Errorf("%s is empty", p)
		}
	}
	for p, e := range c {
		if e.owner != "root/root" {
			t.Errorf("%s owned by %s", p, e.owner)
		}
		// Nothing writable by group or others, no setuid/setgid bits.
		if len(e.mode) == 10 && (e.mode[5] == 'w' || e.mode[8] == 'w' || strings.ContainsAny(e.mode, "sS")) {
			t.Errorf("%s: mode %s", p, e.mode)
		}
		if p != "/usr" && !strings.HasPrefix(p, "/usr/") {
			t.Errorf("%s is outside /usr", p)
		}
	}
}

var unpacked struct {
	once sync.Once
	root string
	err  error
}

// unpack extracts the package, once per run, into a throw-away root with
// `dpkg -x`, which writes only there and leaves the package database alone.
func unpack(t *testing.T) string {
	t.Helper()
	deb, _ := debPath(t)
	unpacked.once.Do(func() {
		dir, err := os.MkdirTemp("", "warden-deb-root-")
		if err != nil {
			unpacked.err = err
			return
		}
		unpacked.root = filepath.Join(dir, "root")
		if out, err := exec.Command("dpkg", "-x", deb, unpacked.root).CombinedOutput(); err != nil {
			unpacked.err = fmt.Errorf("dpkg -x: %v\n%s", err, out)
		}
	})
	if unpacked.err != nil {
		t.Fatal(unpacked.err)
	}
	return unpacked.root
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if unpacked.root != "" {
		os.RemoveAll(filepath.Dir(unpacked.root))
	}
	os.Exit(code)
}

// isolated is an environment with nothing of this machine's Warden or
// source tree: own HOME and XDG folders, PATH of the system only.
func isolated(t *testing.T) (env []string, dir string) {
	t.Helper()
	home := t.TempDir()
	env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache")}
	if d := os.Getenv("DISPLAY"); d != "" {
		env = append(env, "DISPLAY="+d)
	}
	if x := os.Getenv("XAUTHORITY"); x != "" {
		env = append(env, "XAUTHORITY="+x)
	}
	dir = filepath.Join(home, "work")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return env, dir
}

func TestInstalledCLI(t *testing.T) {
	root := unpack(t)
	_, ver := debPath(t)
	cli := filepath.Join(root, "usr", "bin", "warden")
	env, dir := isolated(t)
	runIn := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command(cli, args...)
		cmd.Env, cmd.Dir, cmd.Stdin = env, dir, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := runIn("", "version")
	if err != nil || !strings.Contains(out, "warden ") {
		t.Fatalf("installed warden version: %v\n%s", err, out)
	}
	if v, _ := debianVersion(strings.TrimPrefix(strings.TrimSpace(out), "warden ")); v != ver {
		t.Errorf("installed warden says %q; the package is %s", strings.TrimSpace(out), ver)
	}
	cases := []struct {
		name, line, decision string
	}{
		{"a read runs", `{"tool":"shell.exec","args":{"command":"ls"}}`, "allow"},
		{"a destructive command asks", `{"tool":"shell.exec","args":{"command":"rm -rf build"}}`, "ask"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runIn(c.line+"\n", "policy", "check", "--workspace", dir)
			if err != nil {
				t.Fatalf("installed warden policy check: %v\n%s", err, out)
			}
			var d struct{ Decision string }
			if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &d); err != nil || d.Decision != c.decision {
				t.Errorf("decision %q (%v), want %q:\n%s", d.Decision, err, c.decision, out)
			}
		})
	}
	// The man page is there and readable.
	page := filepath.Join(root, "usr", "share", "man", "man1", "warden.1.gz")
	if out := run(t, "zcat", page); !strings.Contains(out, ".SS policy") || !strings.Contains(out, ".SS serve") {
		t.Errorf("man page lacks the commands:\n%.400s", out)
	}
}

// The installed CLI's browser tool runs on the packaged playwright-core
// and Node (found beside the binary, no npm, no source tree) with the
// system's chromium: a scripted turn navigates to a local page and reads its
// title back.
func TestInstalledBrowserTool(t *testing.T) {
	root := unpack(t)
	env, dir := isolated(t)
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Fatal("chromium is not installed (make deps installs it; the package only Recommends it)")
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>Installed Warden</title><h1>from the package check</h1>")
	}))
	defer page.Close()
	script := filepath.Join(dir, "browse.json")
	body := fmt.Sprintf(`{"version":1,"name":"package-check","turns":[{"text":"opening","tool_calls":[`+
		`{"id":"b1","name":"browser.action","args":{"action":"navigate","url":%q}}]},{"text":"done"}]}`, page.URL+"/")
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "usr", "bin", "warden"), "run", "--model", "script:"+script,
		"--approval", "never", "--network", "--workspace", dir, "--json", "open the page")
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("installed warden run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `title \"Installed Warden\"`) {
		t.Fatalf("the browser tool did not read the page:\n%s", out)
	}
	// The driver in the user cache was laid out from the package's copy
	// (its stamp names the source), not from a source tree's node_modules.
	var cache string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			cache = v
		}
	}
	stamps, _ := filepath.Glob(filepath.Join(cache, "warden", "playwright-driver-*", ".warden-driver"))
	if len(stamps) != 1 {
		t.Fatalf("driver stamps in the user cache: %v", stamps)
	}
	stamp, _ := os.ReadFile(stamps[0])
	lines := strings.Split(string(stamp), "\n")
	if want := filepath.Join(root, "usr", "lib", "warden", "playwright-core"); lines[0] != want {
		t.Errorf("the driver came from %q, want the package's %s", stamp, want)
	}
	// And it ran on the package's Node, not the machine's (this machine's
	// own node could be new enough; a Debian 12's is not).
	if want := filepath.Join(root, "usr", "lib", "warden", "playwright-core", "..", "node", "bin", "node"); len(lines) < 2 || filepath.Clean(lines[1]) != filepath.Clean(want) {
		t.Errorf("the driver ran on node %q, want the package's %s", stamp, want)
	}
}

// The installed `warden serve` serves the packaged frontend from anywhere.
func TestInstalledServeHasItsFrontend(t *testing.T) {
	root := unpack(t)
	env, dir := isolated(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "usr", "bin", "warden"), "serve", "--addr", "127.0.0.1:0", "--model", "demo")
	cmd.Env, cmd.Dir = env, dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL: %v\n%s", err, stderr.String())
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || u.Query().Get("code") == "" {
		t.Fatalf("printed %q", line)
	}
	res, err := http.Get(u.Scheme + "://" + u.Host + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), `<div id="app">`) {
		t.Errorf("GET /: %d\n%.300s\n%s", res.StatusCode, page, stderr.String())
	}
}

// Every shared library an installed program links is shipped by a package
// the .deb depends on (asked of dpkg-query, read-only): the window's
// WebKitGTK, and the libc the CLI links for the C SQLite (cgo).
func TestDependsCoverTheLinkedLibraries(t *testing.T) {
	root := unpack(t)
	deb, _ := debPath(t)
	deps := list(control(t, deb)["Depends"])
	for _, bin := range []string{"warden-desktop", "warden", "warden-full"} {
		t.Run(bin, func(t *testing.T) {
			f, err := elf.Open(filepath.Join(root, "usr", "bin", bin))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			libs, err := f.ImportedLibraries()
			if err != nil || len(libs) == 0 {
				t.Fatalf("libraries: %v %v (a cgo build links libc at least)", libs, err)
			}
			for _, lib := range libs {
				// Debian 12 lists some libraries under /lib, some under /usr/lib.
				out, err := exec.Command("dpkg-query", "-S", "/usr/lib/x86_64-linux-gnu/"+lib).Output()
				if err != nil {
					out, err = exec.Command("dpkg-query", "-S", "/lib/x86_64-linux-gnu/"+lib).Output()
				}
				if err != nil {
					t.Errorf("%s: no package of this machine ships /usr/lib/x86_64-linux-gnu/%s", lib, lib)
					continue
				}
				pkg, _, _ := strings.Cut(strings.TrimSpace(string(out)), ":")
				if !deps[pkg] {
					t.Errorf("%s comes from %s, which Depends does not name (%v)", lib, pkg, deps)
				}
			}
		})
	}
}

// The .desktop entry names a program and an icon the package installs.
func TestDesktopEntry(t *testing.T) {
	root := unpack(t)
	data, err := os.ReadFile(filepath.Join(root, "usr", "share", "applications", "warden.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			keys[k] = v
		}
	}
	if _, err := os.Stat(filepath.Join(root, "usr", "bin", strings.Fields(keys["Exec"])[0])); err != nil {
		t.Errorf("Exec=%s is not in /usr/bin: %v", keys["Exec"], err)
	}
	if _, err := os.Stat(filepath.Join(root, "usr", "share", "icons", "hicolor", "256x256", "apps", keys["Icon"]+".png")); err != nil {
		t.Errorf("Icon=%s has no icon: %v", keys["Icon"], err)
	}
	if keys["Type"] != "Application" || keys["Terminal"] != "false" || keys["Name"] == "" {
		t.Errorf("entry: %v", keys)
	}
	if v, err := exec.LookPath("desktop-file-validate"); err == nil {
		if out, err := exec.Command(v, filepath.Join(root, "usr", "share", "applications", "warden.desktop")).CombinedOutput(); err != nil {
			t.Errorf("desktop-file-validate: %v\n%s", err, out)
		}
	}
}

// The installed window starts from the unpacked root, with nothing of the
// source tree, and reports ready (the smoke test's marker: the frontend
// mounted and called the Go side).
func TestInstalledWindowStarts(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("DISPLAY is not set: run under Xvfb (make package-check does)")
	}
	root := unpack(t)
	env, dir := isolated(t)
	ready := filepath.Join(dir, "ready.json")
	var logs bytes.Buffer
	cmd := exec.Command(filepath.Join(root, "usr", "bin", "warden-desktop"))
	cmd.Env, cmd.Dir = append(env, "WARDEN_READY_FILE="+ready), dir
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var marker struct {
		PID     int    `json:"pid"`
		Version string `json:"version"`
	}
	for marker.PID == 0 {
		select {
		case err := <-exited:
			t.Fatalf("warden-desktop exited before it was ready: %v\n%s", err, logs.String())
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("warden-desktop not ready in 90 s:\n%s", logs.String())
		case <-time.After(200 * time.Millisecond):
		}
		if data, err := os.ReadFile(ready); err == nil {
			_ = json.Unmarshal(data, &marker)
		}
	}
	if marker.PID != cmd.Process.Pid {
		t.Errorf("ready marker of pid %d, the window is %d", marker.PID, cmd.Process.Pid)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		t.Errorf("warden-desktop still running 20 s after SIGTERM")
	}
	// User data went to the isolated XDG folders: the database to the data
	// folder, the audit key to the config folder.
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		want := map[string]string{"XDG_DATA_HOME": "warden.db", "XDG_CONFIG_HOME": "audit.key"}[k]
		if want == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(v, "warden", want)); err != nil {
			t.Errorf("the window left no %s in %s: %v", want, k, err)
		}
	}
}
