package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStandaloneArgv(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"nothing to drop", "bwrap --ro-bind / / -- bash -c true", "bwrap --ro-bind / / -- bash -c true"},
		{"seccomp, info and block", "bwrap --unshare-net --seccomp 3 --info-fd 4 --block-fd 5 --chdir /w -- true", "bwrap --unshare-net --chdir /w -- true"},
		{"a placed file with its mode", "bwrap --perms 0000 --ro-bind-data 3 /w/.env --tmpfs /tmp -- true", "bwrap --tmpfs /tmp -- true"},
		{"a placed file without a mode", "bwrap --ro-bind-data 3 /w/x --bind-data 4 /w/y --file 5 /w/z -- true", "bwrap -- true"},
		{"a mode kept for a tmpfs", "bwrap --perms 0000 --tmpfs /root/.config/warden --remount-ro /root/.config/warden -- true", "bwrap --perms 0000 --tmpfs /root/.config/warden --remount-ro /root/.config/warden -- true"},
		{"the command keeps its words", "bwrap --block-fd 5 -- sh -c 'x --seccomp 3' --info-fd 4", "bwrap -- sh -c 'x --seccomp 3' --info-fd 4"},
		{"sync, json status and userns block", "bwrap --sync-fd 3 --json-status-fd 4 --userns-block-fd 5 -- true", "bwrap -- true"},
		{"a flag cut short", "bwrap --seccomp", "bwrap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StandaloneArgv(strings.Fields(tc.in)); !slices.Equal(got, strings.Fields(tc.want)) {
				t.Errorf("StandaloneArgv(%q)\n got %q\nwant %q", tc.in, strings.Join(got, " "), tc.want)
			}
		})
	}
}

// The standalone line of a real cage runs by hand and ends: with the
// descriptors left in, bwrap would wait on one of its own forever.
func TestStandaloneArgvRuns(t *testing.T) {
	c := newCage(t, Config{})
	ws := testDir(t)
	p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: ww, Args: []string{"bash", "-c", "touch " + filepath.Join(ws, "ran")}})
	if err != nil {
		t.Fatal(err)
	}
	p.Finish()
	argv := StandaloneArgv(p.Argv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s\n%q", err, out, argv)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err != nil {
		t.Fatalf("the standalone cage did not run its command: %v", err)
	}
}
