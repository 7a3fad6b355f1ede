package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

const (
	defaultShellTimeout = 2 * time.Minute
	maxShellTimeout     = 30 * time.Minute
	// shellOutputLimit is the bytes kept per stream: half head, half tail.
	shellOutputLimit = 32 << 10
)

// ShellExecParams are the arguments of shell.exec.
type ShellExecParams struct {
	Command   string            `json:"command" desc:"The command line, run with bash -c."`
	Cwd       string            `json:"cwd,omitempty" desc:"Working directory, relative to the workspace. Default: the workspace."`
	TimeoutMs int               `json:"timeout_ms,omitempty" desc:"Kill the command (and everything it started) after this many milliseconds. Default 120000."`
	Env       map[string]string `json:"env,omitempty" desc:"Extra environment variables."`
	Escalate  bool              `json:"escalate,omitempty" desc:"Ask a human to run the command with the sandbox's full reach: only after it failed because its cage, shaped by what the command was judged to do, refused a write or a connection."`
}

//go:embed shell_exec.md
var shellExecDescription string

// ShellExec is the shell.exec tool: one bash command in the OS cage.
type ShellExec = Typed[ShellExecParams]

// NewShellExec returns shell.exec running its commands in cage.
func NewShellExec(cage *sandbox.Cage) *ShellExec {
	s := shell{cage: cage}
	return NewTyped(Spec[ShellExecParams]{Name: "shell.exec", Description: shellExecDescription, Risk: policy.RiskHigh,
		Check: checkShell, Effects: shellEffects, Invoke: s.invoke, Holds: true})
}

// shell runs commands in its cage.
type shell struct{ cage *sandbox.Cage }

func shellEffects(p ShellExecParams, env Env) ([]policy.Effect, error) {
	cwd, err := resolveDir(env, p.Cwd)
	if err != nil {
		return nil, err
	}
	cmd := commandForPolicy(p.Command, p.Env)
	// The links on disk the command's paths pass through: the classifier
	// resolves its paths through them as the kernel will.
	return []policy.Effect{{Kind: policy.EffectExec, Command: cmd, Cwd: cwd, Links: policy.ShellLinks(cmd, cwd, os.Readlink),
		Escalate: p.Escalate}}, nil
}

func (t shell) invoke(ctx context.Context, p ShellExecParams, env Env) (Result, error) {
	cwd, err := resolveDir(env, p.Cwd)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	timeout := defaultShellTimeout
	if p.TimeoutMs > 0 {
		timeout = time.Duration(p.TimeoutMs) * time.Millisecond
	}
	run, err := runShell(ctx, t.cage, env, p.Command, cwd, quietEnv(p.Command, cwd, p.Env), timeout)
	if err != nil {
		return Result{}, err
	}
	return run.result(), nil
}

// Compiled on first use: every `warden tool` process links this package;
// few of its calls need the expression.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func checkShell(p *ShellExecParams) error {
	if strings.TrimSpace(p.Command) == "" {
		return errors.New("command is empty")
	}
	if p.TimeoutMs < 0 || time.Duration(p.TimeoutMs)*time.Millisecond > maxShellTimeout {
		return fmt.Errorf("timeout_ms must be between 1 and %d", maxShellTimeout.Milliseconds())
	}
	for k := range p.Env {
		if !envName().MatchString(k) {
			return fmt.Errorf("env: %q is not a variable name", k)
		}
	}
	return nil
}

// resolveDir resolves a working directory argument; it must exist.
func resolveDir(env Env, dir string) (string, error) {
	if dir == "" {
		dir = env.Workspace
	}
	cwd, err := ResolvePath(env.Workspace, dir)
	if err != nil {
		return "", fmt.Errorf("cwd: %w", err)
	}
	fi, err := os.Stat(cwd)
	if err != nil {
		return "", fmt.Errorf("cwd %s does not exist", display(env.Workspace, cwd))
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("cwd %s is not a directory", display(env.Workspace, cwd))
	}
	return cwd, nil
}

// commandForPolicy shows the classifier the environment too: `PATH=/x ls`
// is not the read-only `ls` it would otherwise see.
func commandForPolicy(command string, env map[string]string) string {
	if len(env) == 0 {
		return command
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + shellQuote(env[k]) + " ")
	}
	return b.String() + command
}

// quietEnv adds the environment that keeps reading programs from writing
// their caches (GIT_OPTIONAL_LOCKS=0 for git status...), as the classifier
// names it, under what the caller set itself.
func quietEnv(command, cwd string, extra map[string]string) map[string]string {
	env := policy.ClassifyShell(commandForPolicy(command, extra), cwd).Env
	if len(env) == 0 {
		return extra
	}
	out := make(map[string]string, len(extra)+len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shellRun is the outcome of one caged command.
type shellRun struct {
	ExitCode   int                 `json:"exit_code"`
	Signal     string              `json:"signal,omitempty"`
	TimedOut   bool                `json:"timed_out,omitempty"`
	DurationMs int64               `json:"duration_ms"`
	Stdout     string              `json:"stdout"`
	Stderr     string              `json:"stderr"`
	Truncated  bool                `json:"truncated,omitempty"`
	Confined   bool                `json:"confined"`
	Violations []sandbox.Violation `json:"violations,omitempty"`
	Network    []string            `json:"network_refused,omitempty"`
	// Hidden are the hidden paths a failed command named: it needed a
	// secret the cage keeps out.
	Hidden []string `json:"hidden,omitempty"`
	// Cage is the cage the command ran in; Escalate, when the cage's
	// shape came from the engine's claim and refused a write, says so and
	// how to ask a human for more.
	Cage     *policy.Cage `json:"cage,omitempty"`
	Escalate string       `json:"escalate,omitempty"`
	timeout  time.Duration
}

func runShell(ctx context.Context, cage *sandbox.Cage, env Env, command, cwd string, extra map[string]string, timeout time.Duration) (*shellRun, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	prep, err := cage.Prepare(ctx, sandbox.Spec{Workspace: env.Workspace, Policy: env.Sandbox, Dir: cwd, Env: extra, Args: []string{"bash", "-c", command}, Egress: env.Egress, Shape: env.Cage, Hold: env.Proceed})
	if err != nil {
		return nil, fmt.Errorf("shell.exec: %w", err)
	}
	// A bwrap cage is set up while the gate records the call and runs the
	// command on its word (Held); any other command starts only after it.
	if !prep.Held {
		if err := env.Wait(ctx); err != nil {
			prep.Finish()
			return nil, fmt.Errorf("shell.exec: %w", err)
		}
	}
	stdout := newCapture("stdout", shellOutputLimit, env.Output)
	stderr := newCapture("stderr", shellOutputLimit, env.Output)
	start := time.Now()
	err = runAndReap(prep, stdout, stderr)
	r := &shellRun{DurationMs: time.Since(start).Milliseconds(), Confined: prep.Confined, timeout: timeout, Cage: &prep.Shape}
	r.Violations = prep.Finish()
	r.Network = RefusedConnections(env.Egress)
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	r.Truncated = stdout.truncated() || stderr.truncated()
	if err != nil { // a failed command: did it need a hidden path?
		r.Hidden = sandbox.HiddenMentions(prep.Hidden, r.Stdout+r.Stderr)
	}
	r.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	if err != nil {
		r.Escalate = escalateHint(env, r)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.Signal = ws.Signal().String()
		}
	case err != nil && !r.TimedOut:
		return nil, fmt.Errorf("shell.exec: %w", err)
	}
	return r, nil
}

// runAndReap runs the prepared command with its output going to two pipes
// of our own, so Wait returns when the command itself exits, not when the
// last background child lets go of stdout. Then what it left running is
// killed and waited for (prep.End: its process group, and the whole cage):
// nothing of the call runs once the call is over. Output still arriving is
// read for a short grace period.
func runAndReap(prep *sandbox.Prepared, stdout, stderr io.Writer) error {
	cmd := prep.Cmd
	type pipe struct {
		r, w *os.File
		dst  io.Writer
	}
	var pipes []pipe
	for _, dst := range []io.Writer{stdout, stderr} {
		r, w, err := os.Pipe()
		if err != nil {
			for _, p := range pipes {
				p.r.Close()
				p.w.Close()
			}
			return err
		}
		pipes = append(pipes, pipe{r, w, dst})
	}
	cmd.Stdout, cmd.Stderr = pipes[0].w, pipes[1].w
	err := cmd.Start()
	for _, p := range pipes {
		p.w.Close() // the child holds its own copies
	}
	done := make(chan struct{}, len(pipes))
	for _, p := range pipes {
		go func(p pipe) {
			_, _ = io.Copy(p.dst, p.r)
			done <- struct{}{}
		}(p)
	}
	if err == nil {
		err = cmd.Wait()
		prep.End()
	}
	grace := time.After(2 * time.Second)
	for range pipes {
		select {
		case <-done:
		case <-grace:
			// A child that left the group (setsid) still holds a pipe.
			for _, p := range pipes {
				p.r.Close()
			}
			<-done
		}
	}
	for _, p := range pipes {
		p.r.Close()
	}
	return err
}

func (r *shellRun) result() Result {
	var b strings.Builder
	switch {
	case r.TimedOut:
		fmt.Fprintf(&b, "timed out after %d ms; the command and its children were killed\n", r.timeout.Milliseconds())
	case r.Signal != "":
		fmt.Fprintf(&b, "killed by signal %s after %d ms\n", r.Signal, r.DurationMs)
	default:
		fmt.Fprintf(&b, "exit code %d (%d ms)\n", r.ExitCode, r.DurationMs)
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "sandbox violation: %s: %s\n", v.Path, v.Detail)
	}
	for _, n := range r.Network {
		b.WriteString(n + "\n")
	}
	for _, h := range r.Hidden {
		fmt.Fprintf(&b, "sandbox: %s is hidden from the cage (a secret, Warden's own data, or [sandbox] deny_read)\n", h)
	}
	if r.Escalate != "" {
		b.WriteString(r.Escalate + "\n")
	}
	if r.Stdout != "" {
		b.WriteString("stdout:\n" + r.Stdout)
		if !strings.HasSuffix(r.Stdout, "\n") {
			b.WriteByte('\n')
		}
	}
	if r.Stderr != "" {
		b.WriteString("stderr:\n" + r.Stderr)
	}
	res := TextResult(strings.TrimRight(b.String(), "\n"))
	res.IsError = r.TimedOut || r.ExitCode != 0 || r.Signal != "" || len(r.Violations) > 0
	res.Structured, _ = json.Marshal(r)
	return res
}

// refusals are what a process prints when the cage refuses it a write:
// EROFS outside the writable roots, EACCES on a held or covered entry.
var refusals = []string{"Read-only file system", "read-only file system", "Permission denied", "permission denied"}

// escalateHint tells the model, when a command failed in a cage shaped by
// the engine's claim and the failure is the cage's refusal of a write,
// that the engine judged the command narrower than it is, and how to ask
// a human to run it with the sandbox's whole reach ("escalate").
func escalateHint(env Env, r *shellRun) string {
	c := env.Cage
	if !c.Escalates(env.Sandbox) || len(r.Hidden) > 0 {
		return ""
	}
	out := r.Stdout + r.Stderr
	what := ""
	for _, s := range refusals {
		if strings.Contains(out, s) {
			what = "a write was refused (read-only file system or permission denied)"
			break
		}
	}
	if what == "" && !c.Network {
		for _, s := range offline {
			if strings.Contains(out, s) {
				what = "the network was unreachable (the cage has none)"
				break
			}
		}
	}
	if what == "" {
		return ""
	}
	return fmt.Sprintf("sandbox: %s: the command ran in a %s "+
		"because the engine judged it narrower than it is (%s). If it must do that, call shell.exec again with the same "+
		"command and \"escalate\": true: a human is asked to run it with the %s sandbox's full reach "+
		"(under approval \"never\" no human is asked, and escalate is refused).", what, c.Shape.Words(), c.Why, env.Sandbox.Kind)
}

// offline is what a process prints when a cage without network refuses
// it a connection or a name.
var offline = []string{"Network is unreachable", "network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
	"Name or service not known", "getaddrinfo"}
