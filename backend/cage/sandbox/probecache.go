package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// The probe of the cage (bwrap --version and a trivial cage) costs two
// process starts and a user namespace: tens of milliseconds that a one-shot
// `warden tool` would pay on every call. What it learns depends only on the
// machine, so a successful probe is kept in the user's cache, keyed by what
// could change its answer, and reused while the key still matches. The key
// is cheap to compute: a stat of bwrap and a few sysctl files.

// probeCacheName is the file under Config.ProbeCacheDir.
const probeCacheName = "cage-probe.json"

// probeKey is everything a cached probe depends on. Any difference means
// the machine may have changed and the cage is probed again.
type probeKey struct {
	Warden  string `json:"warden"`  // Warden's version: a new build may probe differently
	Kernel  string `json:"kernel"`  // kernel release and build: user namespaces, Landlock ABI and seccomp come with it
	Bwrap   string `json:"bwrap"`   // resolved path of bwrap
	BwrapID string `json:"bwrapId"` // size, mtime and inode of bwrap: an upgrade replaces the file
	Sysctls string `json:"sysctls"` // the user-namespace switches, which an administrator can flip at run time
}

type probeCache struct {
	Key    probeKey `json:"key"`
	Status Status   `json:"status"`
}

// userNamespaceSwitches are the files whose contents decide whether an
// unprivileged user namespace (what bwrap needs) can be created; absent
// ones read as empty.
var userNamespaceSwitches = []string{
	"/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/user/max_user_namespaces",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
}

// currentProbeKey computes the key for bwrap at path; ok is false when
// something that should be there cannot be read (then nothing is cached).
func (c *Cage) currentProbeKey(path string) (probeKey, bool) {
	var k probeKey
	k.Warden, k.Bwrap = c.cfg.Version, path
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return k, false
	}
	ver, _ := os.ReadFile("/proc/sys/kernel/version")
	k.Kernel = string(bytes.TrimSpace(rel)) + " " + string(bytes.TrimSpace(ver))
	fi, err := os.Stat(path)
	if err != nil {
		return k, false
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	k.BwrapID = fmt.Sprintf("%d:%d:%d:%o", fi.Size(), fi.ModTime().UnixNano(), ino, fi.Mode())
	var sw strings.Builder
	for _, f := range userNamespaceSwitches {
		b, _ := os.ReadFile(f)
		fmt.Fprintf(&sw, "%s=%s;", filepath.Base(f), bytes.TrimSpace(b))
	}
	k.Sysctls = sw.String()
	return k, true
}

// cachedProbe returns the cached status of a successful probe whose key
// equals k.
func (c *Cage) cachedProbe(k probeKey) (Status, bool) {
	if c.cfg.ProbeCacheDir == "" {
		return Status{}, false
	}
	b, err := os.ReadFile(filepath.Join(c.cfg.ProbeCacheDir, probeCacheName))
	if err != nil {
		return Status{}, false
	}
	var pc probeCache
	if json.Unmarshal(b, &pc) != nil || pc.Key != k || !pc.Status.Available {
		return Status{}, false
	}
	return pc.Status, true
}

// storeProbe keeps a successful probe. The file is written whole and
// renamed into place, so a concurrent start reads the old or the new one.
// A cache that cannot be written costs the next start a probe, nothing more.
func (c *Cage) storeProbe(k probeKey, st Status) {
	if c.cfg.ProbeCacheDir == "" || !st.Available {
		return
	}
	b, err := json.Marshal(probeCache{Key: k, Status: st})
	if err != nil {
		return
	}
	if err := os.MkdirAll(c.cfg.ProbeCacheDir, 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(c.cfg.ProbeCacheDir, probeCacheName+".*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), filepath.Join(c.cfg.ProbeCacheDir, probeCacheName)) != nil {
		_ = os.Remove(f.Name())
	}
}

// dropProbe forgets the cached probe (a caged start failed as if the
// machine had changed under it).
func (c *Cage) dropProbe() {
	if c.cfg.ProbeCacheDir != "" {
		_ = os.Remove(filepath.Join(c.cfg.ProbeCacheDir, probeCacheName))
	}
}

// staleStart: a caged start failed before bwrap made the cage (it never
// reported the cage's first process). When this process took the cage's
// readiness from the cached probe, the machine may have changed in a way
// the key does not see (a security module's rule, a namespace limit), so
// the cache is dropped and bwrap probed again, once per process. A probe
// that works is kept (the failure was the call's own); one that fails
// leaves no cache, and the next process starts from the truth. This
// process's status is not lowered: Prepare runs a command uncaged when the
// cage is unavailable, and a call the gate decided on a cage must fail
// closed, never run unconfined.
func (c *Cage) staleStart() {
	c.mu.Lock()
	cached, path := c.cachedKey != nil, c.bwrapPath
	if !cached || c.reprobed {
		c.mu.Unlock()
		return
	}
	c.reprobed = true
	c.mu.Unlock()
	c.dropProbe()
	key, keyed := c.currentProbeKey(path)
	st := c.probeBwrap(context.Background(), path) // probeRun bounds each run
	if !st.Available {
		return
	}
	if keyed {
		c.storeProbe(key, st)
	}
	c.mu.Lock()
	c.cachedKey, c.status = nil, &st
	c.mu.Unlock()
}

// exitedWithFailure: cmd ran and exited on its own with a non-zero status
// (bwrap's own errors exit 1), not killed by a signal or never started.
func exitedWithFailure(cmd *exec.Cmd) bool {
	return cmd != nil && cmd.ProcessState != nil && cmd.ProcessState.Exited() && !cmd.ProcessState.Success()
}
