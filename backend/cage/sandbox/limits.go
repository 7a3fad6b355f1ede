package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Limits are the per-call caps of a caged process tree. Zero fields take
// the defaults; a negative field turns that cap off.
type Limits struct {
	// Processes caps the processes and threads of one call (RLIMIT_NPROC
	// counted in the cage's own user namespace; when Warden runs as root,
	// which that limit exempts, a pids cgroup).
	Processes int64 `json:"processes"`
	// TmpBytes is the size of the private /tmp (a tmpfs, so it is memory).
	TmpBytes int64 `json:"tmp_bytes"`
	// FileBytes caps the size of any one file a caged process writes
	// (RLIMIT_FSIZE; a write past it fails with EFBIG).
	FileBytes int64 `json:"file_bytes"`
}

// Default limits: a `go build ./...`, `npm ci` or `make -j` of a large
// project fits (thousands of threads, a few GB of scratch), a fork bomb or
// an endless write does not.
const (
	DefaultProcesses = 4096
	DefaultTmpBytes  = 2 << 30
	DefaultFileBytes = 8 << 30
)

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	if l.Processes == 0 {
		l.Processes = DefaultProcesses
	}
	if l.TmpBytes == 0 {
		l.TmpBytes = DefaultTmpBytes
	}
	if l.FileBytes == 0 {
		l.FileBytes = DefaultFileBytes
	}
	return l
}

// limiter applies the limits to bwrap's first process inside the cage
// before it runs anything: bwrap reports that process's pid on --info-fd
// and waits on --block-fd; the limits are set with prlimit(2) (and the pids
// cgroup joined) in between, so every descendant inherits them and none
// can start earlier. No wrapper program is executed, which keeps the start
// cost at a few system calls.
//
// bwrap reads --block-fd once the cage is wholly set up (namespaces,
// mounts, the new root), just before it starts the command; so the limiter
// is also where a held call (Spec.Hold) waits: the cage is built while the
// gate records the call, and the command starts only on its word.
type limiter struct {
	infoR, infoW   *os.File
	blockR, blockW *os.File
	cgroup         string // per-call pids cgroup, handed back by close
	pool           *cgroupPool
	hold           <-chan error  // nil, or the word the command waits for
	quit           chan struct{} // closed by close: stop waiting for hold
	done           chan struct{}
	err            atomic.Value // error
	// started: bwrap reported the cage's first process, so the cage was
	// set up; a bwrap that exits without it never made one (probecache.go).
	started atomic.Bool
	// initFD is a pidfd of that first process, the init of the cage's PID
	// namespace (-1 when there is none); known is closed once run has read
	// bwrap's report or its end, so initFD is settled (end).
	initFD  int
	initPID int
	known   chan struct{}
	// lingered: end killed the cage but it was not gone within endWithin.
	lingered bool
}

func newLimiter(l Limits, pool *cgroupPool, hold <-chan error) (*limiter, error) {
	lm := &limiter{done: make(chan struct{}), quit: make(chan struct{}), known: make(chan struct{}), initFD: -1, pool: pool, hold: hold}
	var err error
	if lm.infoR, lm.infoW, err = blockingPipe(); err != nil {
		return nil, fmt.Errorf("sandbox: limits: %w", err)
	}
	if lm.blockR, lm.blockW, err = os.Pipe(); err != nil {
		lm.infoR.Close()
		lm.infoW.Close()
		return nil, fmt.Errorf("sandbox: limits: %w", err)
	}
	if pool != nil && l.Processes > 0 {
		lm.cgroup = pool.get()
	}
	go lm.run(l)
	return lm, nil
}

// blockingPipe is a pipe whose read end is read with a plain blocking
// read(2) on the reading goroutine's thread: the kernel wakes that thread
// as soon as bwrap writes, without a round through Go's network poller,
// which matters on a busy machine, since the caged command waits on it.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "info-r"), os.NewFile(uintptr(fds[1]), "info-w"), nil
}

// cgroupPool keeps emptied per-call cgroups for the next calls: making one
// (mkdir) and retiring one (rmdir) each cost milliseconds on a busy
// machine, and a call's start waits for the first.
type cgroupPool struct {
	parent string
	max    int64
	mu     sync.Mutex
	free   []string
}

func (p *cgroupPool) get() string {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		dir := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return dir
	}
	p.mu.Unlock()
	return newCgroup(p.parent, p.max)
}

// put takes a cgroup back once its call is over: reused when empty, else
// (or when enough are kept) removed in the background.
func (p *cgroupPool) put(dir string) {
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil && len(strings.TrimSpace(string(b))) == 0 {
		p.mu.Lock()
		if len(p.free) < 8 {
			p.free = append(p.free, dir)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
	go func() { _ = os.Remove(dir) }()
}

var cgroupSeq atomic.Int64

// newCgroup makes the per-call pids cgroup; "" when the host does not let
// us (the call then runs with the rlimit alone).
func newCgroup(parent string, max int64) string {
	dir := filepath.Join(parent, fmt.Sprintf("warden-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return ""
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatInt(max, 10)), 0o644); err != nil {
		_ = os.Remove(dir)
		return ""
	}
	return dir
}

func (lm *limiter) run(l Limits) {
	defer close(lm.done)
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	err := json.NewDecoder(lm.infoR).Decode(&info)
	if err == nil && info.ChildPid > 0 {
		// Opened while the process waits for the word (--block-fd), so the
		// pid is still its own.
		if fd, err := unix.PidfdOpen(info.ChildPid, 0); err == nil {
			lm.initFD, lm.initPID = fd, info.ChildPid
		}
	}
	close(lm.known)
	if err != nil || info.ChildPid <= 0 {
		return // bwrap never got that far; nothing runs
	}
	pid := info.ChildPid
	lm.started.Store(true)
	fail := func(err error) {
		lm.err.Store(err)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	set := func(res int, v int64) error {
		if v <= 0 {
			return nil
		}
		lim := unix.Rlimit{Cur: uint64(v), Max: uint64(v)}
		return unix.Prlimit(pid, res, &lim, nil)
	}
	if err := set(unix.RLIMIT_NPROC, l.Processes); err != nil {
		fail(fmt.Errorf("sandbox: process limit: %w", err))
		return
	}
	if err := set(unix.RLIMIT_FSIZE, l.FileBytes); err != nil {
		fail(fmt.Errorf("sandbox: file size limit: %w", err))
		return
	}
	if lm.cgroup != "" {
		if err := os.WriteFile(filepath.Join(lm.cgroup, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			fail(fmt.Errorf("sandbox: process limit: %w", err))
			return
		}
	}
	if lm.hold != nil {
		select {
		case err := <-lm.hold:
			if err != nil { // the call was not recorded: nothing may run
				fail(fmt.Errorf("sandbox: the call was called off before its command ran: %w", err))
				return
			}
		case <-lm.quit: // the process ended (killed while held)
			return
		}
	}
	_, _ = lm.blockW.Write([]byte{1})
}

// end kills what is left in the cage and returns once it is gone; call
// after bwrap was waited for. bwrap returns as soon as its init reports the
// command's exit, but the init goes on reaping until the namespace holds no
// other process (or --die-with-parent kills it a moment after bwrap's
// exit): a process the command left behind (setsid, a daemon, a `&` with
// its own group) still runs, and writes, after Wait returned, where the
// call's checks (the watch, the restored links, the checkpoint after the
// call) would miss it. Killing the init kills the namespace, and its pidfd
// turns readable only when no process of the namespace is left.
func (lm *limiter) end() {
	_ = lm.infoW.Close() // Warden's copy: with bwrap gone, the report is whole or never comes
	select {
	case <-lm.known:
	case <-time.After(time.Second): // a writer of info outlived bwrap without reporting: no init was made
		return
	}
	fd := lm.initFD
	if fd < 0 {
		return
	}
	lm.initFD = -1
	if alone(lm.initPID, fd) {
		// Nothing but the init is left, and it only exits: not waiting
		// for that (its mounts' teardown, ≈ 0.4 ms) keeps the call's end
		// where it was for the common command that leaves nothing.
		_ = unix.Close(fd)
		return
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil && err != unix.ESRCH {
		_ = unix.Close(fd) // not ours to kill: waiting could be forever
		return
	}
	// A killed process ends at once unless it sleeps uninterruptibly (a
	// hung network or FUSE mount); the call does not wait for that
	// forever, and Finish says so.
	lm.lingered = !waitGone([]int{fd}, time.Now().Add(endWithin))
}

// endWithin bounds how long End waits for a killed cage to be gone.
const endWithin = 5 * time.Second

// close releases the pipes and the cgroup; call after the process ended.
func (lm *limiter) close() error {
	close(lm.quit)
	for _, f := range []*os.File{lm.infoW, lm.blockR, lm.blockW, lm.infoR} {
		_ = f.Close()
	}
	<-lm.done
	if lm.cgroup != "" {
		lm.pool.put(lm.cgroup)
	}
	if err, ok := lm.err.Load().(error); ok {
		return err
	}
	return nil
}

// pidsCgroupParent is where per-call pids cgroups go, or "" when they are
// not needed or not possible. RLIMIT_NPROC binds every user but root (the
// kernel exempts uid 0 and the cage maps the caller's uid), so a cgroup is
// made only when Warden runs as root: cgroup v1's pids hierarchy below
// Warden's own group, or the cgroup v2 root when it delegates pids.
func pidsCgroupParent() string {
	if os.Geteuid() != 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "pids" {
				dir := filepath.Join("/sys/fs/cgroup/pids", f[2])
				if writable(dir) {
					return dir
				}
			}
		}
	}
	if ctl, err := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control"); err == nil && strings.Contains(string(ctl), "pids") && writable("/sys/fs/cgroup") {
		return "/sys/fs/cgroup"
	}
	return ""
}

func writable(dir string) bool { return unix.Access(dir, unix.W_OK) == nil }

// removeStaleCgroups removes the per-call cgroups of Warden processes that
// are gone (killed before they could clean up). A group that still holds
// processes is a cage its Warden held when it died: the cage waits for a
// word that will not come (bwrap's --block-fd, which the cage holds a
// writer of so that the death is not taken for the word), running nothing
// but keeping its namespaces. Its processes are killed, and the group is
// removed once they are gone.
func removeStaleCgroups(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "warden-")
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) != syscall.ESRCH {
			continue // its Warden lives (or the pid is another's now: leave it)
		}
		dir := filepath.Join(parent, e.Name())
		if err := os.Remove(dir); err == nil || !errors.Is(err, syscall.EBUSY) {
			continue
		}
		if fds := killCgroup(dir); len(fds) > 0 {
			go func() { // the next start removes it if this process ends first
				waitGone(fds, time.Time{})
				_ = os.Remove(dir)
			}()
		}
	}
}

// killCgroup sends SIGKILL to every process in the cgroup at dir and
// returns pidfds of those it reached.
func killCgroup(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var fds []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
			_ = unix.Close(fd)
			continue
		}
		fds = append(fds, fd)
	}
	return fds
}

// alone says whether the cage's init (pid, with its pidfd) is past running
// anything: gone, or with no child. Every process of a PID namespace
// descends from its init and an orphan is handed to it, and a child stays
// in its parent's list until reaped, so an init without children is the
// namespace's last process; bwrap's init has reaped the command before it
// reports the exit, and then only waits for children until there are
// none. Unknown (no children file: a kernel without CONFIG_PROC_CHILDREN)
// is not alone.
func alone(pid, fd int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if exited(fd) {
		return true // the namespace is gone (and the file may have been another's)
	}
	return err == nil && len(strings.TrimSpace(string(b))) == 0
}

// exited says whether the process of a pidfd has exited, without waiting.
func exited(fd int) bool {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(pfd, 0)
	return err == nil && n > 0
}

// waitGone waits until every process of the pidfds has exited, or until
// deadline (none when zero), closes them, and says whether all exited.
func waitGone(fds []int, deadline time.Time) bool {
	gone := true
	for _, fd := range fds {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			ms := -1
			if !deadline.IsZero() {
				ms = max(int(time.Until(deadline)/time.Millisecond), 0)
			}
			n, err := unix.Poll(pfd, ms)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n == 0 {
				gone = false
			}
			break
		}
		_ = unix.Close(fd)
	}
	return gone
}

// Close removes what the cage made outside the workspace and still holds:
// its pooled per-call cgroups and those of calls whose Finish never ran.
func (c *Cage) Close() error {
	pool := c.cgroupPool()
	if pool == nil {
		return nil
	}
	pool.mu.Lock()
	pool.free = nil
	pool.mu.Unlock()
	parent := pool.parent
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	prefix := fmt.Sprintf("warden-%d-", os.Getpid())
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			_ = os.Remove(filepath.Join(parent, e.Name()))
		}
	}
	return nil
}
