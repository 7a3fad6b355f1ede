package desktopmem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Options says what to start and how long to leave it alone.
type Options struct {
	// Binary is the built desktop app (make desktop).
	Binary string
	// Idle is how long the window sits untouched before the reading; 25 s
	// by default, long enough for the frontend to mount and settle.
	Idle time.Duration
	// Screen is Xvfb's screen; "1280x800x24" by default.
	Screen string
	// Env is added to the app's environment (KEY=value).
	Env []string
	// Breakdown keeps this many of each process's largest mappings.
	Breakdown int
	// Proc is the proc filesystem; "/proc" by default.
	Proc string
	// Quiet is how long, after the idle time, to wait for other WebKit
	// processes on the machine to go away before reading anyway; 90 s by
	// default. Their sharing of libraries lowers both PSS and USS.
	Quiet time.Duration
}

// Process is one process of the app's tree at the reading.
type Process struct {
	PID  int       `json:"pid"`
	Name string    `json:"name"`
	Mem  Usage     `json:"mem"`
	Top  []Mapping `json:"top,omitempty"`
}

// Reading is one start of the app, measured once after the idle time.
type Reading struct {
	Processes []Process `json:"processes"`
	Total     Usage     `json:"total"`
	// Neighbours counts other processes on the machine that map WebKit
	// (another app or test running at the same time); see othersMapping.
	Neighbours int `json:"neighbours"`
}

// errNoApp means the binary never showed up under xvfb-run.
var errNoApp = errors.New("the desktop app did not start")

// Measure starts the app once under xvfb-run with a fresh XDG home, waits
// the idle time, reads every process of its tree and stops it.
func Measure(ctx context.Context, o Options) (Reading, error) {
	o = o.withDefaults()
	bin, err := filepath.Abs(o.Binary)
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		return Reading{}, fmt.Errorf("desktop binary: %w", err)
	}
	if _, err := exec.LookPath("xvfb-run"); err != nil {
		return Reading{}, fmt.Errorf("xvfb-run is required (apt: xvfb xauth): %w", err)
	}
	if err := evict(bin); err != nil {
		return Reading{}, err
	}
	home, err := os.MkdirTemp("", "warden-desktopmem-")
	if err != nil {
		return Reading{}, err
	}
	defer os.RemoveAll(home)
	var log bytes.Buffer
	cmd := exec.Command("xvfb-run", "-a", "-s", "-screen 0 "+o.Screen, bin)
	cmd.Env = append(os.Environ(),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	cmd.Env = append(cmd.Env, o.Env...)
	cmd.Stdout, cmd.Stderr = &log, &log
	// Its own process group, so stopping it reaches Xvfb and WebKit too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return Reading{}, fmt.Errorf("start xvfb-run: %w", err)
	}
	defer stop(cmd)

	root, err := findApp(ctx, o.Proc, cmd.Process.Pid, bin, 20*time.Second)
	if err != nil {
		return Reading{}, fmt.Errorf("%w: %v; output: %s", errNoApp, err, tail(log.Bytes()))
	}
	select {
	case <-ctx.Done():
		return Reading{}, ctx.Err()
	case <-time.After(o.Idle):
	}
	if err := waitQuiet(ctx, o, root); err != nil {
		return Reading{}, err
	}
	r, err := read(o, root)
	if err != nil {
		return Reading{}, fmt.Errorf("%w; output: %s", err, tail(log.Bytes()))
	}
	return r, nil
}

func (o Options) withDefaults() Options {
	if o.Idle <= 0 {
		o.Idle = 25 * time.Second
	}
	if o.Screen == "" {
		o.Screen = "1280x800x24"
	}
	if o.Proc == "" {
		o.Proc = "/proc"
	}
	if o.Quiet <= 0 {
		o.Quiet = 90 * time.Second
	}
	return o
}

// evict drops the binary from the page cache. A freshly linked binary
// sits in the cache in large folios and faults in far more of itself
// (about 20 MB more PSS, measured) than one read from disk as an
// installed app is; evicting makes every run start like the latter.
func evict(bin string) error {
	f, err := os.Open(bin)
	if err != nil {
		return fmt.Errorf("desktop binary: %w", err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("evict %s from the page cache: %w", bin, err)
	}
	return nil
}

// findApp waits for the process running bin among the descendants of the
// xvfb-run shell.
func findApp(ctx context.Context, proc string, shell int, bin string, limit time.Duration) (int, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		procs, err := scanProcs(proc)
		if err != nil {
			return 0, err
		}
		for _, pid := range tree(procs, shell) {
			if exe, err := os.Readlink(filepath.Join(proc, strconv.Itoa(pid), "exe")); err == nil && exe == bin {
				return pid, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("no process ran %s within %s", bin, limit)
}

// waitQuiet returns once no process outside the app's tree maps WebKit, or
// when o.Quiet has passed; the reading records how many there were.
func waitQuiet(ctx context.Context, o Options, root int) error {
	deadline := time.Now().Add(o.Quiet)
	for {
		procs, err := scanProcs(o.Proc)
		if err != nil {
			return err
		}
		ours := map[int]bool{}
		for _, pid := range tree(procs, root) {
			ours[pid] = true
		}
		if othersMapping(o.Proc, procs, ours, webkitLib) == 0 || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// webkitLib names the library whose sharing with other programs would
// skew the figures.
const webkitLib = "libwebkit2gtk"

// read takes the reading of root and its descendants.
func read(o Options, root int) (Reading, error) {
	procs, err := scanProcs(o.Proc)
	if err != nil {
		return Reading{}, err
	}
	if _, ok := procs[root]; !ok {
		return Reading{}, fmt.Errorf("the desktop app (pid %d) exited before the reading", root)
	}
	var r Reading
	ours := map[int]bool{}
	for _, pid := range tree(procs, root) {
		ours[pid] = true
		dir := filepath.Join(o.Proc, strconv.Itoa(pid))
		f, err := os.Open(filepath.Join(dir, "smaps_rollup"))
		if err != nil {
			continue // exited since the scan
		}
		u, err := ParseRollup(f)
		f.Close()
		if err != nil {
			return Reading{}, fmt.Errorf("pid %d: %w", pid, err)
		}
		p := Process{PID: pid, Name: procs[pid].comm, Mem: u}
		if o.Breakdown > 0 {
			if p.Top, err = breakdown(dir, o.Breakdown); err != nil {
				return Reading{}, fmt.Errorf("pid %d: %w", pid, err)
			}
		}
		r.Processes = append(r.Processes, p)
		r.Total.RSS += u.RSS
		r.Total.PSS += u.PSS
		r.Total.USS += u.USS
	}
	r.Neighbours = othersMapping(o.Proc, procs, ours, webkitLib)
	return r, nil
}

func breakdown(dir string, n int) ([]Mapping, error) {
	f, err := os.Open(filepath.Join(dir, "smaps"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ms, err := ParseSmaps(f)
	if err != nil {
		return nil, err
	}
	return ms[:min(n, len(ms))], nil
}

// stop ends the whole group: TERM first (Wails quits in order), KILL if
// it lingers.
func stop(cmd *exec.Cmd) {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
}

func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 600 {
		b = b[len(b)-600:]
	}
	return string(b)
}
