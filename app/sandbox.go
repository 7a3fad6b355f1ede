package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// SandboxStatus says whether the OS sandbox works here, and if not, why.
type SandboxStatus struct {
	// Available is true when a trial run inside the sandbox succeeded.
	Available bool `json:"available"`
	// Mechanism names the sandbox, e.g. "bubblewrap".
	Mechanism string `json:"mechanism"`
	// Version is what the sandbox binary reports about itself, if it ran.
	Version string `json:"version"`
	// Detail is the reason when unavailable, or what was checked when available.
	Detail string `json:"detail"`
}

// DefaultProbeTimeout bounds each bwrap run of a probe.
const DefaultProbeTimeout = 5 * time.Second

// BwrapProbe checks that bubblewrap can create a user namespace with a
// read-only view of the root file system, which every sandboxed tool needs.
type BwrapProbe struct {
	// Path is the bwrap binary; empty means "bwrap" on PATH.
	Path string
	// Timeout bounds each run; zero means DefaultProbeTimeout.
	Timeout time.Duration
}

// Probe runs `bwrap --version` and then `bwrap --ro-bind / / --unshare-user true`.
func (p BwrapProbe) Probe(ctx context.Context) SandboxStatus {
	st := SandboxStatus{Mechanism: "bubblewrap"}
	name := p.Path
	if name == "" {
		name = "bwrap"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		st.Detail = fmt.Sprintf("%s not found: install the bubblewrap package", name)
		return st
	}
	out, err := p.run(ctx, bin, "--version")
	if err != nil {
		st.Detail = fmt.Sprintf("%s --version failed: %v", bin, err)
		return st
	}
	st.Version = out
	if _, err := p.run(ctx, bin, "--ro-bind", "/", "/", "--unshare-user", "true"); err != nil {
		st.Detail = fmt.Sprintf("trial run failed: %v", err)
		return st
	}
	st.Available = true
	st.Detail = "user namespace with a read-only root works"
	return st
}

// run executes bin with args and returns its trimmed stdout. A failure
// carries the first line of stderr, which is where bwrap says why.
func (p BwrapProbe) run(ctx context.Context, bin string, args ...string) (string, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
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
		msg := firstLine(stderr.String())
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) && msg != "" {
			return "", fmt.Errorf("%s (%w)", msg, err)
		}
		return "", err
	}
	return firstLine(stdout.String()), nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
