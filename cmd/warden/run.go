//go:build !wardenslim

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/termtext"
)

func runCommand() command {
	return command{name: "run", summary: "run one headless turn: a prompt, or !command", run: runMain}
}

type runFlags struct {
	model, baseURL, approval, sandbox, workspace, db string
	network, json                                    bool
	timeout                                          time.Duration
	allowHosts                                       hostFlag
}

func runMain(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("warden run", flag.ContinueOnError)
	fs.SetOutput(io.err)
	var f runFlags
	fs.StringVar(&f.model, "model", "", "PROVIDER:MODEL (anthropic, openai), script:FILE, or demo")
	fs.StringVar(&f.baseURL, "base-url", "", "base URL of the model API (an OpenAI-compatible server: Ollama, vLLM, ...)")
	fs.StringVar(&f.approval, "approval", "", "approval policy: never, on-request, always (default: config.toml, else on-request)")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox: read-only, workspace-write, danger-full-access (default: config.toml, else workspace-write)")
	fs.BoolVar(&f.network, "network", false, "let the workspace-write sandbox use the network")
	fs.StringVar(&f.workspace, "workspace", ".", "the workspace directory")
	fs.DurationVar(&f.timeout, "approval-timeout", 0, "how long an ask waits before it becomes a denial (no human is attached)")
	fs.StringVar(&f.db, "db", "", "the database (default $WARDEN_DB, else $XDG_DATA_HOME/warden/warden.db)")
	fs.BoolVar(&f.json, "json", false, "print JSON lines instead of text")
	registerAllowHost(fs, &f.allowHosts)
	fs.Usage = func() {
		fmt.Fprintln(io.err, `Usage: warden run [flags] "prompt"   (a prompt starting with ! runs that shell command through the gate)`)
		fs.PrintDefaults()
	}
	// Flags count after the prompt too ("fix it" --model x); a prompt word
	// that starts with "-" goes after "--" or inside the quotes.
	words, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	prompt := strings.TrimSpace(strings.Join(words, " "))
	if prompt == "" {
		fmt.Fprintln(io.err, "warden run: no prompt given")
		fs.Usage()
		return 2
	}
	axes, err := parseAxes(f.approval, f.sandbox, f.network)
	if err != nil {
		fmt.Fprintln(io.err, "warden run:", err)
		return 2
	}
	ws, err := runtime.ResolveWorkspace(f.workspace)
	if err != nil {
		fmt.Fprintln(io.err, "warden run:", err)
		return 2
	}
	timeout := f.timeout
	g, err := assemble.Open(ctx, assemble.Options{DBPath: f.db, Workspace: ws, Model: f.model, BaseURL: f.baseURL,
		Approval: axes.approval, Sandbox: axes.sandbox, Headless: true, ApprovalTimeout: &timeout, Version: version,
		AllowHosts: f.allowHosts})
	if err != nil {
		fmt.Fprintln(io.err, "warden run:", err)
		var me *assemble.ModelError
		if errors.As(err, &me) {
			return 2
		}
		return 1
	}
	defer g.Close()
	if f.model == "" && g.Config.Model == "" && !strings.HasPrefix(prompt, "!") && prompt != "/plan" {
		fmt.Fprintln(io.err, "warden run: a prompt needs --model PROVIDER:MODEL (or script:FILE, or [model] spec in config.toml); only !command runs without one")
		return 2
	}
	sess, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: f.workspace, Title: firstWords(prompt)})
	if err != nil {
		fmt.Fprintln(io.err, "warden run:", err)
		return 1
	}
	pctx, stop := context.WithCancel(ctx)
	out := io.out
	if !f.json {
		// Tool output and model text reach the terminal as text, never as
		// control sequences (termtext); the store keeps the raw bytes.
		tw := termtext.NewWriter(io.out)
		defer tw.Flush()
		out = tw
	}
	pr := &printer{out: out, json: f.json, session: sess.ID}
	done := pr.start(g.Service.Subscribe(pctx))
	runErr := g.Service.Run(ctx, sess.ID, prompt)
	// Print everything the turn stored before leaving.
	if last, err := g.Service.SessionEvents(context.WithoutCancel(ctx), sess.ID, 0, 0); err == nil && len(last) > 0 {
		pr.waitFor(last[len(last)-1].Seq, 5*time.Second)
	}
	stop()
	<-done
	if runErr != nil {
		fmt.Fprintln(io.err, "warden run:", termtext.Visible(runErr.Error()))
		return 1
	}
	return 0
}

func firstWords(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// axes are the session-default overrides given as flags; nil keeps the
// config file's.
type axes struct {
	approval *policy.ApprovalPolicy
	sandbox  *policy.SandboxPolicy
}

func parseAxes(approval, sandbox string, network bool) (axes, error) {
	var out axes
	if approval != "" {
		a, err := policy.ParseApprovalPolicy(approval)
		if err != nil {
			return out, err
		}
		out.approval = &a
	}
	if sandbox != "" || network {
		kind := policy.WorkspaceWrite
		if sandbox != "" {
			k, err := policy.ParseSandboxKind(sandbox)
			if err != nil {
				return out, err
			}
			kind = k
		}
		out.sandbox = &policy.SandboxPolicy{Kind: kind, NetworkAccess: network}
	}
	return out, nil
}

// printer writes a session's pushes as text or JSON lines.
type printer struct {
	out     io.Writer
	json    bool
	session string

	mu      sync.Mutex
	seq     int64
	cond    *sync.Cond
	midLine bool
}

func (p *printer) start(ch <-chan runtime.Push) <-chan struct{} {
	p.cond = sync.NewCond(&p.mu)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for push := range ch {
			p.print(push)
		}
	}()
	return done
}

// waitFor waits until the event seq was printed, or d passed.
func (p *printer) waitFor(seq int64, d time.Duration) {
	deadline := time.Now().Add(d)
	// A timer wakes the wait at the deadline (no goroutine left sleeping
	// when the event came first).
	t := time.AfterFunc(d, func() {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	defer t.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.seq < seq && time.Now().Before(deadline) {
		p.cond.Wait()
	}
}

func (p *printer) print(push runtime.Push) {
	switch push.Type {
	case runtime.PushDelta, runtime.PushApproval, runtime.PushApprovalResolved:
		if push.SessionID != p.session && (push.Approval == nil || push.Approval.SessionID != p.session) {
			return
		}
	case runtime.PushEvent:
	default:
		return
	}
	if p.json {
		if push.Type == runtime.PushEvent || push.Type == runtime.PushDelta {
			b, _ := json.Marshal(push)
			fmt.Fprintf(p.out, "%s\n", b)
		}
	} else {
		p.text(push)
	}
	if push.Type == runtime.PushEvent {
		p.mu.Lock()
		if push.Event.Seq > p.seq {
			p.seq = push.Event.Seq
		}
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

func (p *printer) text(push runtime.Push) {
	// Deltas come straight from the model while events come through the
	// store, so text mode prints the stored assistant message instead: the
	// transcript stays in order.
	if push.Type != runtime.PushEvent {
		return
	}
	if line := describe(push.Event); line != "" {
		fmt.Fprintln(p.out, line)
	}
}

// describe renders one stored event as a line of the transcript.
func describe(e *runtime.Event) string {
	var d map[string]any
	_ = json.Unmarshal(e.Data, &d)
	s := func(k string) string { v, _ := d[k].(string); return v }
	prefix := ""
	if len(e.SessionID) > 8 {
		prefix = "[" + e.SessionID[:8] + "] "
	}
	switch e.Kind {
	case store.KindMessageAppended:
		switch s("role") {
		case "user":
			return prefix + "user: " + s("text")
		case "assistant":
			return prefix + "assistant: " + s("text")
		case "system":
			return prefix + "warden: " + s("text")
		case "tool":
			return prefix + "  result: " + clip(s("text"), 400)
		}
	case store.KindPermissionRequested:
		return fmt.Sprintf("%s? ask    %s %s — %v", prefix, s("tool"), s("signature"), d["reasons"])
	case store.KindPermissionGranted:
		return fmt.Sprintf("%s✓ allow  %s (%s)", prefix, s("tool"), s("source"))
	case store.KindPermissionDenied:
		line := fmt.Sprintf("%s✗ deny   %s [%s by %s] %s", prefix, s("tool"), s("reason"), s("by"), s("detail"))
		if r := s("remedy"); r != "" {
			line += " — remedy: " + r
		}
		return line
	case store.KindToolInvocationStarted:
		return fmt.Sprintf("%s▶ run    %s %s", prefix, s("tool"), clip(mustJSON(d["args"]), 200))
	case store.KindToolInvocationFailed:
		return fmt.Sprintf("%s  failed: %s", prefix, clip(s("error"), 400))
	case store.KindUnsafeChangeReverted:
		var u store.UnsafeChangeReverted
		_ = json.Unmarshal(e.Data, &u)
		line := prefix + "⚠ reverted " + strings.Join(u.Reverted, ", ")
		for _, f := range u.Findings {
			line += "\n    " + f.Path + " (" + f.Reader + "): " + f.Why
		}
		return line
	case store.KindSubagentStarted:
		return prefix + "subagent " + s("subagent_id") + " started: " + clip(s("task"), 200)
	case store.KindSubagentFinished:
		return prefix + "subagent " + s("subagent_id") + " finished"
	case store.KindPlanningEntered, store.KindPlanningExited, store.KindApprovalPolicyChanged,
		store.KindSandboxPolicyChanged, store.KindGrantAdded:
		return prefix + string(e.Kind) + " " + string(e.Data)
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
