package sandbox

// The cage's network: it always has its own network namespace (bwrap
// --unshare-net: nothing but its own loopback, no host loopback services, no
// host abstract unix sockets, no route to the metadata service). When the
// sandbox admits network, the only way out is Warden's proxy
// (backend/tools/netproxy), served on a unix socket in a private host folder
// that is bound into the cage, with a forwarder inside the cage listening on
// the cage's own 127.0.0.1:3128 and carrying every connection to that socket.
// The forwarder is this very binary, re-executed with a hidden first argument
// (package netfwd), so nothing needs installing and every front end
// (warden, the desktop app, go test binaries) can serve as it. The proxy
// variables point programs at it; a program that ignores them gets no
// network at all, and names are resolved by the proxy, never in the cage.

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools/netproxy"
	"github.com/warden-dev/warden/backend/tools/sandbox/netfwd"
)

const (
	// ProxyPort is where the forwarder listens on the cage's loopback.
	ProxyPort = 3128
	// cageNetDir holds the proxy socket inside the cage; cageForwarder is
	// the forwarder binary inside the cage.
	cageNetDir    = "/run/warden-net"
	cageForwarder = "/run/warden-fwd"
)

// Egress routes a caged command's connections: every destination is decided
// by Decider, every connection reported to Observe (nil drops them).
type Egress struct {
	Decider  netproxy.Decider
	Observe  func(netproxy.Conn)
	Resolver func(ctx context.Context, host string) ([]netip.Addr, error)
	// HostLoopback are loopback names the user listed exactly (an
	// --allow-host 127.0.0.1:4873): they mean the host's service, so they
	// leave NO_PROXY and go through the proxy like any other host.
	HostLoopback []string
}

// noEgress refuses every destination: the decider of a caller that does not
// route network decisions anywhere.
var noEgress = netproxy.DeciderFunc(func(context.Context, policy.Destination) netproxy.Verdict {
	return netproxy.Verdict{Reason: "no-decider", Detail: "this command was started without a network decision path",
		Remedy: "run it through the gate (shell.exec or monitor.start)"}
})

// ProxyEnv is the environment that points a caged program at the proxy.
// Loopback stays inside the cage (a test server the command starts itself
// must not be sent to the host), except the names in hostLoopback.
func ProxyEnv(hostLoopback ...string) map[string]string {
	u := "http://127.0.0.1:" + strconv.Itoa(ProxyPort)
	var keep []string
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		if !slices.Contains(hostLoopback, h) {
			keep = append(keep, h)
		}
	}
	no := strings.Join(keep, ",")
	env := map[string]string{}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env[k] = u
		env[lower(k)] = u
	}
	env["NO_PROXY"], env["no_proxy"] = no, no
	// npm reads these before the generic variables.
	env["npm_config_proxy"], env["npm_config_https_proxy"], env["npm_config_noproxy"] = u, u, no
	return env
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// networkAdmitted reports whether the sandbox lets this command reach the
// network (through the proxy).
func networkAdmitted(p policy.SandboxPolicy) bool {
	return p.Kind == policy.WorkspaceWrite && p.NetworkAccess
}

// egress holds what startEgress added to a Prepared.
type egress struct {
	args    []string // bwrap arguments (binds), after the private /run
	prefix  []string // the forwarder's argv before the command
	exposed []Exposed
}

// Exposed lists the cage ports the command's Spec exposed and the host
// loopback addresses they are reached at (network_expose.go).
func (p *Prepared) Exposed() []Exposed { return append([]Exposed(nil), p.egress.exposed...) }

// startEgress starts the proxy of one caged command when network is
// admitted, and the host side of its exposed ports. Both live until ctx ends
// (the command's context); then the socket folder is removed.
func (c *Cage) startEgress(ctx context.Context, spec Spec, p *Prepared) (err error) {
	proxied := networkAdmitted(spec.Policy)
	if !proxied && len(spec.Expose) == 0 {
		return nil
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return fmt.Errorf("sandbox: the running binary serves as the cage's network forwarder, and it cannot be found: %w", err)
	}
	dir, err := os.MkdirTemp("", "warden-net-")
	if err != nil {
		return fmt.Errorf("sandbox: network folder: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	context.AfterFunc(ctx, func() { _ = os.RemoveAll(dir) })
	defer func() {
		if err != nil {
			cancel()
		}
	}()
	prefix := []string{cageForwarder, netfwd.Arg}
	if proxied {
		if err := serveProxy(ctx, spec.Egress, filepath.Join(dir, "proxy.sock")); err != nil {
			return err
		}
		prefix = append(prefix, "-proxy", "127.0.0.1:"+strconv.Itoa(ProxyPort), "-proxy-socket", filepath.Join(cageNetDir, "proxy.sock"))
		if p.env == nil {
			p.env = map[string]string{}
		}
		var hostLoopback []string
		if spec.Egress != nil {
			hostLoopback = spec.Egress.HostLoopback
		}
		for k, v := range ProxyEnv(hostLoopback...) {
			p.env[k] = v
		}
	}
	if len(spec.Expose) > 0 {
		ex, err := startExpose(ctx, filepath.Join(dir, "expose.sock"), spec.Expose)
		if err != nil {
			return err
		}
		for _, e := range ex {
			prefix = append(prefix, "-expose", strconv.Itoa(e.CagePort))
		}
		prefix = append(prefix, "-expose-socket", filepath.Join(cageNetDir, "expose.sock"))
		p.egress.exposed = ex
	}
	p.egress.args = []string{"--ro-bind", dir, cageNetDir, "--ro-bind", self, cageForwarder}
	p.egress.prefix = append(prefix, "--")
	return nil
}

// serveProxy serves the proxy of one command on a unix socket until ctx ends.
func serveProxy(ctx context.Context, eg *Egress, sock string) error {
	if eg == nil {
		eg = &Egress{Decider: noEgress}
	}
	dec := eg.Decider
	if dec == nil {
		dec = noEgress
	}
	cfg := netproxy.Config{Decider: dec, Observe: eg.Observe}
	if eg.Resolver != nil {
		cfg.Resolve = eg.Resolver
	}
	px, err := netproxy.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("sandbox: proxy socket: %w", err)
	}
	go func() { _ = px.Serve(ctx, ln) }()
	return nil
}
