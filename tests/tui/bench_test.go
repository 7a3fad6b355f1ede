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
// (a new process: the graph opened, the store migrated, the session made)
// to the status bar on the screen (drawn before the store opens), polled
// every 2 ms.
func BenchmarkStartToFirstFrame(b *testing.B) { benchStart(b, "Approval: ") }

// BenchmarkStartToReady is from the start to the session open on the
// screen: the status bar names the model only once the store, the engine
// and the cage are up.
func BenchmarkStartToReady(b *testing.B) { benchStart(b, "Model: ") }

func benchStart(b *testing.B, want string) {
	f := newFixture(b)
	for b.Loop() {
		b.StopTimer()
		tm := startTerm(b, 100, 30, f.env, "sh", "-c", "read x; exec "+shellJoin(f.argv()))
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
