package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The cage stays in Warden's session (no setsid per call), so when Warden
// runs in a terminal a caged process must not reach it: /dev/tty is
// covered and TIOCSTI refused. These tests run a stand-in Warden (this test
// binary again) as the session leader of a real pty and read the terminal
// from the other side.

// ttyScript writes to the controlling terminal and pushes a key into its
// input, the two ways a process reaches a terminal it was not given.
const ttyScript = `echo PWNED-WRITE > /dev/tty; perl -e 'open(my $t, "+<", "/dev/tty") or exit 3; my $c = "Q"; ioctl($t, 0x5412, $c) or exit 4; exit 0'; echo "rc=$?"`

// TestTTYHelper is the stand-in Warden; it runs only when started by
// runOnPty.
func TestTTYHelper(t *testing.T) {
	mode, result := os.Getenv("WARDEN_TTY_HELPER"), os.Getenv("WARDEN_TTY_RESULT")
	if mode == "" {
		t.Skip("started by TestCageDoesNotReachWardensTerminal")
	}
	var out string
	switch mode {
	case "bare":
		b, _ := exec.Command("bash", "-c", ttyScript).CombinedOutput()
		out = string(b)
	case "cage":
		c := newCage(t, Config{})
		ws := os.Getenv("WARDEN_TTY_WS")
		out, _, _ = cageRun(t, c, ws, ww, ttyScript)
	}
	if err := os.WriteFile(result, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runOnPty runs the helper in mode with a pty as its controlling terminal
// and returns what the terminal saw and what the helper's command printed.
func runOnPty(t *testing.T, mode, ws string) (terminal, out string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pty:", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	result := filepath.Join(ws, ".."+filepath.Base(ws)+"-"+mode)
	defer os.Remove(result)
	cmd := exec.Command(os.Args[0], "-test.run=^TestTTYHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "WARDEN_TTY_HELPER="+mode, "WARDEN_TTY_RESULT="+result, "WARDEN_TTY_WS="+ws)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var mu sync.Mutex
	var seen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			seen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the helper did not finish")
	}
	time.Sleep(100 * time.Millisecond) // the last echo on its way through the pty
	b, err := os.ReadFile(result)
	if err != nil {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the helper wrote no result: %v; terminal: %s", err, seen.String())
	}
	mu.Lock()
	defer mu.Unlock()
	return seen.String(), string(b)
}

func TestCageDoesNotReachWardensTerminal(t *testing.T) {
	ws := testDir(t)
	// Unconfined, the script reaches the terminal both ways: proof that
	// the caged run below tests something.
	term, out := runOnPty(t, "bare", ws)
	if !strings.Contains(term, "PWNED-WRITE") || !strings.Contains(out, "rc=0") || !strings.Contains(term, "Q") {
		t.Fatalf("unconfined the script did not reach the terminal (terminal %q, output %q)", term, out)
	}
	term, out = runOnPty(t, "cage", ws)
	if strings.Contains(term, "PWNED-WRITE") {
		t.Fatalf("a caged process wrote to Warden's terminal: %q", term)
	}
	if strings.Contains(out, "rc=0") || !strings.Contains(out, "rc=") {
		t.Fatalf("a caged process pushed input into Warden's terminal: %q (terminal %q)", out, term)
	}
}

// TestTIOCSTIRefused: even on its own controlling terminal (a pty of the
// cage's devpts, where the kernel would allow it), a caged process cannot
// push input; the filter refuses the request with its upper bits set or
// not.
func TestTIOCSTIRefused(t *testing.T) {
	ws := testDir(t)
	c := newCage(t, Config{})
	script := `perl -MPOSIX -e '
		sysopen(my $m, "/dev/ptmx", O_RDWR|O_NOCTTY) or exit 3;
		my $u = pack("i", 0); ioctl($m, 0x40045431, $u) or exit 5;   # TIOCSPTLCK: unlock
		my $n = pack("i", 0); ioctl($m, 0x80045430, $n) or exit 6;  # TIOCGPTN
		$SIG{HUP} = "IGNORE"; POSIX::setsid();
		sysopen(my $s, "/dev/pts/" . unpack("i", $n), O_RDWR) or exit 7;  # its controlling terminal
		my $c = "Q"; exit(ioctl($s, hex($ARGV[0]), $c) ? 0 : 4)' `
	for _, req := range []string{"0x5412", "0x100005412"} {
		cmd := exec.Command("bash", "-c", script+req)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("unconfined TIOCSTI %s on a fresh pty failed, so this proves nothing: %v %s", req, err, out)
		}
		out, code, _ := cageRun(t, c, ws, ww, script+req)
		if code != 4 {
			t.Fatalf("TIOCSTI %s in the cage: exit %d (want 4: the ioctl refused) %s", req, code, out)
		}
	}
}
