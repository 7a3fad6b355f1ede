package sandbox

// The cage's network: it always has its own network namespace (bwrap
// --unshare-net: nothing but its own loopback, no host loopback services, no
// host abstract unix sockets, no route to the metadata service). When the
// sandbox admits network, the only way out is Warden's proxy
// (backend/cage/netproxy), with a forwarder inside the cage listening on the
// cage's own 127.0.0.1:3128 and handing every connection to the host over a
// control socket inherited from Warden (startEgress).
// The forwarder is this very binary (or Config.Forwarder), re-executed with a
// hidden first argument (package netfwd), so nothing needs installing and
// every front end (warden, the desktop app, go test binaries) can serve as
// it. Its first act (package netfwd/early, before the rest of the binary
// initialises) binds the cage's proxy address; for a command that only needs
// the proxy it then hands that listening socket to the host (which accepts
// the cage's clients itself) and execs the command in its place, so no
// forwarder process stays; a command with exposed or detected ports keeps
// the forwarder as its parent. The proxy variables point programs at it; a
// program that ignores them gets no network at all, and names are resolved
// by the proxy, never in the cage.

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/warden-dev/warden/backend/cage/netfwd"
	"github.com/warden-dev/warden/backend/cage/netproxy"
	"github.com/warden-dev/warden/backend/cage/readers"
	"github.com/warden-dev/warden/backend/policy"
)

const (
	// ProxyPort is where the forwarder listens on the cage's loopback.
	ProxyPort = 3128
	// cageForwarder is the forwarder binary inside the cage.
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

// Proxied reports whether a caged command under this sandbox policy reaches
// the network only through Warden's proxy, which decides each destination:
// bwrap (its own network namespace; an outer container shares its network)
// with network admitted. This is policy.Session.NetworkProxied: the engine
// then does not ask for the command as a whole.
func (c *Cage) Proxied(p policy.SandboxPolicy) bool {
	return networkAdmitted(p) && c.Caged(p) && c.cfg.Mode == ModeBwrap
}

// egress holds what startEgress added to a Prepared.
type egress struct {
	args    []string   // bwrap arguments (the forwarder binary), after the private /run
	flags   []string   // the forwarder's flags, without its control descriptor
	files   []*os.File // the cage's end of the control socket, after bwrap's files
	env     map[string]string
	exposer *exposer // nil: no port exposed or detected
	// stop ends the proxy, the exposed ports and the host's hold on the
	// cage's proxy socket (Finish; else when the command's context ends).
	stop context.CancelFunc
}

// prefix is the forwarder's argv before the command, its control socket at
// descriptor fd; nothing when the command needs no forwarder.
func (e egress) prefix(fd int) []string {
	if len(e.files) == 0 {
		return nil
	}
	return append(append([]string{cageForwarder, netfwd.Arg, "-ctl-fd", strconv.Itoa(fd)}, e.flags...), "--")
}

// Exposed lists the cage ports the command's Spec exposed and the host
// loopback addresses they are reached at (network_expose.go).
// Ports detected while the command runs are added as they are found.
func (p *Prepared) Exposed() []Exposed {
	if p.egress.exposer == nil {
		return nil
	}
	return p.egress.exposer.list()
}

// startEgress starts the proxy of one caged command when network is
// admitted, and the host side of its exposed ports. The cage reaches them
// over one unix socket pair made here: the seccomp filter refuses new unix
// sockets inside the cage, so the forwarder makes a socketpair per
// connection and hands one end over this control socket (SCM_RIGHTS).
// Everything lives until ctx ends (the command's context).
func (c *Cage) startEgress(ctx context.Context, spec Spec, p *Prepared) (err error) {
	proxied := shapeOf(spec).Network
	if !proxied && len(spec.Expose) == 0 && !spec.DetectPorts {
		return nil
	}
	self, err := c.cfg.Forwarder, error(nil)
	if self == "" {
		self, err = os.Executable()
	}
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return fmt.Errorf("sandbox: the running binary serves as the cage's network forwarder, and it cannot be found: %w", err)
	}
	if c.cfg.Forwarder != "" {
		// A forwarder found by path (the CLI beside the desktop app) is
		// never one a caged command could have replaced: not in the
		// workspace or a writable root, whatever this call's shape (another
		// call may write them).
		if err := readers.CheckLoad("the cage's network forwarder", self, writableFor(spec, policy.Cage{Shape: policy.CageWorkspaceWrite})); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: network control socket: %w", err)
	}
	hostFile, cageFile := os.NewFile(uintptr(fds[0]), "warden-net-host"), os.NewFile(uintptr(fds[1]), "warden-net-cage")
	hc, err := net.FileConn(hostFile)
	hostFile.Close()
	if err != nil {
		cageFile.Close()
		return fmt.Errorf("sandbox: network control socket: %w", err)
	}
	ctl := hc.(*net.UnixConn)
	ctx, cancel := context.WithCancel(ctx)
	context.AfterFunc(ctx, func() {
		_ = ctl.Close()
		_ = cageFile.Close()
	})
	defer func() {
		if err != nil {
			cancel()
		}
	}()
	var proxyLn *connListener
	var flags []string
	if proxied {
		proxyLn = newConnListener()
		if err := serveProxy(ctx, spec.Egress, proxyLn); err != nil {
			return err
		}
		flags = append(flags, "-proxy", "127.0.0.1:"+strconv.Itoa(ProxyPort))
		var hostLoopback []string
		if spec.Egress != nil {
			hostLoopback = spec.Egress.HostLoopback
		}
		p.egress.env = ProxyEnv(hostLoopback...)
	}
	var x *exposer
	if len(spec.Expose) > 0 || spec.DetectPorts {
		if x, err = startExpose(ctx, spec.Expose, spec.OnExpose); err != nil {
			return err
		}
		for _, e := range x.list() {
			flags = append(flags, "-expose", strconv.Itoa(e.CagePort))
		}
		if spec.DetectPorts {
			flags = append(flags, "-detect")
		}
		p.egress.exposer = x
	}
	go readControl(ctx, ctl, proxyLn, x)
	p.egress.stop = cancel
	p.egress.args = []string{"--ro-bind", self, cageForwarder}
	p.egress.flags = flags
	p.egress.files = []*os.File{cageFile}
	return nil
}

// readControl takes what the forwarder sends: a proxy client ('p'), the
// cage's listening proxy socket itself ('P', when no forwarder process stays
// in the cage: netfwd/early), a waiting offer for an exposed port ('e' +
// port), or a port a cage process started listening on ('l' + port, no
// socket).
func readControl(ctx context.Context, ctl *net.UnixConn, proxy *connListener, x *exposer) {
	buf := make([]byte, 16)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := ctl.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			return
		}
		f := receivedFile(oob[:oobn])
		switch {
		case buf[0] == netfwd.MsgListen:
			if n >= 3 && x != nil {
				x.detected(int(binary.BigEndian.Uint16(buf[1:3])))
			}
		case f == nil:
		case buf[0] == netfwd.MsgProxyListener && proxy != nil:
			if ln, err := net.FileListener(f); err == nil {
				go acceptInto(ctx, ln, proxy)
			}
		case buf[0] == netfwd.MsgProxy && proxy != nil:
			if c, err := net.FileConn(f); err == nil {
				proxy.push(c)
			}
		case buf[0] == netfwd.MsgOffer && n >= 3 && x != nil:
			if c, err := net.FileConn(f); err == nil {
				x.offer(int(binary.BigEndian.Uint16(buf[1:3])), c)
			}
		}
		if f != nil {
			f.Close()
		}
	}
}

// acceptInto hands the clients of the cage's listening proxy socket to the
// proxy until ctx ends. The socket lives in the cage's network namespace:
// only the cage's processes can connect to it.
func acceptInto(ctx context.Context, ln net.Listener, proxy *connListener) {
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	defer ln.Close()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		proxy.push(c)
	}
}

// receivedFile is the one descriptor a control message carries; extra
// descriptors are closed.
func receivedFile(oob []byte) *os.File {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var first *os.File
	for i := range msgs {
		fds, err := syscall.ParseUnixRights(&msgs[i])
		if err != nil {
			continue
		}
		for _, fd := range fds {
			f := os.NewFile(uintptr(fd), "warden-net-conn")
			if first == nil {
				first = f
			} else {
				f.Close()
			}
		}
	}
	return first
}

// connListener is a net.Listener fed with connections by readControl.
type connListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newConnListener() *connListener {
	return &connListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *connListener) push(c net.Conn) {
	select {
	case l.ch <- c:
	case <-l.done:
		c.Close()
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return &net.UnixAddr{Name: "warden-proxy", Net: "unix"} }

// serveProxy serves the proxy of one command on ln until ctx ends.
func serveProxy(ctx context.Context, eg *Egress, ln net.Listener) error {
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
	go func() { _ = px.Serve(ctx, ln) }()
	return nil
}
