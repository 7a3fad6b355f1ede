package sandbox

// Exposed ports: a monitor's dev server listens inside the cage's own network
// namespace, where nothing of the host reaches. For each port a caller
// exposes, Warden listens on a free port of the host's loopback and carries
// each client into the cage: the in-cage forwarder keeps a few connections
// waiting on the host (handed over the control socket, see startEgress); a
// client arriving on the host port takes one ("go"), and the forwarder
// connects it to 127.0.0.1:PORT inside the cage. Only the exposed ports are reachable this way, and only
// from the host's loopback.

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/tools/sandbox/netfwd"
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
	mu      sync.Mutex
	waiting map[int]chan net.Conn
	allowed map[int]bool
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
func startExpose(ctx context.Context, ports []int) ([]Exposed, *exposer, error) {
	if len(ports) > MaxExposed {
		return nil, nil, fmt.Errorf("sandbox: at most %d ports can be exposed, not %d", MaxExposed, len(ports))
	}
	x := &exposer{waiting: map[int]chan net.Conn{}, allowed: map[int]bool{}}
	var lns []net.Listener
	closeAll := func() {
		for _, l := range lns {
			_ = l.Close()
		}
		x.mu.Lock()
		x.closed = true
		for _, q := range x.waiting {
			for len(q) > 0 {
				(<-q).Close()
			}
		}
		x.mu.Unlock()
	}
	var out []Exposed
	for _, p := range ports {
		if p < 1 || p > 65535 {
			closeAll()
			return nil, nil, fmt.Errorf("sandbox: port %d to expose is not from 1 to 65535", p)
		}
		if x.allowed[p] {
			continue
		}
		x.allowed[p] = true
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("sandbox: host port for cage port %d: %w", p, err)
		}
		lns = append(lns, l)
		addr := l.Addr().String()
		out = append(out, Exposed{CagePort: p, HostAddr: addr, URL: "http://" + addr + "/"})
		go x.clients(ctx, l, p)
	}
	context.AfterFunc(ctx, closeAll)
	return out, x, nil
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
