package sandbox

// Exposed ports: a monitor's dev server listens inside the cage's own network
// namespace, where nothing of the host reaches. For each port a caller
// exposes, Warden listens on a free port of the host's loopback and carries
// each client into the cage: the in-cage forwarder keeps a few connections to
// a unix socket of the host waiting ("wait PORT"); a client arriving on the
// host port takes one ("go"), and the forwarder connects it to 127.0.0.1:PORT
// inside the cage. Only the exposed ports are reachable this way, and only
// from the host's loopback.

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
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

// startExpose listens for the cage's offers on sockPath and for host
// clients on one loopback port per cage port, until ctx ends.
func startExpose(ctx context.Context, sockPath string, ports []int) ([]Exposed, error) {
	if len(ports) > MaxExposed {
		return nil, fmt.Errorf("sandbox: at most %d ports can be exposed, not %d", MaxExposed, len(ports))
	}
	x := &exposer{waiting: map[int]chan net.Conn{}}
	offers, err := net.Listen("unix", sockPath)
	if err != nil {
		return nil, fmt.Errorf("sandbox: expose socket: %w", err)
	}
	var lns []net.Listener
	closeAll := func() {
		_ = offers.Close()
		for _, l := range lns {
			_ = l.Close()
		}
		x.mu.Lock()
		for _, q := range x.waiting {
			for len(q) > 0 {
				(<-q).Close()
			}
		}
		x.mu.Unlock()
	}
	var out []Exposed
	seen := map[int]bool{}
	for _, p := range ports {
		if p < 1 || p > 65535 {
			closeAll()
			return nil, fmt.Errorf("sandbox: port %d to expose is not from 1 to 65535", p)
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("sandbox: host port for cage port %d: %w", p, err)
		}
		lns = append(lns, l)
		addr := l.Addr().String()
		out = append(out, Exposed{CagePort: p, HostAddr: addr, URL: "http://" + addr + "/"})
		go x.clients(ctx, l, p)
	}
	go x.offers(offers, seen)
	context.AfterFunc(ctx, closeAll)
	return out, nil
}

// offers takes the cage's waiting connections.
func (x *exposer) offers(l net.Listener, allowed map[int]bool) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, err := bufio.NewReader(c).ReadString('\n')
			_ = c.SetReadDeadline(time.Time{})
			f := strings.Fields(line)
			p := 0
			if err == nil && len(f) == 2 && f[0] == "wait" {
				p, _ = strconv.Atoi(f[1])
			}
			if !allowed[p] {
				c.Close()
				return
			}
			select {
			case x.queue(p) <- c:
			default:
				c.Close() // enough are waiting
			}
		}()
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
