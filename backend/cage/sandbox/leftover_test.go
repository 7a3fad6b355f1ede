package sandbox

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/warden-dev/warden/backend/policy"
)

// leftBehind is one case of testdata/left_behind.txt.
type leftBehind struct{ name, start string }

func readLeftBehind(t *testing.T) []leftBehind {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "left_behind.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []leftBehind
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== "):
			out = append(out, leftBehind{name: strings.TrimPrefix(line, "=== ")})
		case len(out) == 0 || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
		default:
			out[len(out)-1].start += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 12 {
		t.Fatalf("only %d cases in left_behind.txt", len(out))
	}
	return out
}

// writerUnderWay ends a case's command once the writer it left wrote
// (bounded: a writer that never starts fails the case instead).
const writerUnderWay = "for i in $(seq 1000); do [ -e left.log ] && break; sleep 0.01; done; exit 0"

// TestNothingOfTheCallRunsAfterIt: bwrap returns as soon as its init
// reports the command's exit, while the init still waits for the processes
// the command left behind; before Prepared.End those went on running (and
// writing) after the call's checks, in about two runs of three. Each case
// starts an endless writer, waits until it wrote, and exits 0; once the
// call is over no process of it may be left and its file may not grow.
func TestNothingOfTheCallRunsAfterIt(t *testing.T) {
	c := newCage(t, Config{})
	for _, tc := range readLeftBehind(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := testDir(t)
			log := filepath.Join(ws, "left.log")
			// The workspace's path in the writer's command line finds its
			// processes; a comment keeps it out of the way.
			loop := "while :; do echo x >> left.log; done # " + ws
			for round := range 3 {
				p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: policy.SandboxPolicy{Kind: policy.WorkspaceWrite},
					Env: map[string]string{"LOOP": loop}, Args: []string{"bash", "-c", tc.start + writerUnderWay}})
				if err != nil {
					t.Fatal(err)
				}
				out, err := p.Cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("round %d: %v %s", round, err, out)
				}
				p.Finish()
				if left := processesMentioning(ws); len(left) != 0 {
					t.Fatalf("round %d: processes of the call outlived it: %v", round, left)
				}
				before, err := os.Stat(log)
				if err != nil {
					t.Fatalf("round %d: the writer never ran, so the case proves nothing: %v (output %s)", round, err, out)
				}
				time.Sleep(50 * time.Millisecond) // a writer still alive writes thousands of lines in this time
				after, _ := os.Stat(log)
				if after.Size() != before.Size() {
					t.Fatalf("round %d: left.log grew from %d to %d bytes after the call was over", round, before.Size(), after.Size())
				}
				_ = os.Remove(log)
			}
		})
	}
}

// TestLeftBehindProcessPlantsNothing: a process the command leaves running
// writes a protected entry in a tight loop. The call's watch removes each
// one while the call runs; before Prepared.End the writer outlived the
// watch and its next write stayed, for Warden's loaders, an editor or git
// to run outside the cage.
func TestLeftBehindProcessPlantsNothing(t *testing.T) {
	c := newCage(t, Config{})
	b, err := os.ReadFile(filepath.Join("testdata", "left_behind_plants.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			targets = append(targets, line)
		}
	}
	if len(targets) < 6 {
		t.Fatalf("only %d targets in left_behind_plants.txt", len(targets))
	}
	// The writer marks its first round outside the protected set, and the
	// command exits once it sees it: the loop runs during the call and is
	// under way when it ends.
	const script = `setsid bash -c 'while :; do { echo planted > "$PLANT"; } 2>/dev/null || mkdir -p "${PLANT%/*}"; : > .planted-once; done # '"$PWD" </dev/null >/dev/null 2>&1 &
for i in $(seq 1000); do [ -e .planted-once ] && break; sleep 0.01; done; exit 0`
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			for round := range 5 {
				ws := gitRepo(t)
				p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: policy.SandboxPolicy{Kind: policy.WorkspaceWrite},
					Env: map[string]string{"PLANT": target}, Args: []string{"bash", "-c", script}})
				if err != nil {
					t.Fatal(err)
				}
				out, err := p.Cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("round %d: %v %s", round, err, out)
				}
				violations := p.Finish()
				if _, err := os.Stat(filepath.Join(ws, ".planted-once")); err != nil {
					t.Fatalf("round %d: the writer never ran, so the case proves nothing: %v", round, err)
				}
				if len(violations) == 0 {
					t.Fatalf("round %d: the watch reported no protected write, so the case proves nothing", round)
				}
				if _, err := os.Lstat(filepath.Join(ws, target)); err == nil {
					t.Fatalf("round %d: %s was planted by a process of the call after its checks", round, target)
				}
			}
		})
	}
}

// TestWaitGone: End's wait for a killed cage is bounded; it reports a
// process that did not end in time instead of hanging the call.
func TestWaitGone(t *testing.T) {
	tests := []struct {
		name     string
		kill     bool
		deadline time.Duration // 0: none
		want     bool
	}{
		{name: "killed, no deadline", kill: true, want: true},
		{name: "killed, within the deadline", kill: true, deadline: 5 * time.Second, want: true},
		{name: "still running at the deadline", deadline: 50 * time.Millisecond, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "30")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tc.kill {
				if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
					t.Fatal(err)
				}
			}
			var deadline time.Time
			if tc.deadline > 0 {
				deadline = time.Now().Add(tc.deadline)
			}
			if got := waitGone([]int{fd}, deadline); got != tc.want {
				t.Fatalf("waitGone = %v, want %v", got, tc.want)
			}
			if !tc.want && syscall.Kill(cmd.Process.Pid, 0) != nil {
				t.Fatal("the process it called still running is gone: the case proves nothing")
			}
		})
	}
}
