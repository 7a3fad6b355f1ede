package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/warden-dev/warden/backend/store"

	"github.com/warden-dev/warden/backend/cage/sandbox"
)

const (
	monitorTailLines = 50
	// monitorKeepLines is how much output monitor.read can page through.
	monitorKeepLines = 2000
	maxWatchDirs     = 2000
)

// MonitorInfo describes one background monitor.
type MonitorInfo struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	Name      string    `json:"name"`
	Kind      string    `json:"kind"` // "command" | "watch"
	Command   string    `json:"command,omitempty"`
	WatchPath string    `json:"watch_path,omitempty"`
	Started   time.Time `json:"started"`
	Running   bool      `json:"running"`
	ExitCode  *int      `json:"exit_code,omitempty"`
	Confined  bool      `json:"confined,omitempty"`
	Tail      []string  `json:"tail,omitempty"` // last lines of output or events
	// Exposed maps cage ports to the host loopback URLs that reach them.
	Exposed []sandbox.Exposed `json:"exposed,omitempty"`
}

// Monitors runs the background monitors of all sessions: a long-running
// command in the cage, or a file-system watch. Output lines and change events
// go to the Env.Output of the call that started the monitor, on streams named
// "monitor/<id>/stdout", ".../stderr", ".../event" and ".../exit". A
// session's monitors die with it (StopSession), and all of them with Close.
type Monitors struct {
	cage *sandbox.Cage

	mu   sync.Mutex
	seq  int
	mons map[string]*monitor
}

type monitor struct {
	mu     sync.Mutex
	info   MonitorInfo
	cancel context.CancelFunc
	done   chan struct{}
	out    func(stream string, chunk []byte)
	log    func(store.Event)

	// lines keeps the last monitorKeepLines lines for monitor.read; first
	// is the number of lines[0] (lines are numbered from 1 as they come).
	lines []string
	first int
	// changed is closed (and replaced) on every new line and at the end,
	// so a reader can wait for either.
	changed chan struct{}
	// stopReason is why it was stopped, set before cancel; "" when it
	// ended by itself.
	stopReason string
	ended      sync.Once
	// started is closed once MonitorStarted is recorded; a detected port
	// waits for it (nil for a watch).
	started chan struct{}
}

// NewMonitors returns a manager starting command monitors in cage.
func NewMonitors(cage *sandbox.Cage) *Monitors {
	return &Monitors{cage: cage, mons: map[string]*monitor{}}
}

// MonitorSpec is what to monitor: exactly one of Command or WatchPath
// (absolute, resolved); Cwd for a command.
type MonitorSpec struct {
	Name      string
	Command   string
	Cwd       string
	WatchPath string
	// Expose lists the command's listening ports to reach from the host.
	Expose []int
	// Escalate: the command asks a human for the sandbox's full reach
	// (the gate asks; the monitor runs in the cage env.Cage names).
	Escalate bool
}

// Start starts a monitor for the session of env and returns at once.
func (m *Monitors) Start(env Env, spec MonitorSpec) (MonitorInfo, error) {
	if (spec.Command == "") == (spec.WatchPath == "") {
		return MonitorInfo{}, errors.New("give exactly one of command or watch_path")
	}
	m.mu.Lock()
	m.seq++
	id := fmt.Sprintf("mon-%d", m.seq)
	m.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	mon := &monitor{cancel: cancel, done: make(chan struct{}), out: env.Output, log: env.Log, first: 1,
		changed: make(chan struct{}),
		info:    MonitorInfo{ID: id, SessionID: env.SessionID, Name: spec.Name, Started: time.Now(), Running: true}}
	if mon.info.Name == "" {
		mon.info.Name = id
	}
	var err error
	if spec.Command != "" {
		mon.info.Kind, mon.info.Command = "command", spec.Command
		err = m.startCommand(ctx, env, spec, mon)
	} else {
		mon.info.Kind, mon.info.WatchPath = "watch", spec.WatchPath
		err = startWatch(ctx, spec.WatchPath, mon)
	}
	if err != nil {
		cancel()
		return MonitorInfo{}, err
	}
	m.mu.Lock()
	m.mons[id] = mon
	m.mu.Unlock()
	what := spec.Command
	if what == "" {
		what = "watch " + spec.WatchPath
	}
	mon.record(store.MonitorStarted{MonitorID: id, CallID: env.CallID, Command: what, Cwd: spec.Cwd})
	for _, e := range mon.snapshot().Exposed {
		mon.record(store.MonitorPortExposed{MonitorID: id, Port: e.CagePort, URL: e.URL})
	}
	if mon.started != nil {
		close(mon.started)
	}
	return mon.snapshot(), nil
}

// exposed adds a port found while the monitor runs: kept in its info,
// recorded (the chat shows it, the model is told), and written to its
// output so monitor.read sees it.
func (mon *monitor) exposed(e sandbox.Exposed, detected bool) {
	mon.mu.Lock()
	mon.info.Exposed = append(mon.info.Exposed, e)
	mon.mu.Unlock()
	mon.record(store.MonitorPortExposed{MonitorID: mon.info.ID, Port: e.CagePort, URL: e.URL, Detected: detected})
	mon.emit("event", fmt.Sprintf("listening on port %d, reachable from the host at %s", e.CagePort, e.URL))
}

func (mon *monitor) record(ev store.Event) {
	if mon.log != nil {
		mon.log(ev)
	}
}

// finish marks the monitor ended and records MonitorStopped, once.
func (mon *monitor) finish(code *int) {
	mon.ended.Do(func() {
		mon.mu.Lock()
		mon.info.Running = false
		if code != nil {
			mon.info.ExitCode = code
		}
		reason := mon.stopReason
		if reason == "" {
			reason = "exited"
			if code == nil {
				reason = "ended"
			}
		}
		close(mon.changed)
		mon.changed = make(chan struct{})
		mon.mu.Unlock()
		mon.record(store.MonitorStopped{MonitorID: mon.info.ID, ExitCode: code, Reason: reason})
	})
}

func (m *Monitors) startCommand(ctx context.Context, env Env, spec MonitorSpec, mon *monitor) error {
	// Ports the command starts listening on are found in the cage and
	// forwarded too: a dev server's port is often chosen by its tool.
	started := make(chan struct{})
	prep, err := m.cage.Prepare(ctx, sandbox.Spec{Workspace: env.Workspace, Policy: env.Sandbox, Dir: spec.Cwd,
		Args: []string{"bash", "-c", spec.Command}, Egress: env.Egress, Expose: spec.Expose, Shape: env.Cage,
		DetectPorts: true, OnExpose: func(e sandbox.Exposed) {
			select {
			case <-started: // MonitorStarted first
				mon.exposed(e, true)
			case <-ctx.Done():
			}
		}})
	if err != nil {
		return err
	}
	mon.info.Confined = prep.Confined
	mon.info.Exposed = exposedURLs(prep, spec.Expose)
	mon.started = started
	stdout, err := prep.Cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := prep.Cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := prep.Cmd.Start(); err != nil {
		return fmt.Errorf("start monitor: %w", err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); mon.pump("stdout", stdout) }()
	go func() { defer wg.Done(); mon.pump("stderr", stderr) }()
	pumped := make(chan struct{})
	go func() { wg.Wait(); close(pumped) }()
	go func() {
		// Normally the pipes close when the command ends. A stop can land
		// while bwrap is still setting the cage up, and a process it forked
		// then may outlive it holding the pipes: once stopped, Wait (which
		// closes them, WaitDelay after the kill) must not wait for the pumps.
		select {
		case <-pumped:
		case <-ctx.Done():
		}
		err := prep.Cmd.Wait()
		<-pumped
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		for _, v := range prep.Finish() {
			mon.emit("stderr", fmt.Sprintf("sandbox violation: %s: %s", v.Path, v.Detail))
		}
		mon.send("exit", fmt.Sprintf("exit code %d", code))
		mon.finish(&code)
		close(mon.done)
	}()
	return nil
}

func (mon *monitor) pump(stream string, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		mon.emit(stream, sc.Text())
	}
	_, _ = io.Copy(io.Discard, r) // an over-long line: drain so the process is not blocked
}

// emit keeps a line in the tail and streams it.
func (mon *monitor) emit(stream, line string) {
	mon.mu.Lock()
	mon.info.Tail = append(mon.info.Tail, line)
	if over := len(mon.info.Tail) - monitorTailLines; over > 0 {
		mon.info.Tail = append(mon.info.Tail[:0], mon.info.Tail[over:]...)
	}
	mon.lines = append(mon.lines, line)
	if over := len(mon.lines) - monitorKeepLines; over > 0 {
		mon.lines = append(mon.lines[:0], mon.lines[over:]...)
		mon.first += over
	}
	close(mon.changed)
	mon.changed = make(chan struct{})
	mon.mu.Unlock()
	mon.send(stream, line)
}

func (mon *monitor) send(stream, line string) {
	if mon.out != nil {
		mon.out("monitor/"+mon.info.ID+"/"+stream, []byte(line+"\n"))
	}
}

func (mon *monitor) snapshot() MonitorInfo {
	mon.mu.Lock()
	defer mon.mu.Unlock()
	i := mon.info
	i.Tail = append([]string(nil), mon.info.Tail...)
	i.Exposed = append([]sandbox.Exposed(nil), mon.info.Exposed...)
	return i
}

func startWatch(ctx context.Context, root string, mon *monitor) error {
	fi, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("watch_path: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	n := 0
	add := func(dir string) {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if n >= maxWatchDirs || (p != dir && (d.Name() == ".git" || d.Name() == "node_modules")) {
				return filepath.SkipDir
			}
			if w.Add(p) == nil {
				n++
			}
			return nil
		})
	}
	if fi.IsDir() {
		add(root)
	} else if err := w.Add(root); err != nil {
		w.Close()
		return fmt.Errorf("watch: %w", err)
	}
	go func() {
		defer close(mon.done)
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				mon.finish(nil)
				return
			case ev, ok := <-w.Events:
				if !ok {
					mon.finish(nil)
					return
				}
				if ev.Has(fsnotify.Create) {
					if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
						add(ev.Name)
					}
				}
				mon.emit("event", strings.ToLower(ev.Op.String())+" "+ev.Name)
			case err, ok := <-w.Errors:
				if !ok {
					mon.finish(nil)
					return
				}
				mon.emit("event", "error "+err.Error())
			}
		}
	}()
	return nil
}

// List returns the session's monitors, oldest first.
func (m *Monitors) List(sessionID string) []MonitorInfo {
	m.mu.Lock()
	var out []MonitorInfo
	for _, mon := range m.mons {
		if mon.info.SessionID == sessionID {
			out = append(out, mon.snapshot())
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		return out[i].Started.Before(out[j].Started) || (out[i].Started.Equal(out[j].Started) && out[i].ID < out[j].ID)
	})
	return out
}

// Stop stops one monitor of the session for the human (a window's kill
// button) and waits for it to end.
func (m *Monitors) Stop(sessionID, id string) (MonitorInfo, error) {
	return m.StopBecause(sessionID, id, "stopped by the user")
}

// StopBecause stops one monitor of the session, recording why.
func (m *Monitors) StopBecause(sessionID, id, reason string) (MonitorInfo, error) {
	m.mu.Lock()
	mon, ok := m.mons[id]
	if ok && mon.info.SessionID != sessionID {
		ok = false
	}
	if ok {
		delete(m.mons, id)
	}
	m.mu.Unlock()
	if !ok {
		return MonitorInfo{}, fmt.Errorf("no monitor %q in this session", id)
	}
	mon.stop(reason)
	return mon.snapshot(), nil
}

func (mon *monitor) stop(reason string) {
	mon.mu.Lock()
	if mon.stopReason == "" && mon.info.Running {
		mon.stopReason = reason
	}
	mon.mu.Unlock()
	mon.cancel()
	select {
	case <-mon.done:
	case <-time.After(5 * time.Second):
	}
}

// StopSession stops every monitor of a session; it returns how many.
func (m *Monitors) StopSession(sessionID string) int {
	m.mu.Lock()
	var stop []*monitor
	for id, mon := range m.mons {
		if mon.info.SessionID == sessionID {
			stop = append(stop, mon)
			delete(m.mons, id)
		}
	}
	m.mu.Unlock()
	for _, mon := range stop {
		mon.stop("the session closed")
	}
	return len(stop)
}

// Close stops every monitor.
func (m *Monitors) Close() {
	m.mu.Lock()
	all := m.mons
	m.mons = map[string]*monitor{}
	m.mu.Unlock()
	for _, mon := range all {
		mon.stop("Warden shut down")
	}
}

// exposedURLs is where the host reaches the monitor's ports: through the
// cage's exposed ports, or, unconfined, the ports themselves.
func exposedURLs(prep *sandbox.Prepared, ports []int) []sandbox.Exposed {
	if prep.Confined {
		return prep.Exposed()
	}
	var out []sandbox.Exposed
	for _, p := range ports {
		addr := fmt.Sprintf("127.0.0.1:%d", p)
		out = append(out, sandbox.Exposed{CagePort: p, HostAddr: addr, URL: "http://" + addr + "/"})
	}
	return out
}

// MonitorLines is a page of a monitor's output for monitor.read.
type MonitorLines struct {
	Info  MonitorInfo `json:"info"`
	From  int         `json:"from"`  // number of Lines[0]
	Next  int         `json:"next"`  // pass as since to read on
	Lines []string    `json:"lines"` // output lines and change events, in order
	// Dropped counts lines asked for that are no longer kept.
	Dropped int `json:"dropped,omitempty"`
}

// Read returns up to limit lines numbered since or later (lines are numbered
// from 1). With wait > 0 and nothing new, it waits that long for a line or
// the monitor's end.
func (m *Monitors) Read(ctx context.Context, sessionID, id string, since, limit int, wait time.Duration) (MonitorLines, error) {
	m.mu.Lock()
	mon, ok := m.mons[id]
	m.mu.Unlock()
	if !ok || mon.info.SessionID != sessionID {
		return MonitorLines{}, fmt.Errorf("no monitor %q in this session", id)
	}
	if since < 1 {
		since = 1
	}
	if limit <= 0 {
		limit = 200
	}
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	for {
		mon.mu.Lock()
		end := mon.first + len(mon.lines)
		running, changed := mon.info.Running, mon.changed
		mon.mu.Unlock()
		if since < end || !running || timeout == nil {
			break
		}
		select {
		case <-changed:
		case <-timeout:
			timeout = nil
		case <-ctx.Done():
			return MonitorLines{}, ctx.Err()
		}
	}
	mon.mu.Lock()
	defer mon.mu.Unlock()
	out := MonitorLines{From: since}
	if since < mon.first {
		out.Dropped, out.From = mon.first-since, mon.first
	}
	i := out.From - mon.first
	j := min(len(mon.lines), max(i, 0)+limit)
	if i < len(mon.lines) {
		out.Lines = append([]string(nil), mon.lines[i:j]...)
	}
	out.Next = out.From + len(out.Lines)
	out.Info = mon.info
	out.Info.Tail = nil
	return out, nil
}
