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
	"time"
)

// Arg is the hidden first argument that turns any binary linking this
// package into the cage's network forwarder.
const Arg = "__warden-netfwd"

// The forwarder runs inside the cage as the command's parent: it must answer
// before the program's own main (and before `go test` parses its flags, or a
// test binary would run its tests inside the cage). Every binary that can
// start a cage links this package (through backend/tools/sandbox), so an
// init here covers warden, the desktop app and test binaries alike, with
// nothing to remember in their main or TestMain.
func init() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(Main(os.Args[2:], os.Stderr))
	}
}

// Main is `<binary> __warden-netfwd [-proxy ADDR -proxy-socket
// SOCK] [-expose PORT]... [-expose-socket SOCK] -- ARGV...`: carry each
// connection to the cage's ADDR to the host proxy's SOCK, offer each exposed
// cage port to the host (sandbox/network_expose.go), run ARGV, and exit as it exits.
func Main(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("warden network forwarder", flag.ContinueOnError)
	fs.SetOutput(stderr)
	proxy := fs.String("proxy", "", "cage loopback address the proxy is offered on")
	proxySock := fs.String("proxy-socket", "", "the host proxy's unix socket")
	var expose []int
	fs.Func("expose", "a cage port the host may reach (repeatable)", func(s string) error {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("port %q", s)
		}
		expose = append(expose, p)
		return nil
	})
	exposeSock := fs.String("expose-socket", "", "the host's unix socket for exposed ports")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "warden network forwarder: usage: [-proxy ADDR -proxy-socket SOCK] [-expose PORT -expose-socket SOCK] -- COMMAND...")
		return 125
	}
	argv := fs.Args()
	if *proxy != "" {
		ln, err := net.Listen("tcp", *proxy)
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
				go forward(c, *proxySock)
			}
		}()
	}
	for _, p := range expose {
		for range Waiters {
			go offer(*exposeSock, p)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "warden network forwarder: %v\n", err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	signal.Stop(sigs)
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// Die the same way, so the caller sees the signal, not a code.
			signal.Reset(ws.Signal())
			_ = syscall.Kill(os.Getpid(), ws.Signal())
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "warden network forwarder: %v\n", err)
	return 125
}

func forward(c net.Conn, sock string) {
	defer c.Close()
	u, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	Pipe(c, u)
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
// host socket is gone (the cage is ending).
func offer(sock string, p int) {
	fails := 0
	for {
		h, err := net.Dial("unix", sock)
		if err != nil {
			if fails++; fails > 50 {
				return
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		fails = 0
		if _, err := fmt.Fprintf(h, "wait %d\n", p); err != nil {
			h.Close()
			continue
		}
		br := bufio.NewReader(h)
		line, err := br.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "go" {
			h.Close()
			continue
		}
		go func() {
			c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				h.Close()
				return
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
