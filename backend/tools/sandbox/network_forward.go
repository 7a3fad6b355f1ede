package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// forwarderArg is the hidden first argument that turns any binary linking
// this package into the cage's network forwarder.
const forwarderArg = "__warden-netfwd"

// The forwarder runs inside the cage as the command's parent: it must answer
// before the program's own main (and before `go test` parses its flags, or a
// test binary would run its tests inside the cage). Every binary that can
// start a cage links this package, so an init here covers warden, the
// desktop app and test binaries alike, with nothing to remember in their
// main or TestMain.
func init() {
	if len(os.Args) > 1 && os.Args[1] == forwarderArg {
		os.Exit(forwarderMain(os.Args[2:], os.Stderr))
	}
}

// forwarderMain is `<binary> __warden-netfwd LISTEN SOCKET -- ARGV...`:
// listen on LISTEN (the cage's loopback), carry each connection to the
// proxy's unix SOCKET, run ARGV, and exit as it exits.
func forwarderMain(args []string, stderr io.Writer) int {
	if len(args) < 4 || args[2] != "--" {
		fmt.Fprintln(stderr, "warden network forwarder: usage: LISTEN SOCKET -- COMMAND...")
		return 125
	}
	listen, sock, argv := args[0], args[1], args[3:]
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fmt.Fprintf(stderr, "warden network forwarder: listen %s: %v\n", listen, err)
		return 125
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go forward(c, sock)
		}
	}()
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
	err = cmd.Wait()
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
	defer u.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(u, c)
		_ = u.(*net.UnixConn).CloseWrite()
		close(done)
	}()
	_, _ = io.Copy(c, u)
	_ = c.(*net.TCPConn).CloseWrite()
	<-done
}
