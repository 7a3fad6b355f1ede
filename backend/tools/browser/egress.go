package browser

// The browser's network, host by host. A session's Chromium context sends
// every non-loopback request through a proxy of its own (netproxy, on a
// host loopback port); Chromium never proxies loopback, so the pages of
// local and exposed dev servers load directly. Each new destination
// host:port is decided like a caged command's: with the Egress the gate made
// for the browser call in flight ([network] allow/deny, the address rule,
// grants, an ask naming the host under On request, headless refusal), and
// its connection is a network_connection event of that call. A session's
// actions are serialised, so at most one call is in flight; a request a page
// makes after its call ended (a timer, a slow image) has no call to be
// decided in and is refused. The request filter (manager.go) still keeps
// every non-loopback request from leaving when the session has no network.
//
// The navigate target was decided with the call (its origin is the call's
// effect), so the gate's egress does not ask for it a second time; see
// tools.Gate's egress.
//
// Names are decided before they are resolved (netproxy): a host the page
// names that is denied, or whose ask is never answered, reaches no
// resolver; Chromium resolves nothing itself but loopback names
// (chromiumArgs).

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/warden-dev/warden/backend/cage/netproxy"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

// ReasonNoCall is the refusal of a request a page made while none of its
// session's browser calls ran.
const ReasonNoCall = "no-call-in-flight"

// egressRoute is one session's proxy and the call it decides for.
type egressRoute struct {
	call   atomic.Pointer[sandbox.Egress]
	byDest sync.Map // destination -> *sandbox.Egress that decided it
	addr   string   // the proxy's host:port
	stop   context.CancelFunc
	done   chan struct{}
}

// startEgress serves a session's proxy on a fresh loopback port.
func startEgress() (*egressRoute, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the browser's network proxy: %w", err)
	}
	r := &egressRoute{addr: ln.Addr().String(), done: make(chan struct{})}
	p, err := netproxy.New(netproxy.Config{Decider: r, Observe: r.observe, Resolve: r.resolve,
		AllowHint: `--allow-host %[1]s, [network] allow = ["%[1]s"] in config.toml, or "Always allow" when asked`})
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() {
		defer close(r.done)
		_ = p.Serve(ctx, ln)
	}()
	return r, nil
}

// Close stops the proxy and its connections.
func (r *egressRoute) Close() {
	r.stop()
	<-r.done
}

// enter makes eg decide the session's requests until the returned func runs.
func (r *egressRoute) enter(eg *sandbox.Egress) func() {
	r.call.Store(eg)
	return func() { r.call.CompareAndSwap(eg, nil) }
}

// Decide implements netproxy.Decider.
func (r *egressRoute) Decide(ctx context.Context, d policy.Destination) netproxy.Verdict {
	eg := r.call.Load()
	if eg == nil || eg.Decider == nil {
		return netproxy.Verdict{Reason: ReasonNoCall,
			Detail: fmt.Sprintf("a page asked for %s while no browser call was running; the browser's requests are decided for the call in flight", d),
			Remedy: "load it within a browser call (navigate, or wait_for after an action)"}
	}
	r.byDest.Store(d.String(), eg)
	return eg.Decider.Decide(ctx, d)
}

func (r *egressRoute) observe(c netproxy.Conn) {
	eg, _ := r.byDest.Load(policy.Destination{Host: c.Host, Port: c.Port}.String())
	if e, ok := eg.(*sandbox.Egress); ok && e.Observe != nil {
		e.Observe(c)
	}
}

func (r *egressRoute) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if eg := r.call.Load(); eg != nil && eg.Resolver != nil {
		return eg.Resolver(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}
