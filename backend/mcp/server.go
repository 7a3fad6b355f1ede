package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerState is where a server is in its life.
type ServerState string

const (
	StateIdle     ServerState = "idle"     // configured, not started yet
	StateStarting ServerState = "starting" // connecting and listing tools
	StateRunning  ServerState = "running"
	StateCrashed  ServerState = "crashed" // exited; restarts on next use, after backoff
	StateFailed   ServerState = "failed"  // could not start; retried on next use, after backoff
	StateStopped  ServerState = "stopped" // the manager was closed
	// StateAwaitingTrust: a workspace server (from .mcp.json, i.e. from
	// the repository) is not started before the human trusts its launch
	// config, because starting it already runs its code.
	StateAwaitingTrust ServerState = "awaiting-trust"
)

// backoff is the wait before the next start after n consecutive failures:
// the first restart is immediate, then 0.5s doubling to 30s.
func backoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := 500 * time.Millisecond << min(n-2, 6)
	return min(d, 30*time.Second)
}

// toolInfo is one tool as the server last listed it.
type toolInfo struct {
	name         string
	title        string
	description  string
	inputSchema  json.RawMessage
	hash         string
	readOnlyHint bool
	destructive  bool
	validator    *jsonschema.Resolved
	schemaErr    error
}

func newToolInfo(t *sdk.Tool) *toolInfo {
	ti := &toolInfo{name: t.Name, title: t.Title, description: t.Description}
	ti.inputSchema, _ = json.Marshal(t.InputSchema)
	var outSchema, annotations json.RawMessage
	if t.OutputSchema != nil {
		outSchema, _ = json.Marshal(t.OutputSchema)
	}
	if t.Annotations != nil {
		annotations, _ = json.Marshal(t.Annotations)
		ti.readOnlyHint = t.Annotations.ReadOnlyHint
		ti.destructive = t.Annotations.DestructiveHint == nil || *t.Annotations.DestructiveHint
	}
	ti.hash = toolHash(t.Name, t.Title, t.Description, ti.inputSchema, outSchema, annotations)
	ti.validator, ti.schemaErr = compileSchema(ti.inputSchema)
	return ti
}

// server is one configured MCP server and its current connection.
type server struct {
	cfg     ServerConfig
	hash    string
	logPath string
	opts    *Options
	// mayStart says whether the server may be started without an explicit
	// trust action; nil means always.
	mayStart func(ctx context.Context) error

	startMu sync.Mutex // serialises starts; never held with mu inverted

	mu        sync.Mutex
	state     ServerState
	cs        *sdk.ClientSession
	stop      func()
	exit      func() string
	gen       int
	tools     map[string]*toolInfo
	order     []string
	appeared  map[string]time.Time // tools first seen through tools/list_changed
	lastErr   string
	failures  int
	nextStart time.Time
	restarts  int
	started   bool
	closed    bool
	// lastCall is when the last tools/call returned; relists counts the
	// tools/list_changed re-lists in flight (see settle).
	lastCall time.Time
	relists  int
	// relisted is closed (and dropped) when a re-list ends: settle waits
	// on it instead of polling relists.
	relisted chan struct{}

	life    context.Context // ends with close
	endLife context.CancelFunc

	// route decides a caged server's connections for its calls (cage.go).
	route *callRoute
}

func newServer(cfg ServerConfig, logPath string, opts *Options) *server {
	s := &server{
		cfg: cfg, hash: cfg.LaunchHash(opts.HashKey), logPath: logPath, opts: opts,
		state: StateIdle, tools: map[string]*toolInfo{}, appeared: map[string]time.Time{},
		route: newCallRoute(cfg.Name, logPath),
	}
	s.life, s.endLife = context.WithCancel(context.Background())
	return s
}

// session returns a live session, starting the server if it is not running.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, error) {
	return s.sessionFor(ctx, false)
}

// sessionFor is session; explicit is set when the human asked for this
// server by name (trusting it), which is consent to start it.
func (s *server) sessionFor(ctx context.Context, explicit bool) (*sdk.ClientSession, error) {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q: the manager is closed", s.cfg.Name)
	}
	if s.state == StateRunning && s.cs != nil {
		cs := s.cs
		s.mu.Unlock()
		return cs, nil
	}
	if !explicit && s.mayStart != nil {
		s.mu.Unlock()
		if err := s.mayStart(ctx); err != nil {
			s.mu.Lock()
			s.state, s.lastErr = StateAwaitingTrust, err.Error()
			s.mu.Unlock()
			return nil, err
		}
		s.mu.Lock()
	}
	if wait := s.nextStart.Sub(s.opts.Now()); wait > 0 {
		err := fmt.Errorf("MCP server %q is down after %d failed starts or crashes; next attempt in %s (last error: %s)",
			s.cfg.Name, s.failures, wait.Round(100*time.Millisecond), s.lastErr)
		s.mu.Unlock()
		return nil, err
	}
	s.state = StateStarting
	s.gen++
	gen := s.gen
	s.mu.Unlock()

	cs, stop, tools, err := s.connect(ctx, gen)

	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && ctx.Err() != nil {
		// The caller gave up; that says nothing about the server.
		s.state, s.lastErr = StateIdle, "start cancelled"
		return nil, err
	}
	if err != nil {
		s.failures++
		s.nextStart = s.opts.Now().Add(backoff(s.failures))
		s.state = StateFailed
		s.lastErr = err.Error()
		return nil, err
	}
	if s.closed {
		_ = cs.Close()
		stop()
		return nil, fmt.Errorf("MCP server %q: the manager is closed", s.cfg.Name)
	}
	if s.started {
		s.restarts++
	}
	s.started = true
	s.cs, s.stop, s.state, s.lastErr = cs, stop, StateRunning, ""
	s.applyTools(tools, false)
	go s.watch(cs, stop, gen)
	return cs, nil
}

// connect starts the server, completes the handshake and lists its tools.
func (s *server) connect(ctx context.Context, gen int) (*sdk.ClientSession, func(), []*sdk.Tool, error) {
	fail := func(format string, arg any) error {
		msg := fmt.Sprintf("MCP server %q "+format, s.cfg.Name, arg)
		if tail := logTail(s.logPath, 5); tail != "" {
			msg += "; stderr: " + tail
		}
		return errors.New(msg)
	}
	caged, why, err := sandboxMode(s.cfg, s.opts.Cage)
	if err != nil {
		return nil, nil, nil, err
	}
	var cg *caging
	if caged {
		cg = &caging{cage: s.opts.Cage, route: s.route}
	}
	log, err := openLog(s.logPath)
	if err != nil {
		return nil, nil, nil, err
	}
	// The child keeps its own descriptor for stderr; ours is not needed
	// once it has started.
	defer log.Close()
	how := "unconfined"
	if caged {
		how = "caged"
	}
	if why != "" {
		how += " (" + why + ")"
	}
	fmt.Fprintf(log, "--- %s starting %s, %s\n", s.opts.Now().UTC().Format(time.RFC3339), s.describe(), how)
	transport, stop, exit, err := newTransport(s.cfg, log, s.opts.MaxFrameBytes, cg)
	if err != nil {
		return nil, nil, nil, fail("failed to start: %v", err)
	}
	s.mu.Lock()
	s.exit = exit
	s.mu.Unlock()
	client := sdk.NewClient(&sdk.Implementation{Name: "warden", Version: s.opts.ClientVersion}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.mu.Lock()
			s.relists++
			s.mu.Unlock()
			go s.onListChanged(gen)
		},
	})
	startCtx, cancel := context.WithTimeout(ctx, s.opts.StartTimeout)
	defer cancel()
	// Closing the manager abandons a start in progress: the half-started
	// process must not outlive Warden waiting for its handshake.
	defer context.AfterFunc(s.life, cancel)()
	cs, err := client.Connect(startCtx, transport, nil)
	if err != nil {
		stop()
		if startCtx.Err() != nil && ctx.Err() == nil {
			return nil, nil, nil, fail("did not finish its handshake within %s", s.opts.StartTimeout)
		}
		return nil, nil, nil, fail("failed to start: %v", err)
	}
	tools, err := listTools(startCtx, cs)
	if err != nil {
		_ = cs.Close()
		stop()
		return nil, nil, nil, fail("started but listing its tools failed: %v", err)
	}
	return cs, stop, tools, nil
}

func (s *server) describe() string {
	if s.cfg.Transport() == TransportHTTP {
		return s.cfg.URL
	}
	return fmt.Sprintf("%q %q", s.cfg.Command, s.cfg.Args)
}

func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var tools []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// watch notices the session ending on its own: the process exited, the
// connection broke, or the server sent something that is not JSON-RPC.
func (s *server) watch(cs *sdk.ClientSession, stop func(), gen int) {
	_ = cs.Wait()
	_ = cs.Close() // reaps the process
	stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen || s.closed {
		return
	}
	s.cs, s.stop = nil, nil
	s.state = StateCrashed
	s.failures++
	s.nextStart = s.opts.Now().Add(backoff(s.failures))
	s.lastErr = "the server broke its connection"
	if exit := s.exit(); exit != "" {
		s.lastErr = exit
	}
	if tail := logTail(s.logPath, 3); tail != "" {
		s.lastErr += "; stderr: " + tail
	}
	if f, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		fmt.Fprintf(f, "--- %s connection ended\n", s.opts.Now().UTC().Format(time.RFC3339))
		f.Close()
	}
}

// dropSession forgets a session that failed under a call, so the next use
// restarts the server. The watcher does the same when the session ends by
// itself; whichever comes first counts the failure.
func (s *server) dropSession(cs *sdk.ClientSession) {
	s.mu.Lock()
	if s.cs != cs {
		s.mu.Unlock()
		return
	}
	stop := s.stop
	s.gen++
	s.cs, s.stop = nil, nil
	s.state = StateCrashed
	s.failures++
	s.nextStart = s.opts.Now().Add(backoff(s.failures))
	s.lastErr = "the connection failed during a call"
	s.mu.Unlock()
	_ = cs.Close()
	stop()
}

// onListChanged re-lists tools after tools/list_changed. Tools that are new
// in that list are remembered as having appeared after the fact, which
// withdraws trust from them until the human trusts again.
func (s *server) onListChanged(gen int) {
	defer func() {
		s.mu.Lock()
		s.relists--
		if s.relisted != nil {
			close(s.relisted)
			s.relisted = nil
		}
		s.mu.Unlock()
	}()
	s.mu.Lock()
	cs := s.cs
	current := s.gen == gen && cs != nil
	s.mu.Unlock()
	if !current {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.CallTimeout)
	defer cancel()
	tools, err := listTools(ctx, cs)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return
	}
	if err != nil {
		s.lastErr = "re-listing tools after tools/list_changed: " + err.Error()
		return
	}
	s.applyTools(tools, true)
}

// applyTools replaces the tool list. Called with mu held.
func (s *server) applyTools(list []*sdk.Tool, viaListChanged bool) {
	next := make(map[string]*toolInfo, len(list))
	order := make([]string, 0, len(list))
	for _, t := range list {
		if t == nil || t.Name == "" {
			continue
		}
		if _, dup := next[t.Name]; dup {
			continue
		}
		if _, had := s.tools[t.Name]; !had && viaListChanged {
			s.appeared[t.Name] = s.opts.Now()
		}
		next[t.Name] = newToolInfo(t)
		order = append(order, t.Name)
	}
	s.tools, s.order = next, order
}

// tool returns the current definition of one tool.
func (s *server) tool(name string) (*toolInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ti, ok := s.tools[name]
	return ti, ok
}

// snapshot returns the tools in server order and when each appeared through
// tools/list_changed (zero if it did not).
func (s *server) snapshot() ([]*toolInfo, map[string]time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*toolInfo, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.tools[n])
	}
	appeared := make(map[string]time.Time, len(s.appeared))
	for k, v := range s.appeared {
		appeared[k] = v
	}
	return out, appeared
}

// callSucceeded resets the failure count: the server works again.
func (s *server) callSucceeded() {
	s.mu.Lock()
	s.failures = 0
	s.lastCall = s.opts.Now()
	s.mu.Unlock()
}

// settleWindow is how long after a call a tools/list_changed it caused is
// waited for. Servers debounce the notification (the go-sdk by 10ms), so it
// arrives after the call's result; without the wait, the tool a call added
// would miss the very next turn.
const settleWindow = 60 * time.Millisecond

// maxSettle bounds the wait for a re-list that does not finish.
const maxSettle = 2 * time.Second

// settle waits until the last call is settleWindow old and no re-list is in
// flight, so the tool list is what the server's last change made it. It
// blocks on the events themselves — the end of a re-list (relisted), the
// end of the window (a timer) — never polls, and gives up after maxSettle.
func (s *server) settle(ctx context.Context) {
	limit := time.NewTimer(maxSettle)
	defer limit.Stop()
	for {
		s.mu.Lock()
		var left time.Duration
		if !s.lastCall.IsZero() {
			left = settleWindow - s.opts.Now().Sub(s.lastCall)
		}
		var relisted chan struct{}
		if s.relists > 0 {
			if s.relisted == nil {
				s.relisted = make(chan struct{})
			}
			relisted = s.relisted
		}
		s.mu.Unlock()
		if relisted == nil && left <= 0 {
			return
		}
		var window <-chan time.Time
		var t *time.Timer
		if left > 0 {
			t = time.NewTimer(left)
			window = t.C
		}
		over := false
		select {
		case <-relisted:
		case <-window:
		case <-limit.C:
			over = true
		case <-ctx.Done():
			over = true
		}
		if t != nil {
			t.Stop()
		}
		if over {
			return
		}
	}
}

// running reports whether the server has a live connection.
func (s *server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cs != nil
}

// halt stops a running server without closing it for good: it may start
// again on the next use that is allowed to start it.
func (s *server) halt(state ServerState, why string) {
	s.mu.Lock()
	cs, stop := s.cs, s.stop
	s.gen++ // the watcher of the old connection must not count a crash
	s.cs, s.stop = nil, nil
	s.state, s.lastErr = state, why
	s.tools, s.order = map[string]*toolInfo{}, nil
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
		stop()
	}
}

func (s *server) close() {
	s.endLife()
	s.mu.Lock()
	s.closed = true
	s.state = StateStopped
	cs, stop := s.cs, s.stop
	s.cs, s.stop = nil, nil
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
		stop()
	}
}
