package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Toolchain caches. A build in the cage needs somewhere to keep its
// compiled objects and downloads (go build writes ~/.cache/go-build, npm
// ~/.npm, pip ~/.cache/pip, cargo ~/.cargo, maven ~/.m2, gradle
// ~/.gradle, yarn and pnpm their stores), and those folders lie outside
// the workspace, read-only in the cage. Letting the cage write the user's
// own would poison the user's next unconfined build (an object the cage
// planted in GOCACHE is linked into it). So every confining cage gets
// caches of its own: folders under Warden's cache folder
// ($XDG_CACHE_HOME/warden-cage, else ~/.cache/warden-cage), per user,
// bound writable and named by each tool's own variable, persistent
// across calls so a second build is quick. The host's module caches stay
// readable, read-only: GOMODCACHE, ~/.cargo/registry (bound into the
// cage's CARGO_HOME), ~/.m2/repository (maven's read-only tail, 3.9+),
// ~/.gradle/caches (GRADLE_RO_DEP_CACHE). The user's own cache folders
// are held read-only wherever a cage could otherwise write them (a
// workspace that holds them, a full-access cage). A human-approved call
// under danger-full-access (the host shape) uses the user's caches like
// any shell of theirs. Clearing: remove the folder; the next call makes
// it again.

// cageCache is one tool's cache folder under the cage root, and the
// variables that point the tool at it ({} is replaced by the folder).
type cageCache struct {
	dir string
	env map[string]string
}

var cageCaches = []cageCache{
	{"go-build", map[string]string{"GOCACHE": "{}"}},
	{"npm", map[string]string{"npm_config_cache": "{}", "npm_config_update_notifier": "false"}},
	{"pip", map[string]string{"PIP_CACHE_DIR": "{}"}},
	{"yarn", map[string]string{"YARN_CACHE_FOLDER": "{}"}},
	{"yarn-berry", map[string]string{"YARN_GLOBAL_FOLDER": "{}"}},
	{"pnpm/store", map[string]string{"npm_config_store_dir": "{}"}},
	{"pnpm/cache", map[string]string{"npm_config_cache_dir": "{}"}},
	{"pnpm/state", map[string]string{"npm_config_state_dir": "{}"}},
	{"gradle", map[string]string{"GRADLE_USER_HOME": "{}"}},
	{"m2/repository", nil}, // MAVEN_OPTS, below: it also names the host's repository
	{"cargo", map[string]string{"CARGO_HOME": "{}"}},
}

// userCaches are the toolchains' default cache and home folders, relative
// to the home folder: the user's own, never written by a confining cage.
var userCaches = []string{
	".cache/go-build", "go", ".npm", ".cache/pip", ".cargo", ".rustup", ".m2", ".gradle",
	".cache/yarn", ".yarn/berry", ".local/share/pnpm", ".cache/pnpm", ".cache/node-gyp",
}

// userCacheVars are the variables by which a user moves those folders;
// Warden's own environment and Go's env file say where the user's are.
var userCacheVars = []string{
	"GOCACHE", "GOMODCACHE", "GOPATH", "CARGO_HOME", "RUSTUP_HOME", "npm_config_cache", "NPM_CONFIG_CACHE",
	"PIP_CACHE_DIR", "YARN_CACHE_FOLDER", "GRADLE_USER_HOME", "PNPM_HOME", "XDG_CACHE_HOME",
}

// cargoShared are the parts of the host's CARGO_HOME a cage reads: the
// registry index and downloaded crates, git checkouts' databases, and the
// user's cargo configuration (source replacement, vendored sources).
var cargoShared = []string{"registry/index", "registry/cache", "git/db", "config.toml", "config"}

// caches is a cage's view of the toolchain caches, computed once.
type caches struct {
	once sync.Once
	root string
	// user are the user's own cache folders (absolute, existing).
	user []string
	// hostCargo, hostM2, hostGradle are the host's folders the cage reads.
	hostCargo, hostM2, hostGradle string
	err                           error
}

// cacheRoot is where the cage's caches live: Config.CacheDir, else
// warden-cage in the user's cache folder. It is beside Warden's own cache
// folder, never inside it: that one (the browser driver Warden runs, the
// probe) is hidden from every cage, these are the cage's to write.
func (c *Cage) cacheRoot() string {
	if c.cfg.CacheDir != "" {
		return filepath.Clean(c.cfg.CacheDir)
	}
	if w := c.wardenCache(); w != "" {
		return filepath.Join(filepath.Dir(w), "warden-cage")
	}
	return ""
}

// wardenCache is Warden's folder in the user's cache folder: the browser
// driver and the probe live there (the cage's caches beside it).
func (c *Cage) wardenCache() string {
	if x := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "warden")
	}
	if c.cfg.Home != "" {
		return filepath.Join(c.cfg.Home, ".cache", "warden")
	}
	return ""
}

// CacheDir is where caged commands keep their toolchain caches ("" when
// the home folder is unknown); removing it clears them.
func (c *Cage) CacheDir() string { return c.cacheRoot() }

func (c *Cage) toolCaches() *caches {
	k := &c.caches
	k.once.Do(func() {
		k.root = c.cacheRoot()
		if k.root == "" {
			return
		}
		for _, cc := range cageCaches {
			if err := os.MkdirAll(filepath.Join(k.root, cc.dir), 0o700); err != nil {
				k.err = err
				return
			}
		}
		home := c.cfg.Home
		seen := map[string]bool{}
		addUser := func(p string) {
			if !filepath.IsAbs(p) {
				return
			}
			p = filepath.Clean(p)
			if seen[p] || Within(k.root, p) {
				return
			}
			if _, err := os.Stat(p); err == nil {
				seen[p] = true
				k.user = append(k.user, p)
			}
		}
		if home != "" {
			for _, rel := range userCaches {
				addUser(filepath.Join(home, rel))
			}
		}
		goEnv := readGoEnv(home)
		for _, v := range userCacheVars {
			val := os.Getenv(v)
			if val == "" {
				val = goEnv[v]
			}
			switch v {
			case "GOPATH":
				for _, gp := range filepath.SplitList(val) {
					addUser(gp)
				}
			case "XDG_CACHE_HOME":
				if filepath.IsAbs(val) {
					for _, rel := range []string{"go-build", "pip", "yarn", "pnpm", "node-gyp"} {
						addUser(filepath.Join(val, rel))
					}
				}
			default:
				addUser(val)
			}
		}
		sort.Strings(k.user)
		k.hostCargo = firstDir(os.Getenv("CARGO_HOME"), join(home, ".cargo"))
		k.hostM2 = firstDir(join(home, ".m2", "repository"))
		k.hostGradle = firstDir(join(os.Getenv("GRADLE_USER_HOME"), "caches"), join(home, ".gradle", "caches"))
		if k.hostCargo != "" {
			for _, rel := range cargoShared {
				host := filepath.Join(k.hostCargo, rel)
				fi, err := os.Stat(host)
				if err != nil {
					continue
				}
				mp := filepath.Join(k.root, "cargo", rel)
				if fi.IsDir() {
					_ = os.MkdirAll(mp, 0o700)
				} else if _, err := os.Lstat(mp); err != nil {
					_ = os.MkdirAll(filepath.Dir(mp), 0o700)
					if f, err := os.OpenFile(mp, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
						f.Close()
					}
				}
			}
		}
	})
	return k
}

// bindCaches makes the cage's caches writable and points the tools at
// them; it returns the variables to set.
func (c *Cage) bindCaches(b *argBuilder) map[string]string {
	k := c.toolCaches()
	if k.root == "" || k.err != nil {
		return nil
	}
	b.add("--bind", k.root, k.root)
	env := map[string]string{}
	for _, cc := range cageCaches {
		for name, v := range cc.env {
			env[name] = strings.ReplaceAll(v, "{}", filepath.Join(k.root, cc.dir))
		}
	}
	mavenOpts := "-Dmaven.repo.local=" + filepath.Join(k.root, "m2", "repository")
	if k.hostM2 != "" {
		mavenOpts += " -Dmaven.repo.local.tail=" + k.hostM2
	}
	env["MAVEN_OPTS"] = mavenOpts
	if k.hostGradle != "" {
		env["GRADLE_RO_DEP_CACHE"] = k.hostGradle
	}
	if k.hostCargo != "" {
		for _, rel := range cargoShared {
			host := filepath.Join(k.hostCargo, rel)
			if _, err := os.Stat(host); err != nil {
				continue
			}
			if _, hidden := hiddenUnder(c.hidden, host); hidden {
				continue
			}
			mp := filepath.Join(k.root, "cargo", rel)
			if _, err := os.Lstat(mp); err == nil {
				b.add("--ro-bind", host, mp)
			}
		}
	}
	return env
}

// holdUserCaches binds read-only the user's own cache folders, and
// Warden's cache folder, that lie inside one of roots (all of them when
// roots holds "/"): there a cage could otherwise write them.
func (c *Cage) holdUserCaches(b *argBuilder, roots []string) {
	k := c.toolCaches()
	hold := append([]string(nil), k.user...)
	if w := c.wardenCache(); w != "" {
		if _, err := os.Stat(w); err == nil {
			hold = append(hold, w)
		}
	}
	for _, h := range hold {
		if !underAny(h, roots) {
			continue
		}
		if _, hidden := hiddenUnder(c.hidden, h); hidden {
			continue
		}
		b.add("--ro-bind", h, h)
	}
}

// readGoEnv reads the variables `go env -w` stored in Go's env file.
func readGoEnv(home string) map[string]string {
	out := map[string]string{}
	p := os.Getenv("GOENV")
	if p == "" {
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(cfg) {
			if home == "" {
				return out
			}
			cfg = filepath.Join(home, ".config")
		}
		p = filepath.Join(cfg, "go", "env")
	}
	f, err := os.Open(p)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok {
			out[k] = v
		}
	}
	return out
}

func join(base string, rest ...string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(append([]string{base}, rest...)...)
}

// firstDir is the first of paths that is an existing folder.
func firstDir(paths ...string) string {
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return filepath.Clean(p)
		}
	}
	return ""
}
