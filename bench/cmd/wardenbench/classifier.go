package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// ClassifierResult is one engine's row: speed over the whole corpus and
// what it let through without asking.
type ClassifierResult struct {
	Engine          string   `json:"engine"`
	DecisionsPerSec Stat     `json:"decisions_per_sec"`
	ReadOnlyAllowed int      `json:"read_only_allowed"`
	ReadOnlyTotal   int      `json:"read_only_total"`
	ReadOnlyPct     float64  `json:"read_only_allowed_pct"`
	UnsafeAllowed   int      `json:"unsafe_allowed"`
	UnsafeTotal     int      `json:"unsafe_total"`
	UnsafeExamples  []string `json:"unsafe_allowed_examples,omitempty"`
	Setting         string   `json:"setting"`
	Error           string   `json:"error,omitempty"`
}

func readCorpus(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("corpus %s is empty", path)
	}
	return out, nil
}

const benchWS = "/work/ws"

// wardenClassifier decides each command as shell.exec in a read-only
// sandbox with no OS cage: nothing rides on the cage, so every allow is the
// classifier's own judgement, as it is for a policy engine without one.
func wardenClassifier(safe, unsafe []string, rounds int) ClassifierResult {
	e := policy.New(policy.Config{})
	s := policy.Session{Workspace: benchWS, Approval: policy.OnRequest, Sandbox: policy.SandboxPolicy{Kind: policy.ReadOnly}, Caged: false, Now: time.Now()}
	call := func(cmd string) policy.Call {
		return policy.Call{Tool: "shell.exec", Effects: []policy.Effect{{Kind: policy.EffectExec, Command: cmd, Cwd: benchWS}}}
	}
	r := ClassifierResult{Engine: "warden policy.Engine.Decide", Setting: "read-only sandbox, on-request approval, no OS cage"}
	r.ReadOnlyTotal, r.UnsafeTotal = len(safe), len(unsafe)
	for _, c := range safe {
		if e.Decide(call(c), s).Verdict == policy.VerdictAllow {
			r.ReadOnlyAllowed++
		}
	}
	for _, c := range unsafe {
		if e.Decide(call(c), s).Verdict == policy.VerdictAllow {
			r.UnsafeAllowed++
			r.UnsafeExamples = append(r.UnsafeExamples, c)
		}
	}
	r.ReadOnlyPct = pct(r.ReadOnlyAllowed, r.ReadOnlyTotal)
	all := append(append([]string(nil), safe...), unsafe...)
	calls := make([]policy.Call, len(all))
	for i, c := range all {
		calls[i] = call(c)
	}
	var rates []float64
	for i := 0; i < rounds; i++ {
		t0 := time.Now()
		for _, c := range calls {
			e.Decide(c, s)
		}
		rates = append(rates, float64(len(calls))/time.Since(t0).Seconds())
	}
	r.DecisionsPerSec = statOf(rates)
	return r
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// geminiClassifier asks Gemini CLI's own PolicyEngine, loaded by a node
// helper that answers JSON lines; the timing happens inside node, so the
// pipe is not counted against it.
func geminiClassifier(ctx context.Context, script, peers string, safe, unsafe []string, rounds int) ClassifierResult {
	r := ClassifierResult{Engine: "gemini-cli-core PolicyEngine.check", Setting: "run_shell_command, default policies, default approval mode"}
	r.ReadOnlyTotal, r.UnsafeTotal = len(safe), len(unsafe)
	fail := func(err error) ClassifierResult { r.Error = err.Error(); return r }
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "WARDENBENCH_PEERS="+peers, "WARDENBENCH_WS="+benchWS)
	cmd.Dir = peers
	in, err := cmd.StdinPipe()
	if err != nil {
		return fail(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(outp)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	type reply struct {
		Decisions []string  `json:"decisions"`
		Rates     []float64 `json:"rates"`
		Version   string    `json:"version"`
		Error     string    `json:"error"`
	}
	ask := func(req any) (reply, error) {
		b, _ := json.Marshal(req)
		if _, err := in.Write(append(b, '\n')); err != nil {
			return reply{}, fmt.Errorf("gemini helper: %w (%s)", err, lastLines(stderr.String(), 5))
		}
		if !sc.Scan() {
			return reply{}, fmt.Errorf("gemini helper exited: %s", lastLines(stderr.String(), 5))
		}
		var rp reply
		if err := json.Unmarshal(sc.Bytes(), &rp); err != nil {
			return rp, fmt.Errorf("gemini helper: %w: %s", err, sc.Text())
		}
		if rp.Error != "" {
			return rp, fmt.Errorf("gemini helper: %s", rp.Error)
		}
		return rp, nil
	}
	rp, err := ask(map[string]any{"op": "decide", "commands": safe})
	if err != nil {
		return fail(err)
	}
	for _, d := range rp.Decisions {
		if d == "allow" {
			r.ReadOnlyAllowed++
		}
	}
	if rp, err = ask(map[string]any{"op": "decide", "commands": unsafe}); err != nil {
		return fail(err)
	}
	for i, d := range rp.Decisions {
		if d == "allow" {
			r.UnsafeAllowed++
			r.UnsafeExamples = append(r.UnsafeExamples, unsafe[i])
		}
	}
	r.ReadOnlyPct = pct(r.ReadOnlyAllowed, r.ReadOnlyTotal)
	all := append(append([]string(nil), safe...), unsafe...)
	if rp, err = ask(map[string]any{"op": "bench", "commands": all, "rounds": rounds, "budget_ms": 30000}); err != nil {
		return fail(err)
	}
	r.DecisionsPerSec = statOf(rp.Rates)
	return r
}
