package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as the stand-in for Warden in the SIGKILL tests: with
// WARDEN_CAGE_CHILD set, the test binary starts one caged call in that
// workspace, says "ready" and waits to be killed; with WARDEN_HELD_CHILD,
// it holds a cage waiting for the word instead (hold_death_test.go).
func TestMain(m *testing.M) {
	if ws := os.Getenv("WARDEN_CAGE_CHILD"); ws != "" {
		os.Exit(cageChild(ws))
	}
	if ws := os.Getenv("WARDEN_HELD_CHILD"); ws != "" {
		os.Exit(heldChild(ws, os.Getenv("WARDEN_HELD_LIMITS") == "none"))
	}
	os.Exit(m.Run())
}

func cageChild(ws string) int {
	c := New(Config{})
	if st := c.Detect(context.Background()); !st.Available {
		fmt.Println("unavailable:", st.Reason)
		return 1
	}
	p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: ww, Args: []string{"bash", "-c", "echo made > kept && echo started && exec sleep 60"}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	out, err := p.Cmd.StdoutPipe()
	if err != nil {
		return 1
	}
	if err := p.Cmd.Start(); err != nil {
		fmt.Println(err)
		return 1
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "started\n" {
		return 1
	}
	fmt.Println("ready")
	time.Sleep(time.Minute)
	return 0
}

// processesMentioning lists live pids whose command line names s.
func processesMentioning(s string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(s)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestSIGKILLOfWardenLeavesNothing(t *testing.T) {
	ws := gitRepo(t)
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := listing(t, ws)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "WARDEN_CAGE_CHILD="+ws)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		_ = child.Process.Kill()
		t.Fatalf("child: %q", line)
	}
	if len(processesMentioning(ws)) == 0 {
		t.Fatal("the caged call is not running: the test would prove nothing")
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	var left []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left = processesMentioning(ws); len(left) == 0 {
			break
		}
	}
	if len(left) != 0 {
		t.Fatalf("caged processes outlived Warden: %v", left)
	}
	after := listing(t, ws)
	want := append(append([]string(nil), before...), "kept")
	if strings.Join(sortedCopy(after), "\n") != strings.Join(sortedCopy(want), "\n") {
		t.Fatalf("the workspace holds more than the call wrote:\nbefore %v\nafter  %v", before, after)
	}
	// A per-call cgroup of the dead Warden (made when running as root) is
	// swept by the next cage.
	c := newCage(t, Config{})
	if parent := c.cgroupParent(); parent != "" {
		if _, err := os.Stat(filepath.Join(parent, fmt.Sprintf("warden-%d-1", child.Process.Pid))); err == nil {
			t.Fatal("the killed Warden's cgroup is still there after the next start")
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
