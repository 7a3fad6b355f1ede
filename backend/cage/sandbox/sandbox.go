// Package sandbox is the OS cage every shell process of a session runs in.
//
// On Linux it is bubblewrap: the whole filesystem read-only, the workspace and
// writable roots read-write, a private /tmp of bounded size, network only
// through Warden's proxy when admitted (network.go), a new user, PID, IPC,
// UTS and network namespace with every capability dropped and no nested
// user namespaces (so no remount or umount can lift a read-only bind), a
// private /run, a seccomp filter, per-call limits, and an environment
// allowlist. ReadOnly binds nothing writable. The cage stays in Warden's
// session (seccomp.go says why and what covers the terminal).
//
// What the cage writes never runs outside it. Every program that runs
// outside the cage and reads workspace bytes is listed, with its mechanism
// and tests, in backend/cage/readers (Inventory). The cage's part:
//
//   - The one protected list (policy/protected_table.go): a call no human
//     approved cannot change or create, in the workspace or any writable
//     root, at any depth, the cage tier (git's configuration and hooks in
//     every gitdir, .envrc, .vscode/, .mcp.json, .warden/, shell rc files,
//     .hg/hgrc, .jj's config, editor exrc files) nor the edit tier's
//     entries the table holds read-only (git's user config, ~/.local/bin,
//     autostart, systemd user units, .env*, package managers' settings…),
//     whatever the root is — the user's home as a workspace included
//     (policy.CageHeld). Lockfiles stay writable.
//   - What git executes, as git resolves it (gitset.go): the repositories in
//     and above the roots, found by git's discovery rules, and what their
//     real config makes git read or run (includes, hooks paths, hooks after
//     their links, files commands name, sequencer state), held like the
//     protected list.
//   - New repositories (gitnew.go): a folder the call made a gitdir that
//     git would run something from, and sequencer state with an exec line,
//     are removed when the call ends.
//
// Protected paths (all of the above, and Warden's own folders) are held two
// ways, because bwrap 0.8 has no overlay and a mount needs an existing
// mount point:
//
//   - One that exists is bound read-only (it is its own mount point, so no
//     file is made for it, and it cannot be removed, renamed or hard-linked
//     in the cage). The folders above it are not pinned: `mv .git x`
//     carries the read-only config along, and a config then made at
//     .git/config is a new file, which the watch judges as new because it
//     knows the entries that existed by identity (device and inode), not by
//     path.
//   - One that does not exist yet is caught when it is made: an inotify
//     watch over the writable roots for the life of the call (recursive; a
//     new folder is watched and then read, so nothing made in it between the
//     two is missed) removes it at once and reports a Violation, which fails
//     the call. A folder the kernel cannot watch, or a full event queue,
//     makes the end of the call walk the roots again. What git init or git
//     clone write into a gitdir is let through (sample hooks, info/exclude,
//     a config holding only the keys they write; any other key is unset),
//     so a repository can be made in the cage but its hooks and config
//     cannot run anything later.
//
// The earlier design bound empty placeholder files over missing names: they
// showed in the user's `ls` and `git status` during every call, stayed after
// a crash, and made concurrent calls in one workspace race on them. The
// watch creates nothing in the workspace, so a killed Warden leaves nothing
// behind and concurrent calls (each with its own watch) cannot collide; a
// protected name the user creates in the workspace while a call runs is
// judged by the same rule, so it is removed too (the README says so).
//
// Secrets (DefaultDenyRead, [sandbox] deny_read, Warden's config and data
// folders wherever the database is) are hidden: an empty, mode-0000,
// read-only folder or file is mounted over each, so a read fails with
// "Permission denied" naming the path. Host unix sockets are out of reach
// because the seccomp filter refuses socket(AF_UNIX) (a read-only mount does
// not stop connect()); when [sandbox] allow_unix_sockets lists some, the
// filter lets unix sockets through and every other socket the host has
// bound (/proc/net/unix) is covered instead, while the listed ones are
// bound in.
//
// What a call may reach is the engine's decision (policy.Cage, shape.go):
// a command no human answered runs in the cage its claim shapes — read-only,
// workspace-write or full-access — in every sandbox mode, danger-full-access
// included; a human-approved call under danger-full-access runs on the host
// with only the cage-protected set held (the host shape). Caged commands
// keep their toolchain caches in folders of their own (caches.go). When the
// cage is unavailable everything runs unconfined: the policy is told
// caged=false and asks before unknown commands. Mode "container" trusts an
// outer container as the boundary; never the default.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warden-dev/warden/backend/cage/readers"
	"github.com/warden-dev/warden/backend/policy"
)

// Mode is how processes are confined.
type Mode string

const (
	// ModeBwrap confines with bubblewrap. The default.
	ModeBwrap Mode = "bwrap"
	// ModeContainer trusts an outer container as the boundary and runs
	// processes unconfined while reporting them caged. Opt-in only.
	ModeContainer Mode = "container"
)

// Config configures a Cage. The zero value works.
type Config struct {
	Mode Mode
	// Bwrap is the bubblewrap binary; empty means "bwrap" on PATH.
	Bwrap string
	// Protected lists Warden's own config and data folders (or, for a
	// database given by --db/WARDEN_DB, its files): hidden from the cage,
	// neither readable nor writable, wherever they are.
	Protected []string
	// ProbeTimeout bounds each bwrap run of Detect; 0 means 10s.
	ProbeTimeout time.Duration
	// DenyRead adds hidden paths ([sandbox] deny_read): absolute or "~/...".
	DenyRead []string
	// AllowUnixSockets lists host unix sockets a caged process may connect
	// to ([sandbox] allow_unix_sockets). Empty: none at all.
	AllowUnixSockets []string
	// Limits caps each call; zero fields take the defaults.
	Limits Limits
	// Home is the folder DefaultDenyRead is relative to; empty means the
	// user's home.
	Home string
	// Forwarder is the binary re-executed inside the cage as its network
	// forwarder (network.go); empty means the running binary. Set by
	// bench/cmd/netbench to measure the warden binary's forwarder.
	Forwarder string
	// CacheDir is where caged commands keep their toolchain caches
	// (caches.go); empty means warden-cage in the user's cache folder.
	CacheDir string
	// ProbeCacheDir keeps the result of a successful probe (probecache.go) so
	// the next process on the same machine skips it; empty: probe every time.
	ProbeCacheDir string
	// Version is Warden's version, part of the cached probe's key.
	Version string
}

// Status says whether the cage works on this machine, and why not. It is
// the one probe of the OS sandbox: the engine's caged, the window's
// sandbox indicator and `warden policy check --caged auto` all read it.
type Status struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason"`
	// Mechanism names the confinement ("bubblewrap", "container").
	Mechanism string `json:"mechanism"`
	// Version is what the sandbox binary says about itself, if it ran.
	Version string `json:"version,omitempty"`
}

// probeTimeout bounds each bwrap run of Detect: a hung bwrap must not hold
// the start of the app.
const probeTimeout = 10 * time.Second

// Cage prepares confined commands. It is safe for concurrent use.
type Cage struct {
	cfg     Config
	hidden  []string // DefaultDenyRead under Home, DenyRead and Protected
	limits  Limits
	cgroups *cgroupPool // per-call pids cgroups when Warden runs as root, or nil

	git    *readers.Git // what git runs, per repository (gitset.go)
	caches caches       // the toolchain caches (caches.go)

	mu        sync.Mutex
	status    *Status
	bwrapPath string // found by Detect
	// cachedKey is the key of the cached probe Detect answered from; a
	// cage start that then fails re-probes once (staleStart).
	cachedKey *probeKey
	reprobed  bool
}

// New returns a cage; call Detect once at start to learn whether it works.
func New(cfg Config) *Cage {
	if cfg.Mode == "" {
		cfg.Mode = ModeBwrap
	}
	if cfg.Bwrap == "" {
		cfg.Bwrap = "bwrap"
	}
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	var socks []string
	for _, s := range cfg.AllowUnixSockets {
		if rest, ok := strings.CutPrefix(s, "~/"); ok && cfg.Home != "" {
			s = filepath.Join(cfg.Home, rest)
		}
		if filepath.IsAbs(s) {
			socks = append(socks, filepath.Clean(s))
		}
	}
	cfg.AllowUnixSockets = socks
	c := &Cage{cfg: cfg, limits: cfg.Limits.withDefaults(), git: &readers.Git{Home: cfg.Home}}
	c.hidden = hiddenPaths(cfg.Home, cfg.DenyRead, cfg.Protected)
	return c
}

// Hidden lists the paths hidden from caged processes (whether or not they
// exist on this machine), for the Settings view.
func (c *Cage) Hidden() []string { return append([]string(nil), c.hidden...) }

// Limits are the caps every call runs under.
func (c *Cage) Limits() Limits { return c.limits }

// AllowedUnixSockets lists the host sockets a caged process may reach.
func (c *Cage) AllowedUnixSockets() []string { return append([]string(nil), c.cfg.AllowUnixSockets...) }

// Detect runs a trivial command through the full cage and remembers whether
// it worked. The answer is what the policy engine receives as caged.
func (c *Cage) Detect(ctx context.Context) Status {
	st := c.detect(ctx)
	c.mu.Lock()
	c.status = &st
	c.mu.Unlock()
	return st
}

func (c *Cage) detect(ctx context.Context) Status {
	if c.cfg.Mode == ModeContainer {
		return Status{Available: true, Mechanism: "container", Reason: "container mode: the outer container is the boundary"}
	}
	if c.cfg.Mode != ModeBwrap {
		return Status{Reason: fmt.Sprintf("unknown sandbox mode %q", c.cfg.Mode)}
	}
	st := Status{Mechanism: "bubblewrap"}
	path, err := exec.LookPath(c.cfg.Bwrap)
	if err != nil {
		st.Reason = fmt.Sprintf("%s not found: install the bubblewrap package", c.cfg.Bwrap)
		return st
	}
	key, keyed := c.currentProbeKey(path)
	if keyed {
		if cached, ok := c.cachedProbe(key); ok {
			c.ready(path)
			c.mu.Lock()
			c.cachedKey = &key
			c.mu.Unlock()
			return cached
		}
	}
	if st = c.probeBwrap(ctx, path); !st.Available {
		return st
	}
	c.ready(path)
	if keyed {
		c.storeProbe(key, st)
	}
	return st
}

// probeBwrap asks bwrap at path for its version and starts a trivial cage.
func (c *Cage) probeBwrap(ctx context.Context, path string) Status {
	st := Status{Mechanism: "bubblewrap"}
	var err error
	if st.Version, err = c.probeRun(ctx, path, "--version"); err != nil {
		st.Reason = fmt.Sprintf("%s --version failed: %v", path, err)
		return st
	}
	args := append(baseArgs(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true")
	if _, err := c.probeRun(ctx, path, args...); err != nil {
		st.Reason = fmt.Sprintf("bwrap cannot start a cage (user namespaces?): %v", err)
		return st
	}
	st.Available, st.Reason = true, "bwrap "+path+": a user namespace with a read-only root works"
	return st
}

// ready makes the cage use bwrap at path, probed now or before.
func (c *Cage) ready(path string) {
	var pool *cgroupPool
	if cg := pidsCgroupParent(); cg != "" && c.limits.Processes > 0 {
		removeStaleCgroups(cg)
		pool = &cgroupPool{parent: cg, max: c.limits.Processes}
		if dir := pool.get(); dir != "" {
			pool.put(dir) // one ready for the first call
		}
	}
	c.mu.Lock()
	c.bwrapPath, c.cgroups = path, pool
	c.mu.Unlock()
}

// Reprobe forgets the cached probe and probes again: for a caged start
// that failed as if the machine had changed since the probe was cached.
func (c *Cage) Reprobe(ctx context.Context) Status {
	c.dropProbe()
	return c.Detect(ctx)
}

// probeRun runs bin and returns the first line of its stdout. A failure
// carries the first line of stderr, which is where bwrap says why.
func (c *Cage) probeRun(ctx context.Context, bin string, args ...string) (string, error) {
	timeout := c.cfg.ProbeTimeout
	if timeout <= 0 {
		timeout = probeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// A child that ignores the kill must not hold the probe past its timeout.
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("no answer within %s", timeout)
	}
	if err != nil {
		if msg := firstLine(stderr.String()); msg != "" {
			return "", fmt.Errorf("%s (%w)", msg, err)
		}
		return "", err
	}
	return firstLine(stdout.String()), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// Status is the result of the last Detect; before Detect, unavailable.
func (c *Cage) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status == nil {
		return Status{Reason: "not detected yet"}
	}
	return *c.status
}

// Caged reports whether a command no human answered runs confined under
// this sandbox policy: what the policy engine's Session.Caged means. Under
// every sandbox mode, danger-full-access included, it is whether the cage
// works here: the engine's claim then shapes the cage (shape.go).
func (c *Cage) Caged(p policy.SandboxPolicy) bool {
	return c.Status().Available
}

// Spec is one process to run.
type Spec struct {
	Workspace string // absolute, resolved
	Policy    policy.SandboxPolicy
	Dir       string            // working directory, absolute; default Workspace
	Env       map[string]string // added to the allowlisted environment
	Args      []string          // argv, e.g. {"bash", "-c", cmd}
	// Egress decides the connections of a caged command with network
	// (network.go); nil refuses them all.
	Egress *Egress
	// Expose lists cage ports the host's loopback may reach
	// (network_expose.go); see Prepared.Exposed.
	Expose []int
	// DetectPorts exposes the ports a process of the cage starts listening
	// on as well (a dev server whose port nobody named), each reported to
	// OnExpose from another goroutine as it is found.
	DetectPorts bool
	OnExpose    func(Exposed)
	// Files are placed read-only inside the cage (files.go); only a bwrap
	// cage can, so Prepare refuses them elsewhere.
	Files []File
	// Shape is the cage the engine decided for the call (shape.go); nil
	// gives the whole reach of Policy.
	Shape *policy.Cage
	// Hold, when set, holds the command back until it delivers: nil starts
	// it, an error kills the cage before the command ran. A bwrap cage is
	// set up meanwhile (Prepared.Held); the caller of any other command
	// must wait for Hold before it starts one.
	Hold <-chan error
}

// Prepared is a command ready to start and the clean-up to run after it ends.
type Prepared struct {
	Cmd *exec.Cmd
	// Confined says whether the process runs inside the OS cage.
	Confined bool
	// Shape is the cage the process runs in (CageNone when unconfined).
	Shape policy.Cage
	// Argv is the full command line, for diagnostics.
	Argv []string
	// Hidden are the paths hidden from this process.
	Hidden []string
	// Held says the started cage itself waits for Spec.Hold before it runs
	// the command; false with a Hold: wait for it before starting Cmd.
	Held bool

	cage   *Cage
	watch  *watcher
	home   *watcher   // a full-access cage's home guard (shape.go)
	links  []watched  // protected symlinks, restored when changed
	lim    *limiter   // applies the limits to the started cage
	files  []*os.File // handed to bwrap, closed by Finish
	ended  sync.Once
	once   sync.Once
	result []Violation

	egress egress // the proxy and exposed ports (network.go)
}

// Prepare builds the command for spec. The command is started by the caller;
// cancelling ctx kills its whole process group. Finish must be called once
// the command has been waited for (or if it is never started).
func (c *Cage) Prepare(ctx context.Context, spec Spec) (*Prepared, error) {
	if len(spec.Args) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if !filepath.IsAbs(spec.Workspace) {
		return nil, fmt.Errorf("sandbox: workspace %q is not absolute", spec.Workspace)
	}
	dir := spec.Dir
	if dir == "" {
		dir = spec.Workspace
	}
	p := &Prepared{cage: c}
	argv := spec.Args
	var extra []*os.File
	sh := shapeOf(spec)
	p.Shape = sh
	var cacheEnv map[string]string
	switch {
	case !c.Status().Available || c.cfg.Mode != ModeBwrap || !usesBwrap(sh.Shape):
		p.Shape.Shape = policy.CageNone
	case sh.Shape == policy.CageHost:
		bw, files, err := c.hostArgs(spec, dir, sh, p)
		if err != nil {
			p.Finish()
			return nil, err
		}
		argv = append(append([]string{c.bwrap()}, bw...), spec.Args...)
		extra = files
	default:
		if err := c.startEgress(ctx, spec, p); err != nil {
			p.Finish()
			return nil, err
		}
		bw, files, env, err := c.bwrapArgs(spec, dir, sh, p)
		if err != nil {
			p.Finish()
			return nil, err
		}
		cacheEnv = env
		argv = append(append(append([]string{c.bwrap()}, bw...), p.egress.prefix(3+len(files))...), spec.Args...)
		p.Confined = true
		p.Hidden = c.Hidden()
		extra = append(files, p.egress.files...) // network.go's after bwrap's
	}
	if len(spec.Files) > 0 && !p.Confined {
		p.Finish()
		return nil, errors.New("sandbox: files can be placed only inside the bwrap cage, which this call does not run in")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = environ(cacheEnv, spec.Env, p.egress.env)
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Kill the whole group: bwrap's PID namespace dies with it, and an
	// unconfined command's children go too.
	cmd.Cancel = func() error { return KillGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second
	p.Cmd = cmd
	p.Argv = argv
	return p, nil
}

// End kills what the command left running — its process group, and the
// whole cage (its PID namespace) — and returns once nothing of the cage
// runs, so what the call's checks see is final. Call it once the command
// was waited for; Finish calls it too, and later calls do nothing.
func (p *Prepared) End() {
	p.ended.Do(func() {
		if p.Cmd != nil && p.Cmd.Process != nil {
			_ = KillGroup(p.Cmd)
		}
		if p.lim != nil {
			p.lim.end()
		}
	})
}

// Finish ends the call (End), then its watch, undoes and reports every
// protected path the call created or changed, and releases what Prepare
// opened. Call it after the process has been waited for; later calls
// return the same result.
func (p *Prepared) Finish() []Violation {
	p.once.Do(func() {
		p.End()
		var out []Violation
		if p.lim != nil {
			if p.lim.lingered {
				out = append(out, Violation{Path: "(cage)", Detail: fmt.Sprintf("processes of the call were still there %s after they were killed (asleep in the kernel, e.g. on a hung mount); what they still write is not checked", endWithin)})
			}
			if err := p.lim.close(); err != nil {
				out = append(out, Violation{Path: "(limits)", Detail: err.Error() + "; the call was stopped"})
			}
			if !p.lim.started.Load() && exitedWithFailure(p.Cmd) {
				p.cage.staleStart() // bwrap gave up before the cage existed
			}
		}
		for _, f := range p.files {
			_ = f.Close()
		}
		if p.egress.stop != nil {
			p.egress.stop()
		}
		if p.watch != nil {
			out = append(out, p.watch.stop()...)
		}
		if p.home != nil {
			out = append(out, p.home.stop()...)
		}
		for _, w := range p.links {
			if v, ok := w.restore(); ok {
				out = append(out, v)
			}
		}
		p.result = out
	})
	return p.result
}

// KillGroup kills the process group of a started command.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// hasControllingTTY says whether Warden has a controlling terminal. The
// cage stays in Warden's session, so a caged process opening /dev/tty
// would reach that terminal (read the user's keys, write escapes into it);
// with one, /dev/tty is covered by an unreadable empty file. Without one,
// opening /dev/tty fails with ENXIO in the cage as outside, and no host
// terminal is reachable otherwise (the cage's /dev has its own devpts).
func hasControllingTTY() bool {
	fd, err := syscall.Open("/dev/tty", syscall.O_RDONLY|syscall.O_NOCTTY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	_ = syscall.Close(fd)
	return true
}

func baseArgs() []string {
	return []string{
		// No --disable-userns (the seccomp filter refuses nested user
		// namespaces without bwrap's extra namespace and sysctl write) and
		// no --new-session (the filter refuses TIOCSTI/TIOCLINUX, and
		// /dev/tty is covered when Warden has a terminal: ttyCover).
		"--unshare-user", "--cap-drop", "ALL",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--die-with-parent",
		// Always its own network namespace; network goes through the proxy.
		"--unshare-net",
	}
}

// bwrapArgs builds the command line of a confining shape in layers, each
// appending its own arguments: namespaces, the filesystem, the protected
// paths, what a full-access cage holds, the caches, the hidden paths, the
// sockets, and the seccomp and limit descriptors. Files handed to bwrap
// are returned in ExtraFiles order (descriptor 3 onwards), with the
// variables the caches need.
func (c *Cage) bwrapArgs(spec Spec, dir string, sh policy.Cage, p *Prepared) ([]string, []*os.File, map[string]string, error) {
	b := &argBuilder{}
	defer func() { p.files = b.files }() // Finish closes them, on error too
	c.toolCaches()                       // made before the home guard starts watching
	b.add(baseArgs()...)
	full := sh.Shape == policy.CageFullAccess
	// /run is private too: it holds the sockets that command the host
	// (docker, D-Bus, the user's runtime folder with its agents).
	if full {
		// Everything writable, the host's /tmp included (a later call
		// reads what this one left there, as outside).
		b.add("--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/run")
	} else {
		b.add("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
		if c.limits.TmpBytes > 0 {
			b.add("--size", strconv.FormatInt(c.limits.TmpBytes, 10))
		}
		b.add("--tmpfs", "/tmp", "--tmpfs", "/run")
	}
	if err := b.placeFiles(spec.Files); err != nil {
		return nil, nil, nil, err
	}
	if hasControllingTTY() {
		if err := b.emptyFile("/dev/tty"); err != nil {
			return nil, nil, nil, err
		}
	}
	b.add(p.egress.args...) // the forwarder binary (network.go)
	writable := writableFor(spec, sh)
	if len(writable) == 0 {
		// Re-expose the workspace read-only in case it lives under /tmp.
		b.add("--ro-bind", spec.Workspace, spec.Workspace)
	}
	if !full {
		for _, w := range writable {
			b.add("--bind", w, w)
		}
	}
	if len(writable) > 0 {
		if err := c.protect(b, writable, sh.Approved, p); err != nil {
			return nil, nil, nil, err
		}
	}
	visible := writable
	if len(visible) == 0 {
		visible = []string{spec.Workspace}
	}
	if full {
		c.fullAccessHold(b)
		if err := c.guardHome(p); err != nil {
			return nil, nil, nil, err
		}
		visible = append(append([]string(nil), visible...), "/tmp")
		c.holdUserCaches(b, []string{"/"})
	} else {
		c.holdUserCaches(b, writable)
	}
	env := c.bindCaches(b)
	if err := c.hide(b, visible); err != nil {
		return nil, nil, nil, err
	}
	c.sockets(b)
	prog, err := seccompProgram(len(c.cfg.AllowUnixSockets) > 0)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := b.data("--seccomp", prog); err != nil {
		return nil, nil, nil, err
	}
	// Always: besides the limits and the hold, the limiter names the cage's
	// first process, which End kills and waits for.
	lim, err := newLimiter(c.limits, c.cgroupPool(), spec.Hold)
	if err != nil {
		return nil, nil, nil, err
	}
	p.lim, p.Held = lim, spec.Hold != nil
	b.fd("--info-fd", lim.infoW)
	b.fd("--block-fd", lim.blockR)
	// bwrap takes end of file on --block-fd for the word to go on, and
	// the pipe ends when its last writer closes: were Warden the only
	// writer, its death (a crash, a kill, Ctrl-C) before the word
	// would start the command unrecorded and without its limits. The
	// cage holds a writer too, so only the word starts it; a cage
	// whose Warden died waits, running nothing, until it is killed.
	b.inherit(lim.blockW)
	b.add("--chdir", dir, "--")
	return b.args, b.files, env, nil
}

// bwrap is the bubblewrap binary Detect found.
func (c *Cage) bwrap() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bwrapPath
}

func (c *Cage) cgroupPool() *cgroupPool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cgroups
}

// cgroupParent is where per-call cgroups go, or "".
func (c *Cage) cgroupParent() string {
	if p := c.cgroupPool(); p != nil {
		return p.parent
	}
	return ""
}

// protect binds the existing protected entries read-only and starts the
// watch that catches new ones. The folders above them are not pinned (one
// mount each, the largest part of a start's cost in a repository): a call
// may rename them, carrying the read-only entries along, and whatever it
// then makes at the old paths is new to the watch, which knows the old
// entries by identity (watch.go).
func (c *Cage) protect(b *argBuilder, writable, approved []string, p *Prepared) error {
	r := &rules{roots: writable, hidden: c.hidden, approved: approved, git: c.git}
	w, err := newWatcher(r)
	if err != nil {
		return err
	}
	p.watch = w
	s, err := r.walk(w.add)
	if err != nil {
		return err
	}
	// What the repositories' real config makes git read or run (gitset.go):
	// set before the watch starts reading, read-only after.
	held := c.gitHeld(s.repos, writable)
	r.held = newHeldSet(held)
	s.protected = mergeHeld(s.protected, held)
	w.start(s)
	var binds []string
	for _, pr := range s.protected {
		if _, hidden := hiddenUnder(c.hidden, pr.Path); hidden {
			continue // covered by hide
		}
		fi, err := os.Lstat(pr.Path)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			// The link itself is restored when changed (p.links). Its
			// target needs the bind only where the cage could write it:
			// a target outside every writable root is read-only already,
			// and a bind onto a link whose target the cage's view lacks
			// makes bwrap fail the whole call (/etc/localtime under a
			// writable /etc).
			p.links = append(p.links, stateOf(pr))
			target, err := filepath.EvalSymlinks(pr.Path)
			if err != nil || !underAny(target, writable) {
				continue
			}
		}
		binds = append(binds, pr.Path)
	}
	for _, pr := range binds {
		b.add("--ro-bind", pr, pr)
	}
	return nil
}

// hide covers every existing hidden path with an empty, mode-0000,
// read-only folder or file. /tmp and /run are the cage's own already,
// except for a workspace or writable root bound in from there.
func (c *Cage) hide(b *argBuilder, visible []string) error {
	for _, h := range c.hidden {
		if (Within("/tmp", h) || Within("/run", h)) && !underAny(h, visible) {
			continue
		}
		fi, err := os.Stat(h)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			b.add("--perms", "0000", "--tmpfs", h, "--remount-ro", h)
			continue
		}
		if err := b.emptyFile(h); err != nil {
			return err
		}
	}
	return nil
}

// sockets binds the allowed unix sockets in and, since the seccomp filter
// then lets unix sockets through, covers every other socket the host has
// bound outside the cage's own /tmp and /run and the hidden folders.
func (c *Cage) sockets(b *argBuilder) {
	if len(c.cfg.AllowUnixSockets) == 0 {
		return
	}
	allowed := map[string]bool{}
	for _, s := range c.cfg.AllowUnixSockets {
		if r, err := filepath.EvalSymlinks(s); err == nil {
			s = r
		}
		if fi, err := os.Stat(s); err == nil && fi.Mode()&os.ModeSocket != 0 {
			allowed[s] = true
			b.add("--bind", s, s)
		}
	}
	for _, s := range listeningSockets() {
		if allowed[s] || Within("/tmp", s) || Within("/run", s) {
			continue
		}
		if _, hidden := hiddenUnder(c.hidden, s); hidden {
			continue
		}
		if fi, err := os.Lstat(s); err == nil && fi.Mode()&os.ModeSocket != 0 {
			b.add("--ro-bind", "/dev/null", s)
		}
	}
}

// argBuilder collects bwrap arguments and the descriptors they name.
type argBuilder struct {
	args  []string
	files []*os.File
}

func (b *argBuilder) add(a ...string) { b.args = append(b.args, a...) }

// fd passes f to bwrap after flag.
func (b *argBuilder) fd(flag string, f *os.File) {
	b.args = append(b.args, flag, strconv.Itoa(3+len(b.files)))
	b.inherit(f)
}

// inherit hands bwrap a file no flag names: it stays open in the cage.
func (b *argBuilder) inherit(f *os.File) {
	b.files = append(b.files, f)
}

// data passes content to bwrap through a pipe: flag FD.
func (b *argBuilder) data(flag string, content []byte) error {
	r, err := pipeOf(content)
	if err != nil {
		return err
	}
	b.fd(flag, r)
	return nil
}

// emptyFile mounts an empty, mode-0000, read-only file on dest.
func (b *argBuilder) emptyFile(dest string) error {
	r, err := pipeOf(nil)
	if err != nil {
		return err
	}
	b.args = append(b.args, "--perms", "0000", "--ro-bind-data", strconv.Itoa(3+len(b.files)), dest)
	b.files = append(b.files, r)
	return nil
}

// pipeOf is the read end of a pipe holding content (small: it must fit
// the pipe's buffer, a seccomp program does).
func pipeOf(content []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	defer w.Close()
	if _, err := w.Write(content); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return r, nil
}

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if Within(r, p) {
			return true
		}
	}
	return false
}

// envAllow is the environment a caged process inherits; nothing else leaks
// (no tokens, no API keys, no LD_PRELOAD).
var envAllow = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TERM", "TZ", "SHELL", "COLORTERM", "NO_COLOR"}

// environ is the allowlist plus the cage's defaults (its toolchain
// caches), then the caller's variables, then the cage's own, which win.
func environ(defaults, extra, cage map[string]string) []string {
	var env []string
	for _, k := range envAllow {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LC_") {
			env = append(env, kv)
		}
	}
	env = append(env, "TMPDIR=/tmp")
	for _, k := range sortedKeys(defaults) {
		if _, set := extra[k]; !set {
			env = append(env, k+"="+defaults[k])
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	cageKeys := make([]string, 0, len(cage))
	for k := range cage {
		cageKeys = append(cageKeys, k)
	}
	sort.Strings(cageKeys)
	for _, k := range cageKeys {
		env = append(env, k+"="+cage[k])
	}
	return env
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
