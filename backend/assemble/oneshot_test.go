package assemble

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// inotifyInstances counts this process's open inotify instances, read from
// the kernel (/proc/self/fd), whoever opened them.
func inotifyInstances(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// TestOneShotOpensNoWatcher: the graph of a one-shot process (`warden
// tool`) holds no inotify instance once open — no MCP config watcher —
// while a long-lived one (window, serve, run) watches the user's MCP
// configuration. The checkpoint's workspace watcher is lazy and covered by
// checkpoint's TestOneShotStartsNoWatcher.
func TestOneShotOpensNoWatcher(t *testing.T) {
	cases := []struct {
		name     string
		oneShot  bool
		watchers bool
	}{
		{name: "one-shot process (warden tool)", oneShot: true, watchers: false},
		{name: "long-lived process", oneShot: false, watchers: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			before := inotifyInstances(t)
			g, err := Open(context.Background(), Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Workspace: t.TempDir(),
				NoModel: true, Headless: true, LeaveSessions: true, OneShot: tc.oneShot})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = g.Close() })
			opened := inotifyInstances(t) - before
			if tc.watchers && opened == 0 {
				t.Fatalf("a long-lived graph opened no inotify instance: the test no longer sees the MCP watcher")
			}
			// Counted process-wide: an earlier test's watcher that
			// finishes closing meanwhile makes the difference negative.
			if !tc.watchers && opened > 0 {
				t.Fatalf("a one-shot graph holds %d inotify instances after Open, want 0", opened)
			}
		})
	}
}
