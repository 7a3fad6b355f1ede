// Package netfwd is the cage's network forwarder: the running binary
// re-executed inside the cage with a hidden first argument (Arg). It imports
// only the standard library, so its init runs before the heavier packages of
// whatever binary links it and the forwarder starts quickly.
package netfwd

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/warden-dev/warden/backend/cage/netfwd/early"
)

// Arg is the hidden first argument that turns any binary linking this
// package into the cage's network forwarder.
const Arg = early.Arg

// The forwarder runs inside the cage as the command's parent: it must answer
// before the program's own main (and before `go test` parses its flags, or a
// test binary would run its tests inside the cage). Every binary that can
// start a cage links this package (through backend/cage/sandbox), so an
// init here covers warden, the desktop app and test binaries alike, with
// nothing to remember in their main or TestMain.
// Package early has, before this, usually bound the proxy address and
// started the command already (early/early.go says why).
func init() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(Main(os.Args[2:], os.Stderr))
	}
}

// Control messages to the host, each carrying one socket (SCM_RIGHTS) over
// the inherited SOCK_SEQPACKET control socket.
const (
	MsgProxy = 'p' // a client of the proxy
	MsgOffer = 'e' // then 2 bytes of port: a connection waiting for an exposed port
	// MsgProxyListener carries the cage's listening proxy socket itself
	// (package early, when no forwarder process stays in the cage).
	MsgProxyListener = early.MsgProxyListener
)

// Main is `<binary> __warden-netfwd -ctl-fd FD [-proxy ADDR] [-expose
// PORT]... [-detect] -- ARGV...`: hand each connection to the cage's ADDR to
// the host proxy, keep connections waiting for each exposed cage port
// (sandbox/network_expose.go) and, with -detect, for each port a process of
// the cage starts listening on (listen.go), run ARGV, and exit as it exits. Sockets reach
// the host as socketpair ends over the control socket FD: the cage's seccomp
// filter refuses new unix sockets, not socketpairs.
func Main(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("warden network forwarder", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ctlFD := fs.Int("ctl-fd", -1, "the inherited control socket to the host")
	proxy := fs.String("proxy", "", "cage loopback address the proxy is offered on")
	var expose []int
	fs.Func("expose", "a cage port the host may reach (repeatable)", func(s string) error {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("port %q", s)
		}
		expose = append(expose, p)
		return nil
	})
	detectPorts := fs.Bool("detect", false, "report ports the command starts listening on to the host (MsgListen)")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 || *ctlFD < 3 {
		fmt.Fprintln(stderr, "warden network forwarder: usage: -ctl-fd FD [-proxy ADDR] [-expose PORT]... [-detect] -- COMMAND...")
		return 125
	}
	argv := fs.Args()
	f := os.NewFile(uintptr(*ctlFD), "warden-net-ctl")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "warden network forwarder: control socket: %v\n", err)
		return 125
	}
	ctl := c.(*net.UnixConn)
	pre := early.Take()
	if *proxy != "" {
		ln, err := proxyListener(*proxy, pre.ProxyFD)
		if err != nil {
			fmt.Fprintf(stderr, "warden network forwarder: listen %s: %v\n", *proxy, err)
			return 125
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go forward(c, ctl)
			}
		}()
	}
	for _, p := range expose {
		for range Waiters {
			go offer(ctl, p)
		}
	}
	if *detectPorts {
		skip := append([]int(nil), expose...)
		if _, ps, err := net.SplitHostPort(*proxy); err == nil {
			if n, err := strconv.Atoi(ps); err == nil {
				skip = append(skip, n)
			}
		}
		go detect(ctl, skip)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	proc, err := start(argv, pre.Pid)
	if err != nil {
		fmt.Fprintf(stderr, "warden network forwarder: %v\n", err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = proc.Signal(s)
		}
	}()
	st, err := proc.Wait()
	signal.Stop(sigs)
	if err != nil {
		fmt.Fprintf(stderr, "warden network forwarder: %v\n", err)
		return 125
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		// Die the same way, so the caller sees the signal, not a code.
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// proxyListener is the cage's proxy address: the socket package early bound
// (fd >= 0), else a new one.
func proxyListener(addr string, fd int) (net.Listener, error) {
	if fd < 0 {
		return net.Listen("tcp", addr)
	}
	f := os.NewFile(uintptr(fd), "warden-proxy-listener")
	defer f.Close()
	return net.FileListener(f)
}

// start is the command package early started (pid > 0), or starts it now.
func start(argv []string, pid int) (*os.Process, error) {
	if pid > 0 {
		return os.FindProcess(pid)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Process, nil
}

func forward(c net.Conn, ctl *net.UnixConn) {
	defer c.Close()
	u, err := handOver(ctl, []byte{MsgProxy})
	if err != nil {
		return
	}
	Pipe(c, u)
}

// handOver makes a socketpair, sends one end to the host with msg and
// returns the other as a connection.
func handOver(ctl *net.UnixConn, msg []byte) (net.Conn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	_, _, err = ctl.WriteMsgUnix(msg, syscall.UnixRights(fds[1]), nil)
	syscall.Close(fds[1])
	f := os.NewFile(uintptr(fds[0]), "warden-net-conn")
	defer f.Close()
	if err != nil {
		return nil, err
	}
	return net.FileConn(f)
}

// Pipe copies both ways, half-closing each direction as it ends, then
// closes both.
func Pipe(a, b net.Conn) {
	defer a.Close()
	defer b.Close()
	done := make(chan struct{})
	go func() {
		_, _ = copyBig(b, a)
		halfClose(b)
		close(done)
	}()
	_, _ = copyBig(a, b)
	halfClose(a)
	<-done
}

func halfClose(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// Waiters is how many connections per exposed port wait on the host at
// once: a browser opens several to one dev server.
const Waiters = 4

// offer keeps a connection to the host waiting for a client of cage port p:
// the host writes "go" when one arrives, and the waiting connection becomes
// that client's connection to 127.0.0.1:p in the cage. It stops when the
// host is gone (the cage is ending).
func offer(ctl *net.UnixConn, p int) {
	for {
		h, err := handOver(ctl, []byte{MsgOffer, byte(p >> 8), byte(p)})
		if err != nil {
			return
		}
		br := bufio.NewReader(h)
		line, err := br.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "go" {
			// The host let the connection go without a client: the port
			// is not (or no longer) exposed, enough connections wait for
			// it, or the cage is ending. None of these changes while this
			// goroutine waits, and a client takes a connection another
			// goroutine of the port then replaces, so stop (the old code
			// offered again every 50 ms, a poll that never ended for a
			// refused port).
			h.Close()
			return
		}
		go func() {
			c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				// A server may listen on the IPv6 loopback only.
				if c, err = net.Dial("tcp", net.JoinHostPort("::1", strconv.Itoa(p))); err != nil {
					h.Close()
					return
				}
			}
			Pipe(c, &bufferedConn{Conn: h, r: br})
		}()
	}
}

// bufferedConn reads what its reader buffered first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// CloseWrite half-closes the connection underneath.
func (b *bufferedConn) CloseWrite() error {
	if cw, ok := b.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// copyBig copies through a 256 KiB buffer: fewer system calls per megabyte
// than io.Copy's 32 KiB on a 10 MB download.
func copyBig(dst io.Writer, src io.Reader) (int64, error) {
	return io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, make([]byte, 256<<10))
}
