package netfwd

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestOffersEndWhenTheHostRefuses runs this test binary as the forwarder
// with one exposed port and plays the host on the control socket. A port
// the host refuses (it closes each waiting connection without a client)
// gets its Waiters offers and no more: the forwarder takes the close as the
// answer, never offers again on a timer. A port the host serves gets one
// more offer for each client it took (the connection is replaced) — and
// that client's bytes reach the port.
func TestOffersEndWhenTheHostRefuses(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		served int // offers the host answers with a client ("go"); the rest it closes
		want   int // offers the host sees in all
	}{
		{"refused port", 0, Waiters},
		{"one client, then refused", 1, Waiters + 1},
		{"two clients, then refused", 2, Waiters + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The cage's port: a listener on the host's loopback (this test
			// runs outside any cage) that echoes one line.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go func() {
						defer c.Close()
						line, _ := bufio.NewReader(c).ReadString('\n')
						_, _ = io.WriteString(c, "echo "+line)
					}()
				}
			}()
			port := ln.Addr().(*net.TCPAddr).Port

			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			host, cage := os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "cage")
			hc, err := net.FileConn(host)
			host.Close()
			if err != nil {
				t.Fatal(err)
			}
			defer hc.Close()
			ctl := hc.(*net.UnixConn)

			// The command runs until its stdin closes: the test decides
			// when the forwarder ends.
			stdin, stdinW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(self, Arg, "-ctl-fd", "3", "-expose", strconv.Itoa(port), "--", "bash", "-c", "cat >/dev/null")
			cmd.ExtraFiles = []*os.File{cage}
			cmd.Stdin = stdin
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cage.Close()
			stdin.Close()
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

			offers := make(chan net.Conn)
			go func() {
				defer close(offers)
				buf, oob := make([]byte, 16), make([]byte, syscall.CmsgSpace(4))
				for {
					n, oobn, _, _, err := ctl.ReadMsgUnix(buf, oob)
					if err != nil || n == 0 {
						return
					}
					msgs, _ := syscall.ParseSocketControlMessage(oob[:oobn])
					for i := range msgs {
						got, _ := syscall.ParseUnixRights(&msgs[i])
						for _, fd := range got {
							f := os.NewFile(uintptr(fd), "offer")
							c, err := net.FileConn(f)
							f.Close()
							if err != nil {
								continue
							}
							if buf[0] != MsgOffer || n < 3 || int(buf[1])<<8|int(buf[2]) != port {
								c.Close()
								t.Errorf("message %q with a socket, want offers for port %d", buf[:n], port)
								continue
							}
							offers <- c
						}
					}
				}
			}()

			seen, served := 0, 0
			deadline := time.After(20 * time.Second)
			var settle <-chan time.Time // after the expected count: room for one more, which must not come
		loop:
			for {
				select {
				case c, ok := <-offers:
					if !ok {
						break loop
					}
					seen++
					if served < tc.served {
						served++
						if _, err := io.WriteString(c, "go\n"); err != nil {
							t.Fatal(err)
						}
						msg := fmt.Sprintf("client %d\n", served)
						if _, err := io.WriteString(c, msg); err != nil {
							t.Fatal(err)
						}
						if got, _ := bufio.NewReader(c).ReadString('\n'); got != "echo "+msg {
							t.Fatalf("the client got %q through the offer, want %q", got, "echo "+msg)
						}
						c.Close()
					} else {
						c.Close() // refused
					}
					if seen == tc.want {
						settle = time.After(500 * time.Millisecond)
					}
				case <-settle:
					stdinW.Close() // the command ends, then the forwarder
					settle = nil
				case <-deadline:
					t.Fatalf("the forwarder did not end; %d offers so far", seen)
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("forwarder: %v", err)
			}
			if seen != tc.want {
				t.Fatalf("the host saw %d offers, want %d (Waiters %d, %d served): a refused offer was made again", seen, tc.want, Waiters, tc.served)
			}
		})
	}
}
