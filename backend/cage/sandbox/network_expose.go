package sandbox

// Exposed ports: a monitor's dev server listens inside the cage's own network
// namespace, where nothing of the host reaches. For each port a caller
// exposes, Warden listens on a free port of the host's loopback and carries
// each client into the cage: the in-cage forwarder keeps a few connections
// waiting on the host (handed over the control socket, see startEgress); a
// client arriving on the host port takes one ("go"), and the forwarder
// connects it to 127.0.0.1:PORT inside the cage. With Spec.DetectPorts the
// forwarder also reads the cage's /proc/net/tcp{,6} and reports each port a
// process starts listening on (netfwd/listen.go), which is then exposed the
// same way (Spec.OnExpose is told). Only these ports are reachable, at most
// MaxExposed of them, and only from the host's loopback.

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/cage/netfwd"
)

// Exposed is one cage port reachable from the host.
type Exposed struct {
	CagePort int    `json:"cage_port"`
	HostAddr string `json:"host_addr"` // 127.0.0.1:PORT on the host
	URL      string `json:"url"`       // http://127.0.0.1:PORT/
}

// MaxExposed bounds the ports one command exposes.
const MaxExposed = 8

// exposeWait is how long a host client waits for the cage to offer a
// connection (the forwarder starts with the command).
const exposeWait = 10 * time.Second

type exposer struct {
	ctx context.Context
	// onExpose is told of each port exposed after the start (detected).
	onExpose func(Exposed)

	mu      sync.Mutex
	waiting map[int]chan net.Conn
	allowed map[int]bool
	exposed []Exposed
	lns     []net.Listener
	closed  bool
}

func (x *exposer) queue(p int) chan net.Conn {
	x.mu.Lock()
	defer x.mu.Unlock()
	q, ok := x.waiting[p]
	if !ok {
		q = make(chan net.Conn, 4*netfwd.Waiters)
		x.waiting[p] = q
	}
	return q
}

// startExpose listens for host clients on one loopback port per cage port,
// until ctx ends; the cage's waiting connections arrive through offer.
// Ports detected later are added with add.
func startExpose(ctx context.Context, ports []int, onExpose func(Exposed)) (*exposer, error) {
	if len(ports) > MaxExposed {
		return nil, fmt.Errorf("sandbox: at most %d ports can be exposed, not %d", MaxExposed, len(ports))
	}
	x := &exposer{ctx: ctx, onExpose: onExpose, waiting: map[int]chan net.Conn{}, allowed: map[int]bool{}}
	for _, p := range ports {
		if p < 1 || p > 65535 {
			x.close()
			return nil, fmt.Errorf("sandbox: port %d to expose is not from 1 to 65535", p)
		}
		if _, _, err := x.add(p); err != nil {
			x.close()
			return nil, err
		}
	}
	context.AfterFunc(ctx, x.close)
	return x, nil
}

// add gives cage port p a host loopback port; false when it already has
// one, or when MaxExposed are taken (a command listening on many ports
// does not get many doors into the cage).
func (x *exposer) add(p int) (Exposed, bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed || x.allowed[p] || len(x.exposed) >= MaxExposed {
		return Exposed{}, false, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Exposed{}, false, fmt.Errorf("sandbox: host port for cage port %d: %w", p, err)
	}
	x.allowed[p] = true
	x.lns = append(x.lns, l)
	addr := l.Addr().String()
	e := Exposed{CagePort: p, HostAddr: addr, URL: "http://" + addr + "/"}
	x.exposed = append(x.exposed, e)
	go x.clients(x.ctx, l, p)
	return e, true, nil
}

// detected is a port the forwarder saw a cage process start listening on.
func (x *exposer) detected(p int) {
	if p < 1 || p > 65535 {
		return
	}
	if e, ok, err := x.add(p); err == nil && ok && x.onExpose != nil {
		x.onExpose(e)
	}
}

func (x *exposer) list() []Exposed {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]Exposed(nil), x.exposed...)
}

func (x *exposer) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, l := range x.lns {
		_ = l.Close()
	}
	x.closed = true
	for _, q := range x.waiting {
		for len(q) > 0 {
			(<-q).Close()
		}
	}
}

// offer keeps a waiting cage connection for port p (from readControl).
func (x *exposer) offer(p int, c net.Conn) {
	x.mu.Lock()
	ok := x.allowed[p] && !x.closed
	x.mu.Unlock()
	if !ok {
		c.Close()
		return
	}
	select {
	case x.queue(p) <- c:
	default:
		c.Close() // enough are waiting
	}
}

// clients hands each host client a waiting cage connection.
func (x *exposer) clients(ctx context.Context, l net.Listener, p int) {
	q := x.queue(p)
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			select {
			case up := <-q:
				if _, err := up.Write([]byte("go\n")); err != nil {
					up.Close()
					c.Close()
					return
				}
				netfwd.Pipe(c, up)
			case <-time.After(exposeWait):
				c.Close()
			case <-ctx.Done():
				c.Close()
			}
		}()
	}
}
