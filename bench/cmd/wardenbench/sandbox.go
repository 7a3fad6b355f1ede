package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// variant is one way to start a sandboxed process. run executes a bash
// script and returns its combined output; a non-nil error means the variant
// failed to run the script at all (a script's own non-zero exit is not an
// error for the probes, which judge by effect, not by exit code).
type variant struct {
	name string
	// argv builds the command line for a bash script; nil for in-process
	// variants (Warden's gate).
	argv func(script string) []string
	dir  string
	env  []string
	run  func(ctx context.Context, script string) (string, error)
	// cageOnly, for Warden, runs the same tool without the gate: when the
	// gate refuses a probe outright, the probe is repeated here so the
	// verdict still says whether the OS cage holds on its own.
	cageOnly func(ctx context.Context, script string) (string, error)
}

func (v *variant) exec(ctx context.Context, script string) (string, error) {
	if v.run != nil {
		return v.run(ctx, script)
	}
	argv := v.argv(script)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = v.dir
	if v.env != nil {
		cmd.Env = v.env
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%w: %s", err, strings.TrimSpace(lastLines(string(out), 4)))
	}
	return string(out), nil
}

// StartResult is one variant's row of the process-start table.
type StartResult struct {
	Variant  string `json:"variant"`
	Command  string `json:"command_line"`
	True     Stat   `json:"true_ms"`
	Ls       Stat   `json:"ls_root_ms"`
	Confines bool   `json:"confines"`
	// EtcWrite and LoopbackTCP say what each probe saw: "blocked" or what
	// got through.
	EtcWrite    string `json:"etc_write"`
	LoopbackTCP string `json:"loopback_tcp"`
	Error       string `json:"error,omitempty"`
	// OverRaw is, per round, this variant's `true` minus raw bwrap's in
	// the same round: steadier than the difference of two medians.
	OverRaw Stat `json:"minus_raw_bwrap_per_round_ms"`
	// CPU is the processor time one `true` costs: this process's own
	// (Prepare, the gate, Finish) plus its children's (bwrap and what it
	// runs). On a shared machine wall times swing with the load; CPU time
	// much less, so the two ratios together say more than either.
	CPU Stat `json:"true_cpu_ms"`
}

type startEnv struct {
	work  string
	ws    string
	peers string // bench/peers, holding node_modules/.bin
	cage  *sandbox.Cage
}

// wardenVariant runs shell.exec through the real gate and cage, with the
// engine deciding each call.
func wardenVariant(e startEnv) (*variant, func(), error) {
	sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	env := tools.Env{SessionID: "bench", Workspace: e.ws, Sandbox: sb}
	g, err := assemble.NewGate(assemble.GateParts{Engine: policy.New(policy.Config{}), Approver: approveAll{}})
	if err != nil {
		return nil, nil, err
	}
	session := func(context.Context, tools.Env) (policy.Session, error) {
		return policy.Session{Workspace: e.ws, Sandbox: sb, Approval: policy.OnRequest, Caged: true, Now: time.Now()}, nil
	}
	sh := tools.NewShellExec(e.cage)
	v := &variant{name: "warden gate+cage"}
	v.run = func(ctx context.Context, script string) (string, error) {
		args, _ := json.Marshal(tools.ShellExecParams{Command: script})
		out, err := g.Call(ctx, gate.Request{Tool: sh, Args: args, Env: env, Session: session})
		if err != nil {
			return "", err
		}
		if !out.Invoked {
			return "", fmt.Errorf("%s: %s", refusedByGate, text(out.Result))
		}
		return text(out.Result), nil
	}
	v.cageOnly = func(ctx context.Context, script string) (string, error) {
		args, _ := json.Marshal(tools.ShellExecParams{Command: script})
		r, err := sh.Invoke(ctx, args, env)
		return text(r), err
	}
	return v, func() {}, nil
}

// approveAll stands in for a human who approves everything, so the probes
// test the OS cage and not only the policy: the engine asks about a write
// to /etc, the "human" says yes, and the cage must still stop it.
type approveAll struct{}

func (approveAll) Approve(context.Context, gate.ApprovalRequest) (gate.Approval, error) {
	return gate.Approval{Approved: true}, nil
}

func text(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// rawBwrapVariant is the baseline the target names: a minimal
// bwrap cage of the workspace (read-only root, the workspace writable, a
// private /tmp, new user, PID and network namespaces), started directly.
// Warden's own command line cannot be replayed as is: it hands bwrap
// descriptors (the seccomp program, the limits' info and block pipes) that
// only exist for the call they were made for.
func rawBwrapVariant(e startEnv) (*variant, error) {
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, err
	}
	prefix := []string{bw, "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--bind", e.ws, e.ws, "--chdir", e.ws, "--"}
	return &variant{name: "raw bwrap (minimal)", dir: e.ws, argv: func(s string) []string {
		return append(append([]string(nil), prefix...), "bash", "-c", s)
	}}, nil
}

// cageOnlyVariant is Warden's cage without the gate: Prepare, run, Finish,
// so the table shows what the cage adds to bwrap and what the gate adds.
func cageOnlyVariant(e startEnv) *variant {
	v := &variant{name: "warden cage (no gate)"}
	v.run = func(ctx context.Context, script string) (string, error) {
		prep, err := e.cage.Prepare(ctx, sandbox.Spec{Workspace: e.ws, Policy: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, Args: []string{"bash", "-c", script}})
		if err != nil {
			return "", err
		}
		out, err := prep.Cmd.CombinedOutput()
		if vs := prep.Finish(); len(vs) > 0 && err == nil {
			err = fmt.Errorf("sandbox violation: %s", vs[0].Path)
		}
		if err != nil {
			return string(out), fmt.Errorf("%w: %s", err, strings.TrimSpace(lastLines(string(out), 4)))
		}
		return string(out), nil
	}
	return v
}

func shVariant(e startEnv) *variant {
	return &variant{name: "sh -c (no sandbox)", dir: e.ws, argv: func(s string) []string { return []string{"sh", "-c", s} }}
}

// srtVariant is Anthropic's sandbox runtime CLI. Its default settings deny
// all network and allow writes only to the current directory.
func srtVariant(e startEnv) *variant {
	bin := filepath.Join(e.peers, "node_modules", ".bin", "srt")
	settings := filepath.Join(e.work, "srt-settings.json")
	_ = os.WriteFile(settings, []byte(`{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["`+e.ws+`"],"denyWrite":[]}}`), 0o644)
	return &variant{name: "srt (Anthropic sandbox-runtime)", dir: e.ws, argv: func(s string) []string {
		return []string{bin, "--settings", settings, "-c", s}
	}}
}

// codexVariant is OpenAI Codex's sandbox with its built-in workspace
// profile (writes to the workspace only, no network). CODEX_HOME points at
// an empty folder so no user config changes what is measured.
func codexVariant(e startEnv) *variant {
	bin := filepath.Join(e.peers, "node_modules", ".bin", "codex")
	home := filepath.Join(e.work, "codex-home")
	_ = os.MkdirAll(home, 0o755)
	return &variant{name: "codex sandbox", dir: e.ws, env: append(os.Environ(), "CODEX_HOME="+home), argv: func(s string) []string {
		return []string{bin, "sandbox", "-P", ":workspace", "-C", e.ws, "--", "bash", "-c", s}
	}}
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// probe checks, by effect, that a variant blocks a write to /etc and a TCP
// connect to a listener on loopback. For Warden the stand-in human approves
// whatever the engine asks about, so "blocked" is the cage's doing; were the
// gate to refuse outright, the verdict says so.
func probe(ctx context.Context, v *variant, ln *countingListener) (etc, tcp string) {
	etc = probeOne(ctx, v, func(run func(context.Context, string) (string, error)) bool {
		target := fmt.Sprintf("/etc/wardenbench-probe-%d", time.Now().UnixNano())
		_, _ = run(ctx, "echo pwned > "+target)
		if _, err := os.Stat(target); err == nil {
			os.Remove(target)
			return false
		}
		return true
	}, "WRITTEN")
	tcp = probeOne(ctx, v, func(run func(context.Context, string) (string, error)) bool {
		before := ln.count.Load()
		// bash by name: the sh -c control is dash, which has no /dev/tcp.
		_, _ = run(ctx, fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && echo hi >&3'", ln.port))
		time.Sleep(50 * time.Millisecond) // let a connection that got through be accepted
		return ln.count.Load() == before
	}, "CONNECTED")
	return etc, tcp
}

// probeOne runs check through the variant; if Warden's gate refused the
// probe, it runs it again in the cage alone.
func probeOne(ctx context.Context, v *variant, check func(func(context.Context, string) (string, error)) bool, escaped string) string {
	refused := false
	run := func(ctx context.Context, s string) (string, error) {
		out, err := v.exec(ctx, s)
		if err != nil && strings.Contains(err.Error(), refusedByGate) {
			refused = true
		}
		return out, err
	}
	if !check(run) {
		return escaped
	}
	if !refused || v.cageOnly == nil {
		return "blocked"
	}
	if !check(v.cageOnly) {
		return "gate refused, but the cage alone let it through"
	}
	return "blocked (gate refused; cage alone also blocked)"
}

const refusedByGate = "the gate did not run it"

type countingListener struct {
	ln    net.Listener
	port  int
	count atomic.Int64
}

func listenLoopback() (*countingListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &countingListener{ln: ln, port: ln.Addr().(*net.TCPAddr).Port}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.count.Add(1)
			conn.Close()
		}
	}()
	return c, nil
}

// benchStart measures every variant, interleaved: each round runs every
// live variant once for `true` and once for `ls /`, in an order rotated
// round by round, so load from the rest of the machine falls on all of
// them alike.
func benchStart(ctx context.Context, e startEnv, rounds int) ([]StartResult, error) {
	ln, err := listenLoopback()
	if err != nil {
		return nil, err
	}
	defer ln.ln.Close()
	var vs []*variant
	var results []StartResult
	add := func(v *variant, err error) {
		if err != nil {
			results = append(results, StartResult{Variant: v.name, Error: err.Error()})
			return
		}
		vs = append(vs, v)
	}
	wv, done, err := wardenVariant(e)
	if err != nil {
		return nil, err
	}
	defer done()
	add(wv, nil)
	if fv, err := fullAccessVariant(e); err != nil {
		add(&variant{name: fullAccessName}, err)
	} else {
		add(fv, nil)
	}
	add(cageOnlyVariant(e), nil)
	if rb, err := rawBwrapVariant(e); err != nil {
		add(&variant{name: "raw bwrap (minimal)"}, err)
	} else {
		add(rb, nil)
	}
	add(shVariant(e), nil)
	add(srtVariant(e), nil)
	add(codexVariant(e), nil)

	// Warm-up doubles as the check that the variant runs here at all.
	var live []*variant
	idx := map[*variant]int{}
	for _, v := range vs {
		r := StartResult{Variant: v.name}
		switch {
		case v.argv != nil:
			r.Command = strings.Join(v.argv("true"), " ")
		case v.cageOnly != nil:
			r.Command = `gate.Call(shell.exec {"command":"true"})`
		default:
			r.Command = `cage.Prepare(bash -c true); Run; Finish`
		}
		if _, err := v.exec(ctx, "true"); err != nil {
			r.Error = err.Error()
			results = append(results, r)
			continue
		}
		r.EtcWrite, r.LoopbackTCP = probe(ctx, v, ln)
		r.Confines = strings.HasPrefix(r.EtcWrite, "blocked") && strings.HasPrefix(r.LoopbackTCP, "blocked")
		idx[v] = len(results)
		results = append(results, r)
		live = append(live, v)
	}
	rawIdx := -1
	for _, v := range live {
		if strings.HasPrefix(v.name, "raw bwrap") {
			rawIdx = idx[v]
		}
	}
	over := make([][]float64, len(results))
	cpu := make([][]float64, len(results))
	tr := make([][]float64, len(results))
	lr := make([][]float64, len(results))
	for i := 0; i < rounds; i++ {
		for _, script := range []string{"true", "ls /"} {
			got := map[int]float64{}
			// Each round starts with another variant, so none always runs
			// first (after the previous round's slowest) or last.
			for k := range live {
				v := live[(k+i)%len(live)]
				c0 := cpuNow()
				t0 := time.Now()
				_, err := v.exec(ctx, script)
				d := ms(time.Since(t0))
				c := ms(cpuNow() - c0)
				j := idx[v]
				if err != nil {
					results[j].Error = fmt.Sprintf("%s failed in round %d: %v", script, i, err)
					continue
				}
				if script == "true" {
					tr[j] = append(tr[j], d)
					cpu[j] = append(cpu[j], c)
					got[j] = d
				} else {
					lr[j] = append(lr[j], d)
				}
			}
			if raw, ok := got[rawIdx]; ok {
				for j, d := range got {
					over[j] = append(over[j], d-raw)
				}
			}
		}
	}
	for j := range results {
		results[j].True, results[j].Ls, results[j].OverRaw = statOf(tr[j]), statOf(lr[j]), statOf(over[j])
		results[j].CPU = statOf(cpu[j])
	}
	return results, nil
}

// cpuNow is the processor time of this process and its waited-for
// children so far.
func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
}
