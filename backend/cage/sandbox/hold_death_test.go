package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A held cage whose Warden dies before the word must not run the command:
// the process that would have recorded the call is gone, so nothing may
// happen unrecorded. The dying Warden is this test binary again
// (heldChild, from TestMain), killed with SIGKILL while its cage waits; asserted
// on the world: the file the command would write, and no cage left over.
func TestHeldCageDiesWithWarden(t *testing.T) {
	tests := []struct {
		name   string
		limits string // "" or "none": the child's Limits
	}{
		{name: "with limits"},
		{name: "without limits", limits: "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := testDir(t)
			marker := filepath.Join(ws, "ran")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "WARDEN_HELD_CHILD="+ws, "WARDEN_HELD_LIMITS="+tc.limits)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			held := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "held ") {
						held <- strings.TrimPrefix(sc.Text(), "held ")
					}
				}
				close(held)
			}()
			var bwrapPID string
			select {
			case bwrapPID = <-held:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the child never held its cage")
			}
			if bwrapPID == "" {
				t.Fatal("the child ended without holding its cage")
			}
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			// The cage, if it outlived its Warden, gets time to run.
			deadline := time.Now().Add(2 * time.Second)
			for time.Now().Before(deadline) {
				if _, err := os.Stat(marker); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			_, serr := os.Stat(marker)
			left := alive(bwrapPID)
			// What is left of the cage waits on the word that will not
			// come. With a per-call cgroup (Warden as root, with limits)
			// the next start kills it; otherwise this test does.
			waiting := processesMentioning(ws)
			reaped := false
			if next := newCage(t, Config{}); tc.limits == "" && next.cgroupParent() != "" && len(waiting) > 0 {
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					if len(processesMentioning(ws)) == 0 {
						reaped = true
						break
					}
				}
				if !reaped {
					t.Errorf("the next start left the dead Warden's waiting cage running: %v", processesMentioning(ws))
				}
				// Removed by that start once the cage is gone, or (when the
				// killed init is not reaped yet) by the start after.
				_ = newCage(t, Config{})
				if _, err := os.Stat(filepath.Join(next.cgroupParent(), fmt.Sprintf("warden-%d-1", cmd.Process.Pid))); reaped && err == nil {
					t.Error("the dead Warden's cgroup is still there once its cage is gone")
				}
			}
			for _, pid := range processesMentioning(ws) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			if serr == nil {
				t.Fatal("the held command ran after its Warden died, unrecorded")
			}
			if left {
				t.Fatalf("bwrap %s, the cage's launcher, outlived its Warden", bwrapPID)
			}
			for _, pid := range waiting {
				if comm := readComm(pid); comm != "bwrap" {
					t.Errorf("process %d of the dead Warden's cage is %q, not bwrap waiting for the word", pid, comm)
				}
			}
		})
	}
}

// heldChild is TestHeldCageDiesWithWarden's Warden: it holds a cage that
// would touch the marker, prints "held PID" (bwrap's), and waits to be
// killed.
func heldChild(ws string, noLimits bool) int {
	var l Limits
	if noLimits {
		l = Limits{Processes: -1, FileBytes: -1}
	}
	c := New(Config{Limits: l})
	if st := c.Detect(context.Background()); !st.Available {
		fmt.Println("unavailable:", st.Reason)
		return 1
	}
	hold := make(chan error) // never given: the word does not come
	p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: ww, Args: []string{"bash", "-c", "touch " + filepath.Join(ws, "ran")}, Hold: hold})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if err := p.Cmd.Start(); err != nil {
		fmt.Println(err)
		return 1
	}
	for !p.lim.started.Load() {
		time.Sleep(time.Millisecond)
	}
	fmt.Printf("held %d\n", p.Cmd.Process.Pid)
	time.Sleep(time.Minute)
	return 0
}

func readComm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

func alive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	// A zombie is gone for our purpose: it runs nothing.
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
