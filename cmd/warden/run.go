package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/runtime/model/openai"
	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
	"github.com/warden-dev/warden/backend/tools/sandbox"
)

func runCommand() command {
	return command{name: "run", summary: "run one headless turn: a prompt, or !command", run: runMain}
}

type runFlags struct {
	model, baseURL, approval, sandbox, workspace, db string
	network, json                                    bool
	timeout                                          time.Duration
}

func runMain(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("warden run", flag.ContinueOnError)
	fs.SetOutput(io.err)
	var f runFlags
	fs.StringVar(&f.model, "model", "", "PROVIDER:MODEL (anthropic, openai), script:FILE, or demo")
	fs.StringVar(&f.baseURL, "base-url", "", "base URL of the model API (an OpenAI-compatible server: Ollama, vLLM, ...)")
	fs.StringVar(&f.approval, "approval", "on-request", "approval policy: never, on-request, always")
	fs.StringVar(&f.sandbox, "sandbox", "workspace-write", "sandbox: read-only, workspace-write, danger-full-access")
	fs.BoolVar(&f.network, "network", false, "let the workspace-write sandbox use the network")
	fs.StringVar(&f.workspace, "workspace", ".", "the workspace directory")
	fs.DurationVar(&f.timeout, "approval-timeout", 0, "how long an ask waits before it becomes a denial (no human is attached)")
	fs.StringVar(&f.db, "db", "", "the database (default $XDG_DATA_HOME/warden/warden.db)")
	fs.BoolVar(&f.json, "json", false, "print JSON lines instead of text")
	fs.Usage = func() {
		fmt.Fprintln(io.err, `Usage: warden run [flags] "prompt"   (a prompt starting with ! runs that shell command through the gate)`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if prompt == "" {
		fmt.Fprintln(io.err, "warden run: no prompt given")
		fs.Usage()
		return 2
	}
	approval, err := policy.ParseApprovalPolicy(f.approval)
	if err != nil {
		fmt.Fprintln(io.err, "warden run:", err)
		return 2
	}
	kind, err := policy.ParseSandboxKind(f.sandbox)
	if err != nil {
		fmt.Fprintln(io.err, "warden run:", err)
		return 2
	}
	var prov model.Provider
	if f.model != "" {
		if prov, _, err = buildProvider(f.model, f.baseURL); err != nil {
			fmt.Fprintln(io.err, "warden run:", err)
			return 2
		}
	} else if !strings.HasPrefix(prompt, "!") && prompt != "/plan" {
		fmt.Fprintln(io.err, "warden run: a prompt needs --model PROVIDER:MODEL (or script:FILE); only !command runs without one")
		return 2
	}
	sb := policy.SandboxPolicy{Kind: kind, NetworkAccess: f.network}
	env, err := openEnv(ctx, f.db, runtime.Config{Provider: prov, Approval: approval, Sandbox: sb, Headless: true,
		ApprovalTimeout: f.timeout})
	if err != nil {
		fmt.Fprintln(io.err, "warden run:", err)
		return 1
	}
	defer env.close()
	sess, err := env.svc.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: f.workspace, Title: firstWords(prompt)})
	if err != nil {
		fmt.Fprintln(io.err, "warden run:", err)
		return 1
	}
	pctx, stop := context.WithCancel(ctx)
	pr := &printer{out: io.out, json: f.json, session: sess.ID}
	done := pr.start(env.svc.Subscribe(pctx))
	runErr := env.svc.Run(ctx, sess.ID, prompt)
	// Print everything the turn stored before leaving.
	if last, err := env.svc.SessionEvents(context.WithoutCancel(ctx), sess.ID, 0, 0); err == nil && len(last) > 0 {
		pr.waitFor(last[len(last)-1].Seq, 5*time.Second)
	}
	stop()
	<-done
	if runErr != nil {
		fmt.Fprintln(io.err, "warden run:", runErr)
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

// buildProvider turns a --model spec into a provider; demo reports whether
// it is the built-in demo.
func buildProvider(spec, baseURL string) (model.Provider, bool, error) {
	sp, err := model.ParseModelSpec(spec)
	if err != nil {
		return nil, false, err
	}
	switch sp.Provider {
	case model.KindAnthropic:
		p, err := anthropic.New(anthropic.Config{Model: sp.Model, BaseURL: baseURL})
		return p, false, err
	case model.KindOpenAI:
		p, err := openai.New(openai.Config{Model: sp.Model, BaseURL: baseURL})
		return p, false, err
	case model.KindScript:
		p, err := script.Open(sp.Model, script.Options{})
		return p, false, err
	case model.KindDemo:
		p, err := script.NewDemo(script.Options{})
		return p, true, err
	}
	return nil, false, fmt.Errorf("unknown provider %q", sp.Provider)
}

// env is a service with everything it runs on.
type env struct {
	st   *store.Store
	cage *sandbox.Cage
	mons *tools.Monitors
	svc  *runtime.Service
}

func (e *env) close() {
	_ = e.svc.Close()
	e.mons.Close()
	_ = e.cage.Close()
	_ = e.st.Close()
}

// openEnv opens the store, the engine (with the data folder protected), the
// cage and the built-in tools, and starts a service on them with cfg.
func openEnv(ctx context.Context, dbPath string, cfg runtime.Config) (*env, error) {
	explicit := dbPath != ""
	if dbPath == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return nil, err
		}
		dbPath = p
	}
	dbPath, err := filepath.Abs(dbPath)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o700); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	eng := policy.New(policy.Config{ProtectedPaths: protectedData(dbPath, explicit)})
	cage := sandbox.New(sandbox.Config{Protected: eng.ExtraProtected()})
	status := cage.Detect(ctx)
	mons := tools.NewMonitors(cage)
	reg, err := tools.Builtins(cage, mons, "")
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	cfg.Store, cfg.Engine, cfg.Tools = st, eng, reg
	cfg.Caged, cfg.CageReason, cfg.Version = cage.Caged, status.Reason, version
	cfg.OnSessionClose = append(cfg.OnSessionClose, func(id string) { mons.StopSession(id) })
	cfg.KillMonitor = func(sessionID, id string) error {
		_, err := mons.Stop(sessionID, id)
		return err
	}
	svc, err := runtime.New(ctx, cfg)
	if err != nil {
		mons.Close()
		_ = cage.Close()
		_ = st.Close()
		return nil, err
	}
	return &env{st: st, cage: cage, mons: mons, svc: svc}, nil
}

// protectedData is what no tool may write: Warden's data folder, or with
// an explicit --db only the database files, so a database kept next to (or
// inside) a workspace does not freeze the whole workspace.
func protectedData(dbPath string, explicit bool) []string {
	dir := filepath.Dir(dbPath)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if !explicit {
		return []string{dir}
	}
	base := filepath.Join(dir, filepath.Base(dbPath))
	return []string{base, base + "-wal", base + "-shm", base + "-journal"}
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
	go func() {
		time.Sleep(d)
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	}()
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
