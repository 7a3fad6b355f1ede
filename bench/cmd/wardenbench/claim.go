package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// fullAccessName names the row of a command proven read-only under
// danger-full-access: it runs in the read-only cage its claim shapes
// (permission-model.md, "The claim is enforced"), and the target holds
// that cage to raw bwrap + 5 ms.
const fullAccessName = "warden full access, read-only claim"

// fullAccessVariant runs shell.exec through the gate under
// danger-full-access + on-request with nobody to answer: `true` and `ls /`
// are allowed unasked and run in the read-only cage. The probes' /etc
// write and loopback connect are asked and so refused by the gate; the
// cage alone then runs them in the cage of a read-only claim, which must
// hold them too.
func fullAccessVariant(e startEnv) (*variant, error) {
	sb := policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	env := tools.Env{SessionID: "bench-full", Workspace: e.ws, Sandbox: sb}
	g, err := assemble.NewGate(assemble.GateParts{Engine: policy.New(policy.Config{}), Headless: true})
	if err != nil {
		return nil, err
	}
	session := func(context.Context, tools.Env) (policy.Session, error) {
		return policy.Session{Workspace: e.ws, Sandbox: sb, Approval: policy.OnRequest, Caged: true, Now: time.Now()}, nil
	}
	sh := tools.NewShellExec(e.cage)
	v := &variant{name: fullAccessName}
	v.run = func(ctx context.Context, script string) (string, error) {
		args, _ := json.Marshal(tools.ShellExecParams{Command: script})
		out, err := g.Call(ctx, gate.Request{Tool: sh, Args: args, Env: env, Session: session})
		if err != nil {
			return "", err
		}
		if !out.Invoked {
			return "", fmt.Errorf("%s: %s", refusedByGate, text(out.Result))
		}
		if out.Decision.Cage == nil || out.Decision.Cage.Shape != policy.CageReadOnly {
			return "", fmt.Errorf("ran in %s, not the read-only cage", out.Decision.Cage)
		}
		return text(out.Result), nil
	}
	claimed := env
	claimed.Cage = &policy.Cage{Shape: policy.CageReadOnly, Claimed: true, Why: "classified read-only"}
	v.cageOnly = func(ctx context.Context, script string) (string, error) {
		args, _ := json.Marshal(tools.ShellExecParams{Command: script})
		r, err := sh.Invoke(ctx, args, claimed)
		return text(r), err
	}
	return v, nil
}

// fullAccessTarget judges the row: per round, ≤ raw bwrap + 5 ms.
func fullAccessTarget(rep *Report, add func(name, want, got string, met, measured bool, margin string)) {
	w, raw := findStart(rep, fullAccessName), findStart(rep, "raw bwrap")
	if w == nil || raw == nil || w.Error != "" || raw.Error != "" {
		add("read-only command under full access, `true`", "≤ raw bwrap + 5 ms per round", "not measured", false, false, "n/a")
		return
	}
	add("read-only command under full access, `true`", "≤ raw bwrap + 5 ms per round (it runs in the read-only cage)",
		fmt.Sprintf("%+.1f ms per round (medians: Warden %.1f ms, bwrap %.1f ms)", w.OverRaw.Median, w.True.Median, raw.True.Median),
		w.OverRaw.Median <= 5, w.OverRaw.N > 0, fmt.Sprintf("%.1f ms spare", 5-w.OverRaw.Median))
}
