package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

// maxOutput is the most of stdout a program may print; more is a failure.
const maxOutput = 64 << 10

// maxReason is the longest reason kept from a program's answer or stderr.
const maxReason = 500

// Runner runs programs in the cage.
type Runner struct {
	Cage *sandbox.Cage
}

// Invocation is one run of a program.
type Invocation struct {
	// Who names the program in failures: "answerer `corp-check`".
	Who       string
	Workspace string
	Program   Program
	Stdin     []byte
	Timeout   time.Duration
	// Egress lets the program reach the network through the cage's proxy
	// (the organisation allowed it); nil: no network.
	Egress *sandbox.Egress
}

// Failure is why a run gave no usable answer, in words; the gate turns
// it into a denial.
type Failure struct{ Words string }

func (f *Failure) Error() string { return f.Words }

func failf(format string, a ...any) error { return &Failure{Words: fmt.Sprintf(format, a...)} }

// Run runs inv and returns its stdout, or a *Failure: a timeout, a
// non-zero exit, a signal, too much output, or a cage that cannot start.
func (r *Runner) Run(ctx context.Context, inv Invocation) ([]byte, error) {
	if r == nil || r.Cage == nil {
		return nil, failf("%s did not run: no cage is set up in this process", inv.Who)
	}
	st := r.Cage.Status()
	if !st.Available {
		return nil, failf("%s did not run: it runs only in the OS cage, which is not available here (%s)", inv.Who, st.Reason)
	}
	spec := sandbox.Spec{Workspace: inv.Workspace, Policy: policy.SandboxPolicy{Kind: policy.ReadOnly, NetworkAccess: inv.Egress != nil},
		Args: inv.Program.Run, Files: inv.Program.Files, Egress: inv.Egress}
	if st.Mechanism == string(sandbox.ModeContainer) {
		// The outer container is the boundary and there is no cage to
		// place copies in: the program runs from its own path.
		spec.Files = nil
		spec.Args = append([]string{inv.Program.Paths[0]}, inv.Program.Argv[1:]...)
	}
	ctx, cancel := context.WithTimeout(ctx, inv.Timeout)
	defer cancel()
	p, err := r.Cage.Prepare(ctx, spec)
	if err != nil {
		return nil, failf("%s did not start: %v", inv.Who, err)
	}
	defer p.Finish()
	var stdout limited
	stdout.max = maxOutput
	var stderr limited
	stderr.max = 8 << 10
	p.Cmd.Stdin = bytes.NewReader(inv.Stdin)
	p.Cmd.Stdout, p.Cmd.Stderr = &stdout, &stderr
	err = p.Cmd.Run()
	p.End()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, failf("%s timed out after %s", inv.Who, Duration(inv.Timeout))
	}
	if ctx.Err() != nil {
		return nil, failf("%s was stopped: %v", inv.Who, ctx.Err())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return nil, failf("%s was killed by signal %s%s", inv.Who, ws.Signal(), tail(stderr.Bytes()))
		}
		if code := ee.ExitCode(); p.Confined && code > 128 && code <= 128+64 {
			// bwrap reports its child's death by signal n as status 128+n.
			return nil, failf("%s was killed by signal %s (status %d)%s", inv.Who, syscall.Signal(code-128), code, tail(stderr.Bytes()))
		}
		return nil, failf("%s exited with status %d%s", inv.Who, ee.ExitCode(), tail(stderr.Bytes()))
	case err != nil:
		return nil, failf("%s did not start: %v", inv.Who, err)
	}
	if stdout.over {
		return nil, failf("%s printed more than %d KiB", inv.Who, maxOutput>>10)
	}
	return stdout.Bytes(), nil
}

// limited keeps the first max bytes written and notes the rest. It is no
// io.ReaderFrom (an embedded bytes.Buffer would be, and io.Copy would
// bypass the limit).
type limited struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(b []byte) (int, error) {
	if room := l.max - l.buf.Len(); room < len(b) {
		l.over = true
		if room > 0 {
			l.buf.Write(b[:room])
		}
		return len(b), nil
	}
	return l.buf.Write(b)
}

func (l *limited) Bytes() []byte { return l.buf.Bytes() }

var _ io.Writer = (*limited)(nil)

// tail is ": <the last line of stderr>", or "".
func tail(stderr []byte) string {
	s := strings.TrimSpace(string(stderr))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = Clean(s)
	if s == "" {
		return ""
	}
	return ": " + s
}

// Clean makes a program's text fit for a reason: control and format
// characters (escapes, bidi overrides, zero-width) become spaces, runs of
// space one, and it is cut to 500 characters.
func Clean(s string) string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) || r == unicode.ReplacementChar {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		if n == maxReason {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		space = false
		n++
	}
	return strings.TrimSpace(b.String())
}

// Duration says d the way a person does: "10 s", "500 ms", "2 min",
// "1 min 30 s".
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		if d%time.Second == 0 {
			return fmt.Sprintf("%d s", int(d.Seconds()))
		}
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	m, s := int(d/time.Minute), int((d%time.Minute)/time.Second)
	if s == 0 {
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%d min %d s", m, s)
}
