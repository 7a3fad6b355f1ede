// Package sandbox is the OS cage every shell process of a session runs in.
//
// On Linux it is bubblewrap: the whole filesystem read-only, the workspace and
// writable roots read-write, the cage-protected paths (.git/hooks, .git/config,
// .mcp.json, .warden/, .vscode/, .envrc, shell rc files, Warden's own folders)
// bound read-only on top, a private /tmp, network only through Warden's proxy
// when admitted (network.go), a new user, PID, IPC, network and session
// namespace with every capability dropped and no nested user namespaces (so
// no remount or umount can lift a read-only bind), a private /run (host
// daemons' unix sockets), and an environment allowlist.
// ReadOnly binds nothing writable.
//
// A protected path that does not exist yet is kept from being created: when its
// parent exists, an empty read-only placeholder is bound over it (bwrap
// creates the mount point; Finish removes it again); when even the parent is
// missing (.git/hooks of a folder with no .git), Finish detects the creation
// after the process ends, removes it and reports a Violation.
//
// DangerFullAccess runs unconfined, and so does everything when the cage is
// unavailable: the policy is told caged=false and asks before unknown commands.
// Mode "container" trusts an outer container as the boundary; never the default.
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
	"strings"
	"sync"
	"syscall"
	"time"

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
	// Protected lists extra absolute paths kept read-only when they lie under
	// a writable root: Warden's own config and data folders.
	Protected []string
}

// Status says whether the cage works on this machine, and why not.
type Status struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason"`
}

// Cage prepares confined commands. It is safe for concurrent use.
type Cage struct {
	cfg Config

	mu        sync.Mutex
	status    *Status
	bwrapPath string // found by Detect
	phDir     string // private placeholder folder
	phFile    string // empty read-only placeholder file
	phFolder  string // empty read-only placeholder directory
}

// New returns a cage; call Detect once at start to learn whether it works.
func New(cfg Config) *Cage {
	if cfg.Mode == "" {
		cfg.Mode = ModeBwrap
	}
	if cfg.Bwrap == "" {
		cfg.Bwrap = "bwrap"
	}
	return &Cage{cfg: cfg}
}

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
		return Status{Available: true, Reason: "container mode: the outer container is the boundary"}
	}
	if c.cfg.Mode != ModeBwrap {
		return Status{Reason: fmt.Sprintf("unknown sandbox mode %q", c.cfg.Mode)}
	}
	path, err := exec.LookPath(c.cfg.Bwrap)
	if err != nil {
		return Status{Reason: "bwrap not found (install the bubblewrap package)"}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := append(baseArgs(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true")
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return Status{Reason: fmt.Sprintf("bwrap cannot start a cage (user namespaces?): %v: %s", err, strings.TrimSpace(stderr.String()))}
	}
	c.mu.Lock()
	c.bwrapPath = path
	c.mu.Unlock()
	return Status{Available: true, Reason: "bwrap " + path}
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

// Caged reports whether a process under this sandbox policy would run
// confined: what the policy engine's Session.Caged means.
func (c *Cage) Caged(p policy.SandboxPolicy) bool {
	return p.Kind != policy.DangerFullAccess && c.Status().Available
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
}

// Prepared is a command ready to start and the clean-up to run after it ends.
type Prepared struct {
	Cmd *exec.Cmd
	// Confined says whether the process runs inside the OS cage.
	Confined bool
	// Argv is the full command line, for diagnostics.
	Argv []string

	watch []watched   // checked after exit, undone when changed
	mount []Protected // placeholders bwrap creates mount points for
	env   map[string]string
	temp  []string // host files made for this run, removed by Finish

	egress egress // the proxy wiring, when network is admitted (network.go)
}

// Prepare builds the command for spec. The command is started by the caller;
// cancelling ctx kills its whole process group.
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
	p := &Prepared{}
	argv := spec.Args
	if c.Caged(spec.Policy) && c.cfg.Mode == ModeBwrap {
		if err := c.startEgress(ctx, spec, p); err != nil {
			return nil, err
		}
		bw, err := c.bwrapArgs(spec, dir, p)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		path := c.bwrapPath
		c.mu.Unlock()
		argv = append(append(append([]string{path}, bw...), p.egress.prefix...), spec.Args...)
		p.Confined = true
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = environ(spec.Env, p.env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Kill the whole group: bwrap's PID namespace dies with it, and an
	// unconfined command's children go too.
	cmd.Cancel = func() error { return KillGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second
	p.Cmd = cmd
	p.Argv = argv
	return p, nil
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

func baseArgs() []string {
	return []string{
		"--unshare-user", "--disable-userns", "--cap-drop", "ALL",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--die-with-parent", "--new-session",
		// Always its own network namespace; network goes through the proxy.
		"--unshare-net",
	}
}

func (c *Cage) bwrapArgs(spec Spec, dir string, p *Prepared) ([]string, error) {
	args := baseArgs()
	// /run is private too: the read-only root does not stop connect() on a
	// unix socket, and /run holds the ones that command the host (docker,
	// D-Bus, the user's runtime folder with its agents).
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run")
	args = append(args, p.egress.args...) // the proxy socket and forwarder (network.go)
	var writable []string
	if spec.Policy.Kind == policy.WorkspaceWrite {
		writable = append(writable, spec.Workspace)
		for _, r := range spec.Policy.WritableRoots {
			if filepath.IsAbs(r) {
				if _, err := os.Stat(r); err == nil {
					writable = append(writable, filepath.Clean(r))
				}
			}
		}
	}
	// Parents before children, so a nested root is bound on top.
	sort.Slice(writable, func(i, j int) bool { return len(writable[i]) < len(writable[j]) })
	if len(writable) == 0 {
		// Re-expose the workspace read-only in case it lives under /tmp.
		args = append(args, "--ro-bind", spec.Workspace, spec.Workspace)
	}
	for _, w := range writable {
		args = append(args, "--bind", w, w)
	}
	if len(writable) > 0 {
		ph, err := c.placeholders()
		if err != nil {
			return nil, err
		}
		protected := CageProtected(writable, c.cfg.Protected)
		// Pin every real folder between a root and a protected path with a
		// bind onto itself: a mount point cannot be renamed, so `mv .git x`
		// cannot carry the read-only .git/config away and plant a new one.
		for _, d := range pins(writable, protected) {
			args = append(args, "--bind", d, d)
		}
		for _, pr := range protected {
			fi, err := os.Lstat(pr.Path)
			switch {
			case err == nil && fi.Mode()&os.ModeSymlink != 0, err == nil && linkedAncestor(writable, pr.Path):
				p.watch = append(p.watch, stateOf(pr))
				if _, err := os.Stat(pr.Path); err == nil {
					args = append(args, "--ro-bind", pr.Path, pr.Path)
				}
			case err == nil:
				args = append(args, "--ro-bind", pr.Path, pr.Path)
			default:
				if fi, err := os.Lstat(filepath.Dir(pr.Path)); err != nil || !fi.IsDir() || linkedAncestor(writable, pr.Path) {
					p.watch = append(p.watch, stateOf(pr))
					continue
				}
				src := ph.file
				if pr.Dir {
					src = ph.dir
				}
				args = append(args, "--ro-bind", src, pr.Path)
				p.mount = append(p.mount, pr)
			}
		}
		more, err := c.hidePlaceholdersFromGit(p)
		if err != nil {
			return nil, err
		}
		args = append(args, more...)
	}
	args = append(args, "--chdir", dir, "--")
	return args, nil
}

// envAllow is the environment a caged process inherits; nothing else leaks
// (no tokens, no API keys, no LD_PRELOAD).
var envAllow = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TERM", "TZ", "SHELL", "COLORTERM", "NO_COLOR"}

// environ is the allowlist plus the caller's variables, then the cage's own,
// which win.
func environ(extra, cage map[string]string) []string {
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
