package netfwd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestForwarderOutsideTheCage runs this test binary as the forwarder on the
// host, with a control socket of its own: the command holds neither the
// control socket nor the proxy's listening socket, its connection to the
// proxy address reaches the host (as the listening socket itself, or as one
// connection from a forwarder process), and the exit status passes through.
// The cases cover each way the command starts: exec'd in place by package
// early (proxy only), started as a child by early (ports detected), and
// started by Main (a relative PATH entry, a missing program).
func TestForwarderOutsideTheCage(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	// Ignored signals are inherited across exec, and the Go runtime keeps
	// an inherited SIG_IGN for some signals (glibc's 32/33 among them):
	// under some parents (make in a background job) this test process
	// starts with one ignored. The forwarder must add none to it.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	inherited := "SigIgn:\t0000000000000000\n"
	for _, line := range strings.SplitAfter(string(status), "\n") {
		if strings.HasPrefix(line, "SigIgn:") {
			inherited = line
		}
	}
	// Sockets the shell holds, before it makes its own connection: none.
	script := `echo "pid $$ ppid $PPID"; echo "sockets: $(ls -l /proc/$$/fd | grep -c socket:)"; exec 5<>/dev/tcp/127.0.0.1/$PORT && echo ping >&5 && read x <&5 && echo "got $x"; exit 7`
	for _, tc := range []struct {
		name     string
		flags    []string
		argv     []string
		path     string
		wantCode int
		wantOut  []string
		inPlace  bool // the command is the forwarder process itself
	}{
		{"exec'd in place, found on PATH", nil, []string{"bash", "-c", script}, path, 7, []string{"sockets: 0\n", "got pong"}, true},
		{"exec'd in place, absolute path", nil, []string{"/bin/bash", "-c", script}, path, 7, []string{"sockets: 0\n", "got pong"}, true},
		{"early child of the forwarder (ports detected)", []string{"-detect"}, []string{"bash", "-c", script}, path, 7, []string{"sockets: 0\n", "got pong"}, false},
		{"started by Main (relative PATH entry)", nil, []string{"bash", "-c", script}, "relative-dir:" + path, 7, []string{"sockets: 0\n", "got pong"}, false},
		{"no signal blocked or ignored, exec'd in place", nil, []string{"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"}, path, 0,
			[]string{"SigBlk:\t0000000000000000\n", inherited}, true},
		{"no signal blocked or ignored, early child", []string{"-detect"}, []string{"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"}, path, 0,
			[]string{"SigBlk:\t0000000000000000\n", inherited}, false},
		{"missing program", nil, []string{"no-such-program-warden"}, path, 127, []string{"executable file not found"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			host, cage := os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "cage")
			defer cage.Close()
			hc, err := net.FileConn(host)
			host.Close()
			if err != nil {
				t.Fatal(err)
			}
			defer hc.Close()
			ctl := hc.(*net.UnixConn)
			go answerPings(ctl)
			args := append([]string{Arg, "-ctl-fd", "3", "-proxy", fmt.Sprintf("127.0.0.1:%d", port)}, tc.flags...)
			cmd := exec.Command(self, append(append(args, "--"), tc.argv...)...)
			cmd.ExtraFiles = []*os.File{cage}
			cmd.Env = append(os.Environ(), "PATH="+tc.path, fmt.Sprintf("PORT=%d", port))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("the forwarder did not end: %s", out.String())
			}
			var ee *exec.ExitError
			code := 0
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, out.String())
			}
			if strings.HasSuffix(tc.argv[0], "bash") {
				who := fmt.Sprintf("ppid %d\n", cmd.Process.Pid)
				if tc.inPlace {
					who = fmt.Sprintf("pid %d ppid", cmd.Process.Pid)
				}
				tc.wantOut = append(tc.wantOut, who)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// answerPings takes the proxy's clients off the control socket (each one,
// or the listening socket they connect to) and answers "ping" with "pong".
func answerPings(ctl *net.UnixConn) {
	buf, oob := make([]byte, 16), make([]byte, syscall.CmsgSpace(4))
	for {
		n, oobn, _, _, err := ctl.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			return
		}
		msgs, _ := syscall.ParseSocketControlMessage(oob[:oobn])
		for i := range msgs {
			fds, _ := syscall.ParseUnixRights(&msgs[i])
			for _, fd := range fds {
				f := os.NewFile(uintptr(fd), "conn")
				switch buf[0] {
				case MsgProxy:
					if c, err := net.FileConn(f); err == nil {
						go pong(c)
					}
				case MsgProxyListener:
					if ln, err := net.FileListener(f); err == nil {
						go func() {
							defer ln.Close()
							for {
								c, err := ln.Accept()
								if err != nil {
									return
								}
								go pong(c)
							}
						}()
					}
				}
				f.Close()
			}
		}
	}
}

func pong(c net.Conn) {
	defer c.Close()
	line := make([]byte, 5)
	if _, err := io.ReadFull(c, line); err == nil && string(line) == "ping\n" {
		_, _ = c.Write([]byte("pong\n"))
	}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
