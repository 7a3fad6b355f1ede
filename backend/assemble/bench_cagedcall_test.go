package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// BenchmarkCagedCall is one shell.exec through the graph's gate — the
// decision, the checkpoints around the invoke, the cage's set-up (the walk
// of the workspace, what git executes held read-only), the command, the
// cage's end (new repositories judged) and the post-call check of the
// change set — in a git repository of 10,000 files in 100 folders.
// "true" changes nothing; "append" changes one tracked file.
func BenchmarkCagedCall(b *testing.B) {
	base, err := os.UserCacheDir()
	if err != nil {
		b.Fatal(err)
	}
	ws, err := os.MkdirTemp(base, "warden-bench-caged-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(ws)
	for d := 0; d < 100; d++ {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", f)), []byte(fmt.Sprintf("file %d %d\n", d, f)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.email=b@example.com", "-c", "user.name=b", "commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	ctx := context.Background()
	g, err := Open(ctx, Options{DBPath: filepath.Join(b.TempDir(), "w.db"), Headless: true, NoModel: true})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	sess, err := g.Store.CreateSession(ctx, store.NewSession{Workspace: ws, Title: "bench", Approval: policy.Never, Sandbox: sb})
	if err != nil {
		b.Fatal(err)
	}
	sh, _ := g.Tool("shell.exec")
	s := policy.Session{Workspace: ws, Approval: policy.Never, Sandbox: sb, Caged: true}
	call := func(cmd string) {
		raw, _ := json.Marshal(map[string]string{"command": cmd})
		out, err := g.Gate.Call(ctx, gate.Request{Tool: sh, Args: raw, Env: tools.Env{SessionID: sess.ID, Workspace: ws, Sandbox: sb},
			Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil }})
		if err != nil || out.Result.IsError {
			b.Fatalf("%s: %v %+v", cmd, err, out.Result)
		}
	}
	call("true") // the checkpoint's first full scan
	for _, tc := range []struct{ name, cmd string }{{"true", "true"}, {"append", "echo x >> pkg050/f050.txt"}} {
		b.Run(tc.name, func(b *testing.B) {
			// CPU time (this process and the children it waited for:
			// bwrap, the command, git) is steadier than wall time on a
			// shared machine.
			before := cpuTime()
			for i := 0; i < b.N; i++ {
				call(tc.cmd)
			}
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the user and system time of this process and of its waited-for
// children so far.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	d := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(kids.Utime) + d(kids.Stime)
}
