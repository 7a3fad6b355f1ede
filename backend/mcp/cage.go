package mcp

// Caged stdio servers. A stdio server with sandbox = "cage" (the default
// when the OS cage works) is started through the same sandbox.Cage as a
// shell command: Cage.Prepare with the workspace writable (workspace-write),
// the protected paths held and the hidden paths hidden, its own network
// namespace, the seccomp filter and the limits. Network is admitted only
// through Warden's proxy, so every destination host:port the server names
// is a policy decision.
//
// A server outlives the calls it serves, but a decision needs a session (its
// approval policy, grants, [network] lists) and a call to record against. So
// the server's proxy decides each new destination with the Egress of the
// tool call in flight (the gate makes one per call, as for shell.exec): the
// ask names the host and the call "mcp-tool:<server>/<tool>", "Always allow"
// remembers net:<host>:<port> in that session, headless it is refused, and
// the connection's event lands in that call's session under its call id. A
// start caused by a call (the first use) is part of that call. When several
// calls overlap, the oldest one in flight decides. A connection made while
// none of the server's calls runs (at a start for the tool list, or in the
// background) has no session to be decided in and is refused; the refusal
// is written to the server's log. The proxy variables' NO_PROXY is fixed at
// start: host loopback names listed exactly (--allow-host 127.0.0.1:PORT)
// go through the proxy only if the call that started the server had them.

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/cage/netproxy"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

// ReasonNoCall is the refusal of a caged server's connection made while
// none of its calls was running.
const ReasonNoCall = "no-call-in-flight"

// sandboxMode says how a stdio server runs: caged or not, why (for the
// status), or an error when its config asks for a cage that is not there.
func sandboxMode(cfg ServerConfig, cage *sandbox.Cage) (caged bool, why string, err error) {
	switch {
	case cfg.Transport() != TransportStdio:
		return false, "", nil
	case cfg.Sandbox == SandboxNone:
		return false, `sandbox = "none" in its config`, nil
	case cage == nil:
		if cfg.Sandbox == SandboxCage {
			return false, "", fmt.Errorf(`MCP server %q has sandbox = "cage", but this Warden starts MCP servers without a cage`, cfg.Name)
		}
		return false, "no cage in this process", nil
	}
	if st := cage.Status(); !st.Available {
		if cfg.Sandbox == SandboxCage {
			return false, "", fmt.Errorf(`MCP server %q has sandbox = "cage", but the cage is unavailable: %s`, cfg.Name, st.Reason)
		}
		return false, "the cage is unavailable: " + st.Reason, nil
	}
	if cfg.Sandbox == SandboxCage {
		return true, `sandbox = "cage" in its config`, nil
	}
	return true, "the default for stdio servers", nil
}

// sandboxStatus is the status's Sandbox and SandboxWhy.
func sandboxStatus(cfg ServerConfig, cage *sandbox.Cage) (mode, why string) {
	if cfg.Transport() != TransportStdio {
		return "", ""
	}
	caged, why, err := sandboxMode(cfg, cage)
	switch {
	case err != nil:
		return SandboxCage, "cannot start: " + err.Error()
	case caged:
		return SandboxCage, why
	}
	return SandboxNone, why
}

// cagePolicy is what a caged server runs under: the workspace writable,
// network admitted through the proxy only (each host is still decided).
func cagePolicy() policy.SandboxPolicy {
	return policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}
}

// callRoute hands a caged server's connections to the call in flight. It
// is the Egress of the server's cage for all of its life, across restarts.
type callRoute struct {
	server  string
	logPath string

	mu     sync.Mutex
	calls  []*sandbox.Egress          // in flight, oldest first
	byDest map[string]*sandbox.Egress // who decided a destination last
}

func newCallRoute(server, logPath string) *callRoute {
	return &callRoute{server: server, logPath: logPath, byDest: map[string]*sandbox.Egress{}}
}

// enter registers a call's egress until the returned func runs. A nil
// egress (a call not made through the gate) decides nothing.
func (r *callRoute) enter(eg *sandbox.Egress) func() {
	if eg == nil {
		return func() {}
	}
	r.mu.Lock()
	r.calls = append(r.calls, eg)
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, c := range r.calls {
			if c == eg {
				r.calls = append(r.calls[:i], r.calls[i+1:]...)
				return
			}
		}
	}
}

func (r *callRoute) current() *sandbox.Egress {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		return nil
	}
	return r.calls[0]
}

// egress is the Egress the server's cage is prepared with.
func (r *callRoute) egress() *sandbox.Egress {
	var loopback []string
	if eg := r.current(); eg != nil {
		loopback = eg.HostLoopback
	}
	return &sandbox.Egress{Decider: r, Observe: r.observe, Resolver: r.resolve, HostLoopback: loopback}
}

// Decide implements netproxy.Decider.
func (r *callRoute) Decide(ctx context.Context, d policy.Destination) netproxy.Verdict {
	eg := r.current()
	if eg == nil || eg.Decider == nil {
		v := netproxy.Verdict{Reason: ReasonNoCall,
			Detail: fmt.Sprintf("MCP server %q connected to %s while none of its tool calls was running; a caged server's connections are decided for the call in flight", r.server, d),
			Remedy: fmt.Sprintf(`connect from within a tool call, or set sandbox = "none" for %q`, r.server)}
		r.log("network: %s refused (%s): %s", d, v.Reason, v.Detail)
		return v
	}
	r.mu.Lock()
	r.byDest[d.String()] = eg
	r.mu.Unlock()
	return eg.Decider.Decide(ctx, d)
}

// observe passes the connection's event to the call that decided it.
func (r *callRoute) observe(c netproxy.Conn) {
	key := policy.Destination{Host: c.Host, Port: c.Port}.String()
	r.mu.Lock()
	eg := r.byDest[key]
	r.mu.Unlock()
	if eg != nil && eg.Observe != nil {
		eg.Observe(c)
	}
}

func (r *callRoute) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if eg := r.current(); eg != nil && eg.Resolver != nil {
		return eg.Resolver(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// log appends a line to the server's log, where its stderr goes.
func (r *callRoute) log(format string, a ...any) {
	f, err := os.OpenFile(r.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "--- %s %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, a...))
}

// cageWorkspace is the workspace a caged server's cage is made for: its
// directory (a workspace server) or the directory it runs in, resolved.
func cageWorkspace(cfg ServerConfig) (string, error) {
	dir := cfg.Dir
	if dir == "" {
		dir = cfg.RunDir
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
