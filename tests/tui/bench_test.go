//go:build e2e_tui

package tui

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkStartToFirstFrame is from starting bin/warden tui in a tmux pane
// (a new process) to the status bar on the screen (drawn before the store
// opens), polled every 2 ms.
func BenchmarkStartToFirstFrame(b *testing.B) {
	benchStart(b, "Approval: ", func(f fixture) string { return shellJoin(f.argv()) })
}

// BenchmarkStartToReady is from the start to the session open on the
// screen (the graph opened, the store migrated, the session made): the
// status bar names the model only then.
func BenchmarkStartToReady(b *testing.B) {
	benchStart(b, "Model: ", func(f fixture) string { return shellJoin(f.argv()) })
}

// BenchmarkHarnessFloor is the same measurement of a shell echoing the
// awaited text: what tmux, the polling and the machine's load cost before
// warden does anything. Subtract it from the two above.
func BenchmarkHarnessFloor(b *testing.B) {
	benchStart(b, "Approval: ", func(fixture) string { return "sh -c 'echo Approval: floor; sleep 30'" })
}

func benchStart(b *testing.B, want string, cmd func(fixture) string) {
	f := newFixture(b)
	for b.Loop() {
		b.StopTimer()
		tm := startTerm(b, 100, 30, f.env, "sh", "-c", "read x; exec "+cmd(f))
		time.Sleep(100 * time.Millisecond)
		b.StartTimer()
		tm.keys("Enter")
		for !strings.Contains(tm.capture(), want) {
			time.Sleep(2 * time.Millisecond)
		}
		b.StopTimer()
		tm.tmux("kill-server")
		b.StartTimer()
	}
}

// BenchmarkIdleRSS reports the resident memory of bin/warden tui idle on a
// session, two seconds after its first frame (VmRSS of /proc).
func BenchmarkIdleRSS(b *testing.B) {
	f := newFixture(b)
	var kb int
	for b.Loop() {
		tm := startTerm(b, 100, 30, f.env, f.argv()...)
		tm.waitFor("the first frame", "Approval: ")
		time.Sleep(2 * time.Second)
		kb = rssKB(b, tm.pid())
		tm.tmux("kill-server")
	}
	b.ReportMetric(float64(kb)/1024, "MB-RSS")
}

func rssKB(b testing.TB, pid int) int {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(s), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
