package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
)

// Rows (b) and (c) of issue 37: what one shell.exec costs a session
// through the agent loop's path for a model's tool call (runtime's
// runCall: the gate's decision, the checkpoints around the call, the cage,
// the post-call check of the change set, the events and the tool's result
// message), on a real SQLite file, the real cage and the real checkpoint
// store, against the same bwrap command line started directly in the same
// run, one of each per round (the order alternating), so the machine's
// load falls on both alike. Run with -benchtime 100x: 100 calls in one
// session. Reported per call: medians of wall time (ms-median-*) and of CPU
// (cpu-ms-median-*: this process and the children it waited for), and the
// median of the per-round differences (ms-over-bwrap), which the targets
// judge.

// BenchmarkAgentLoopCall is row (b): a caged `shell.exec true` in a
// Workspace write session, on an empty workspace and on a git repository of
// 10,000 files. Targets: ms-over-bwrap ≤ 10 (empty), ≤ 30 (10,000 files).
func BenchmarkAgentLoopCall(b *testing.B) {
	for _, tc := range []struct {
		name  string
		files int
	}{{"empty", 0}, {"files10000", 10000}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := benchDir(b)
			ws := filepath.Join(dir, "ws")
			makeTree(b, ws, tc.files)
			r := openLoop(b, dir, "loop", ws, policy.WorkspaceWrite, "")
			raw := r.rawBwrap(b, "true")
			b.ResetTimer()
			var loop, bw []sample
			for i := range b.N {
				for k := range 2 {
					if (i+k)%2 == 0 {
						loop = append(loop, measure(func() { r.call(b, "true") }))
					} else {
						bw = append(bw, measure(func() { raw.run(b) }))
					}
				}
			}
			b.StopTimer()
			r.check(b, b.N)
			report(b, "loop", loop)
			report(b, "bwrap", bw)
			b.ReportMetric(medianDiff(loop, bw), "ms-over-bwrap")
			b.ReportMetric(medianCPUDiff(loop, bw), "cpu-ms-over-bwrap")
		})
	}
}

// BenchmarkFullAccessClaim is row (c): a read-only command (`ls`) in a
// Full access session, through the same path: caged, as the claim makes it
// (the read-only cage: nobody answered the call), and unconfined, as it
// runs where Warden does not cage (`[sandbox] mode = "container"`, the one
// configuration left that runs a Full access command on the host unasked).
// Beside them the claim cage's bwrap command line started directly and the
// command without a cage (bash -c ls), so what bwrap itself costs is
// measured in the same rounds. Target: ms-over-bwrap, the median per round
// of (claim − unconfined) − (bwrap − bash), ≤ 5.
func BenchmarkFullAccessClaim(b *testing.B) {
	dir := benchDir(b)
	ws := filepath.Join(dir, "ws")
	makeTree(b, ws, 0)
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	claim := openLoop(b, dir, "claim", ws, policy.DangerFullAccess, "")
	free := openLoop(b, dir, "unconfined", ws, policy.DangerFullAccess, "[sandbox]\nmode = \"container\"\n")
	if claim.shape != policy.CageReadOnly {
		b.Fatalf("under Full access a read-only command ran in %q, not the read-only cage", claim.shape)
	}
	if m := free.g.CageStatus.Mechanism; m != "container" {
		b.Fatalf("the unconfined graph cages with %q", m)
	}
	raw := claim.rawBwrap(b, "ls")
	direct := plain{argv: []string{"bash", "-c", "ls"}, dir: ws}
	b.ResetTimer()
	names := []string{"claim", "unconfined", "bwrap", "bash"}
	runs := []func(){
		func() { claim.call(b, "ls") },
		func() { free.call(b, "ls") },
		func() { raw.run(b) },
		func() { direct.run(b) },
	}
	got := make([][]sample, len(runs))
	for i := range b.N {
		for k := range runs {
			j := (i + k) % len(runs) // rotate: no variant always runs first
			got[j] = append(got[j], measure(runs[j]))
		}
	}
	b.StopTimer()
	claim.check(b, b.N)
	free.check(b, b.N)
	for j, n := range names {
		report(b, n, got[j])
	}
	over := make([]float64, b.N)
	for i := range over {
		over[i] = (got[0][i].wall - got[1][i].wall) - (got[2][i].wall - got[3][i].wall)
	}
	b.ReportMetric(medianDiff(got[0], got[1]), "ms-claim-over-unconfined")
	b.ReportMetric(medianDiff(got[2], got[3]), "ms-bwrap-over-bash")
	b.ReportMetric(median(over), "ms-over-bwrap")
}

// loopRig is one graph (assemble.Open, as the window and `warden run`
// build it) and one session in it.
type loopRig struct {
	g     *assemble.Graph
	sess  string
	ws    string
	kind  policy.SandboxKind
	shape policy.CageShape
	cage  *policy.Cage
	calls int
}

func openLoop(b *testing.B, dir, name, ws string, kind policy.SandboxKind, config string) *loopRig {
	b.Helper()
	ctx := context.Background()
	data := filepath.Join(dir, name)
	if err := os.MkdirAll(data, 0o755); err != nil {
		b.Fatal(err)
	}
	// The config folder apart from the data folder: both are hidden from
	// the cage, and bwrap cannot hide a folder inside a hidden one.
	cfg := filepath.Join(dir, "config", name+".toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		b.Fatal(err)
	}
	g, err := assemble.Open(ctx, assemble.Options{DBPath: filepath.Join(data, "warden.db"), ConfigPath: cfg,
		Workspace: ws, NoModel: true, LeaveSessions: true, Headless: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = g.Close() })
	if config == "" && (!g.CageStatus.Available || g.CageStatus.Mechanism != "bubblewrap") {
		b.Fatalf("no bwrap cage on this machine (%+v): the row measures a caged call", g.CageStatus)
	}
	approval := policy.OnRequest
	s, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: ws, Title: "bench " + name,
		Approval: &approval, Sandbox: &runtime.Sandbox{Kind: kind}})
	if err != nil {
		b.Fatal(err)
	}
	r := &loopRig{g: g, sess: s.ID, ws: ws, kind: kind}
	// The decision the loop's calls get: caged (and how) or not.
	req, ok := g.Service.GateRequest(ctx, s.ID, "check", "shell.exec", json.RawMessage(`{"command":"true"}`))
	if !ok {
		b.Fatal("no shell.exec tool")
	}
	out, err := g.Gate.Call(ctx, req)
	if err != nil || !out.Invoked || out.Result.IsError {
		b.Fatalf("%s: the first call failed: %v %+v", name, err, out.Result)
	}
	if out.Decision.Cage != nil {
		r.cage, r.shape = out.Decision.Cage, out.Decision.Cage.Shape
	}
	if config == "" && (r.cage == nil || r.shape == policy.CageNone || r.shape == policy.CageHost) {
		b.Fatalf("%s: `true` was not caged: %+v", name, r.cage)
	}
	r.call(b, "true") // the checkpoint's first full scan, the page cache
	r.calls = 0
	return r
}

// call is one model tool call through the loop's step.
func (r *loopRig) call(b *testing.B, command string) {
	args, _ := json.Marshal(map[string]string{"command": command})
	r.calls++
	if err := r.g.Service.RunToolCall(context.Background(), r.sess, fmt.Sprintf("c%d", r.calls), "shell.exec", args); err != nil {
		b.Fatal(err)
	}
}

// check reads the session back: every timed call completed (events and the
// tool's result message written), none failed or was refused.
func (r *loopRig) check(b *testing.B, n int) {
	b.Helper()
	evs, err := r.g.Store.Events(context.Background(), store.EventQuery{SessionID: r.sess,
		Kinds: []store.Kind{store.KindToolInvocationCompleted, store.KindToolInvocationFailed, store.KindPermissionDenied}})
	if err != nil {
		b.Fatal(err)
	}
	done := 0
	for _, e := range evs {
		ev, ok := e.Event.(store.ToolInvocationCompleted)
		if !ok {
			b.Fatalf("a call did not complete: %s %+v", e.Kind, e.Event)
		}
		if ev.ExitCode != nil && *ev.ExitCode != 0 {
			b.Fatalf("call %s exited %d: %s", ev.CallID, *ev.ExitCode, ev.Output)
		}
		done++
	}
	if want := n + 2; done != want { // the check and warm-up calls too
		b.Fatalf("%d calls completed, want %d", done, want)
	}
}

// rawBwrap is the command line the cage builds for `bash -c command` in
// the shape the loop's calls got, started directly: the flags that hand
// bwrap descriptors made for one call (the seccomp program, the limits'
// pipes, files placed from memory) are dropped, as bench/oneshot.sh does.
func (r *loopRig) rawBwrap(b *testing.B, command string) plain {
	b.Helper()
	prep, err := r.g.Cage.Prepare(context.Background(), sandbox.Spec{Workspace: r.ws,
		Policy: policy.SandboxPolicy{Kind: r.kind}, Args: []string{"bash", "-c", command}, Shape: r.cage})
	if err != nil {
		b.Fatal(err)
	}
	defer prep.Finish()
	if !prep.Confined {
		b.Fatal("the cage did not confine the command")
	}
	p := plain{argv: append([]string{prep.Cmd.Path}, withoutFDFlags(prep.Cmd.Args[1:])...), dir: prep.Cmd.Dir, env: prep.Cmd.Env}
	p.run(b)
	return p
}

// withoutFDFlags drops bwrap's options whose value is an inherited
// descriptor, with their values.
func withoutFDFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--perms" && i+2 < len(args) && slices.Contains([]string{"--ro-bind-data", "--bind-data", "--file"}, args[i+2]):
			i += 4
		case slices.Contains([]string{"--seccomp", "--sync-fd", "--block-fd", "--info-fd", "--json-status-fd", "--userns-block-fd", "--args"}, a):
			i++
		case slices.Contains([]string{"--ro-bind-data", "--bind-data", "--file"}, a):
			i += 2
		default:
			out = append(out, a)
		}
	}
	return out
}

// plain is a command started directly.
type plain struct {
	argv []string
	dir  string
	env  []string
}

func (p plain) run(b *testing.B) {
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Dir, cmd.Env = p.dir, p.env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", p.argv, err, out)
	}
}

type sample struct{ wall, cpu float64 } // ms

// measure times f: wall, and the CPU of this process and its waited-for
// children (bwrap, the command, git).
func measure(f func()) sample {
	c0, t0 := cpuNow(), time.Now()
	f()
	return sample{wall: ms(time.Since(t0)), cpu: ms(cpuNow() - c0)}
}

func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	d := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(kids.Utime) + d(kids.Stime)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func report(b *testing.B, name string, ss []sample) {
	var wall, cpu []float64
	for _, s := range ss {
		wall, cpu = append(wall, s.wall), append(cpu, s.cpu)
	}
	b.ReportMetric(median(wall), "ms-median-"+name)
	b.ReportMetric(median(cpu), "cpu-ms-median-"+name)
}

// medianDiff is the median of a's minus b's wall time, round by round.
func medianDiff(a, b []sample) float64 {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i].wall - b[i].wall
	}
	return median(d)
}

// medianCPUDiff is medianDiff of CPU time: what a loaded machine's waits
// for a core do not move.
func medianCPUDiff(a, b []sample) float64 {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i].cpu - b[i].cpu
	}
	return median(d)
}

// benchDir is a folder outside /tmp (the cage's /tmp is private), with the
// XDG homes of the graph inside it.
func benchDir(b *testing.B) string {
	b.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		b.Fatal(err)
	}
	base = filepath.Join(base, "warden-cage-test")
	if err := os.MkdirAll(base, 0o755); err != nil {
		b.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, "callcost-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	b.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	return dir
}

// makeTree makes ws; with files > 0, a git repository of that many files
// in folders of 100, committed (a project checked out).
func makeTree(b *testing.B, ws string, files int) {
	b.Helper()
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	if files == 0 {
		return
	}
	for i := range files {
		d := filepath.Join(ws, fmt.Sprintf("pkg%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d.txt", i%100)), []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.email=b@example.com", "-c", "user.name=b", "commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}
