package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/mcp/mcpport"
)

// maxLogBytes is where a server log is rotated (once, to <name>.log.1) when
// the server starts.
const maxLogBytes = 1 << 20

// openLog opens the server's log for appending, rotating a large one.
func openLog(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogBytes {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the server log: %w", err)
	}
	return f, nil
}

// caging is how a stdio server is caged: nil starts it unconfined.
type caging struct {
	cage  *sandbox.Cage
	route *callRoute
}

// newTransport builds the SDK transport for cfg and, for stdio, starts the
// process (in the cage when cg is set). stop kills what was started (safe to
// call twice); exit describes how the process ended, or "" while it runs.
func newTransport(cfg ServerConfig, log *os.File, maxFrame int, cg *caging) (t sdk.Transport, stop func(), exit func() string, err error) {
	if cfg.Transport() == TransportHTTP {
		client := &http.Client{Transport: headerTransport{headers: cfg.Headers, base: http.DefaultTransport}}
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: 1},
			func() {}, func() string { return "" }, nil
	}
	p, err := startProcess(cfg, log, cg)
	if err != nil {
		return nil, nil, nil, err
	}
	return &sdk.IOTransport{Reader: p.stdout, Writer: p, MaxLineLength: maxFrame}, p.kill, p.exitStatus, nil
}

// process is a stdio server. Its pipes are plain os.Pipes rather than
// exec's StdoutPipe, so that reaping the process never closes stdout under
// a reader that has not drained the server's last message.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	done   chan struct{}
	mu     sync.Mutex
	status string
}

func startProcess(cfg ServerConfig, log *os.File, cg *caging) (*process, error) {
	cmd, finish, err := serverCommand(cfg, cg)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		finish()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, log
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		finish()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		finish()
		p.mu.Lock()
		p.status = "the process exited"
		if err != nil {
			p.status = "the process ended: " + err.Error()
		}
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// serverCommand is the server's command line, unconfined or through the
// cage; finish releases what the cage prepared once the process has ended.
func serverCommand(cfg ServerConfig, cg *caging) (*exec.Cmd, func(), error) {
	if cg == nil {
		if err := checkUnconfined(cfg); err != nil {
			return nil, nil, err
		}
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Dir = cfg.Dir
		if cmd.Dir == "" {
			cmd.Dir = cfg.RunDir
		}
		cmd.Env = inheritedEnv()
		for _, k := range cfg.EnvNames() {
			cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
		}
		ownProcessGroup(cmd)
		return cmd, func() {}, nil
	}
	ws, err := cageWorkspace(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("the workspace of the cage: %w", err)
	}
	// The cage's proxy and forwarder live as long as the process.
	ctx, cancel := context.WithCancel(context.Background())
	prep, err := cg.cage.Prepare(ctx, sandbox.Spec{Workspace: ws, Policy: cagePolicy(), Dir: ws, Env: cfg.Env,
		Args: append([]string{cfg.Command}, cfg.Args...), Egress: cg.route.egress()})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if !prep.Confined {
		// The mode was decided on the cage's status; never run a server
		// uncaged that was meant to be caged.
		prep.Finish()
		cancel()
		return nil, nil, errors.New("the cage did not confine the server")
	}
	dieWithParent(prep.Cmd.SysProcAttr)
	finish := func() {
		for _, v := range prep.Finish() {
			cg.route.log("cage: %s: %s", v.Path, v.Detail)
		}
		cancel()
	}
	return prep.Cmd, finish, nil
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the session the polite way first: close stdin, give the
// server a moment to exit, then kill its process group.
func (p *process) Close() error {
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(time.Second):
		p.kill()
	}
	return nil
}

func (p *process) kill() {
	// The whole group, even when the leader has exited: a wrapper such as
	// npx may leave its children behind.
	killProcessGroup(p.cmd)
	<-p.done
}

func (p *process) exitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// inheritedVars is what a stdio server gets from Warden's environment,
// the same short list the official TypeScript SDK passes by default.
// Anything else (API keys above all) reaches a server only when its
// config names it under "env".
var inheritedVars = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

func inheritedEnv() []string {
	var env []string
	for _, k := range inheritedVars {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(req)
}

// logTail returns the last lines of a server log, made safe to show: the
// log is written by the server and may hold anything.
func logTail(path string, lines int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 4096
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		_, _ = f.Seek(fi.Size()-window, io.SeekStart)
	}
	data, _ := io.ReadAll(io.LimitReader(f, window))
	var kept []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			kept = append(kept, line)
		}
	}
	if len(kept) > lines {
		kept = kept[len(kept)-lines:]
	}
	return mcpport.EscapeForDisplay(strings.Join(kept, " | "))
}
