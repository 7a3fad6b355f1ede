package computer

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startXvfb starts a private X server and returns its display name. Xvfb
// picks a free display number itself (-displayfd). A missing Xvfb fails
// the test: these tests exist to prove the tool on a real X server.
func startXvfb(t testing.TB, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Fatalf("Xvfb is required for the computer.use tests (apt install xvfb): %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"-displayfd", "3", "-nolisten", "tcp", "-noreset", "-br", "-screen", "0", "640x480x24"}, args...)...)
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatal("Xvfb exited without reporting a display")
		}
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not start within 20s")
	}
	return ""
}
