//go:build !wardenslim

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/termtext"
	"github.com/warden-dev/warden/backend/tools"
)

func policyCommand() command {
	return command{
		name:    "policy",
		summary: "explain decisions and rules: 'policy check' reads tool calls as JSON lines; 'policy test', 'policy show'",
		run:     runPolicy,
	}
}

func runPolicy(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := io.out
		code := 0
		if len(args) == 0 {
			w, code = io.err, 2
		}
		fmt.Fprintln(w, "Usage: warden policy check [flags] < calls.jsonl")
		fmt.Fprintln(w, "       warden policy test [FILE...]   run every rule's examples (default: every tier's rules)")
		fmt.Fprintln(w, "       warden policy show [--workspace DIR] [--json]   the effective policy of all tiers, with where each value came from")
		fmt.Fprintln(w, "\nReads one tool call per line, {\"tool\": \"shell.exec\", \"args\": {\"command\": \"...\"}},")
		fmt.Fprintln(w, "and prints what the permission engine decides and why: the registered tool states the call's")
		fmt.Fprintln(w, "effects, exactly as in the gate, so a tool the runtime does not have, or arguments it refuses,")
		fmt.Fprintln(w, "are errors. MCP tools are those of the configured servers that start. Run 'warden policy check --help' for flags.")
		return code
	}
	switch args[0] {
	case "check":
		return runPolicyCheck(ctx, args[1:], io)
	case "test":
		return runPolicyTest(args[1:], io)
	case "show":
		return runPolicyShow(ctx, args[1:], io)
	}
	fmt.Fprintf(io.err, "warden policy: unknown subcommand %q (want: check, test, show)\n", args[0])
	return 2
}

// checkFlags are the axes and facts `policy check` decides under.
type checkFlags struct {
	axisFlags
	format, db string
	trusted    multiFlag
}

func runPolicyCheck(ctx context.Context, args []string, io stdio) int {
	var f checkFlags
	fs := flag.NewFlagSet("warden policy check", flag.ContinueOnError)
	fs.SetOutput(io.err)
	f.register(fs, "decide as if the session were in the planning freeze")
	fs.Var(&f.trusted, "trust-mcp", "treat MCP `server` as trusted (repeatable)")
	fs.StringVar(&f.format, "format", "json", "output: json (one object per line) or text")
	fs.StringVar(&f.db, "db", "", "the store `file` whose MCP trust applies (default $WARDEN_DB, else $XDG_DATA_HOME/warden/warden.db)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "warden policy check: unexpected argument %q (calls are read from stdin)\n", fs.Arg(0))
		return 2
	}
	s, err := f.axisFlags.session()
	if err == nil {
		err = f.checkCaged()
	}
	if err != nil {
		fmt.Fprintf(io.err, "warden policy check: %v\n", err)
		return 2
	}
	if f.format != "json" && f.format != "text" {
		fmt.Fprintf(io.err, "warden policy check: unknown format %q (valid: json, text)\n", f.format)
		return 2
	}
	// The same graph as `warden tool`, `run` and `serve`: the registered
	// tools state the effects, the graph's engine decides, so the answer is
	// the gate's. No model is needed to explain a call.
	g, err := assemble.Open(ctx, assemble.Options{DBPath: f.db, Workspace: s.Workspace, Headless: true, NoModel: true, LeaveSessions: true, Version: version})
	if err != nil {
		fmt.Fprintf(io.err, "warden policy check: %v\n", err)
		return 1
	}
	defer g.Close()
	if err := f.settleOrg(&s, g.Engine.Org()); err != nil {
		fmt.Fprintf(io.err, "warden policy check: %v\n", err)
		return 1
	}
	if err := f.settleCaged(&s, g); err != nil {
		fmt.Fprintf(io.err, "warden policy check: %v\n", err)
		return 2
	}
	// A new session of the workspace starts with its persistent grants
	// (the "always for this workspace" answers), as `warden tool` does.
	if s.Rules, err = g.WorkspaceRules(s.Workspace); err != nil {
		fmt.Fprintf(io.err, "warden policy check: %v\n", err)
		return 1
	}
	if s.Grants, err = workspaceGrants(ctx, g, s); err != nil {
		fmt.Fprintf(io.err, "warden policy check: %v\n", err)
		return 1
	}
	return checkLines(io.in, io.out, g, s, f)
}

// workspaceGrants are the active workspace-scoped grants of s.Workspace;
// a workspace the store has never seen has none.
func workspaceGrants(ctx context.Context, g *assemble.Graph, s policy.Session) ([]policy.Grant, error) {
	ws, err := g.Store.Workspace(ctx, s.Workspace)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	recs, err := g.Store.Grants(ctx, store.GrantFilter{WorkspaceID: ws.ID})
	if err != nil {
		return nil, err
	}
	return store.PolicyGrantsCapped(recs, s.Now, g.MaxGrant()), nil
}

// checkResult is one output line.
type checkResult struct {
	Decision  policy.Verdict   `json:"decision"`
	Reasons   []policy.Reason  `json:"reasons"`
	Signature string           `json:"signature"`
	Source    string           `json:"source,omitempty"`
	Detail    string           `json:"detail,omitempty"`
	Remedy    string           `json:"remedy,omitempty"`
	Effects   []policy.Effect  `json:"effects"`
	Shell     []shellClassJSON `json:"shell,omitempty"`
	// Cage is the cage a command runs in as decided, HumanCage the one a
	// human's yes to the ask gives (policy.Decision): what the gate hands
	// the tool.
	Cage      *policy.Cage  `json:"cage,omitempty"`
	HumanCage *policy.Cage  `json:"human_cage,omitempty"`
	Trace     []policy.Step `json:"trace"`
	// Layer is what decided (org, rule, sandbox...) and LayerDetail names
	// it: a rule's tier and file:line, the organisation policy's digest.
	Layer       policy.Layer `json:"layer"`
	LayerDetail string       `json:"layer_detail,omitempty"`
}

type shellClassJSON struct {
	Command string `json:"command"`
	policy.Classification
}

func checkLines(in io.Reader, out io.Writer, g *assemble.Graph, s policy.Session, f checkFlags) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 8<<20)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if f.format == "text" {
		tw := termtext.NewWriter(out)
		defer tw.Flush()
		out = tw
	}
	status := 0
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		res, raw, err := checkOne(line, g, s, f)
		if err != nil {
			status = 2
			if f.format == "text" {
				fmt.Fprintf(out, "line %d: error: %v\n\n", n, err)
			} else {
				_ = enc.Encode(map[string]string{"error": fmt.Sprintf("line %d: %v", n, err)})
			}
			continue
		}
		if f.format == "text" {
			writeText(out, raw, res)
		} else if err := enc.Encode(res); err != nil {
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "%s\n", mustJSON(map[string]string{"error": "reading stdin: " + err.Error()}))
		return 2
	}
	return status
}

type callLine struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// checkOne decides one line the way the gate decides a call (gate.Run):
// the graph's gate prepares the call (the registered tool states the
// effects of the arguments against the session's workspace and sandbox)
// and decides it, recording nothing.
func checkOne(line string, g *assemble.Graph, s policy.Session, f checkFlags) (checkResult, callLine, error) {
	var c callLine
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return checkResult{}, c, fmt.Errorf("not a tool call object: %w", err)
	}
	if c.Tool == "" {
		return checkResult{}, c, errors.New(`missing "tool"`)
	}
	t, ok := g.Tool(c.Tool)
	if !ok {
		return checkResult{}, c, fmt.Errorf("unknown tool %q: the gate refuses it before any decision (known: %s)", c.Tool, strings.Join(g.ToolNames(), ", "))
	}
	args := c.Args
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	p, err := g.Gate.Prepare(context.Background(), gate.Request{Tool: t, Args: args,
		Env:     tools.Env{Workspace: s.Workspace, Sandbox: s.Sandbox},
		Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil }})
	if err != nil {
		return checkResult{}, c, err
	}
	if p.Err != nil {
		return checkResult{}, c, fmt.Errorf("%s: invalid arguments: %w", t.Name(), p.Err)
	}
	effects := p.Effects
	for i := range effects {
		if effects[i].Kind == policy.EffectMcp {
			for _, t := range f.trusted {
				effects[i].Trusted = effects[i].Trusted || t == effects[i].Server
			}
		}
	}
	d := g.Gate.Decide(p)
	res := checkResult{Decision: d.Verdict, Reasons: d.Reasons, Signature: d.Signature, Source: d.Source,
		Detail: d.Detail, Remedy: d.Remedy, Effects: effects, Trace: d.Trace, Cage: d.Cage, HumanCage: d.HumanCage,
		Layer: d.Layer, LayerDetail: d.LayerDetail}
	if d.Verdict == policy.VerdictDeny {
		res.Reasons = []policy.Reason{d.Reason}
	}
	if res.Reasons == nil {
		res.Reasons = []policy.Reason{}
	}
	if res.Effects == nil {
		res.Effects = []policy.Effect{}
	}
	for _, e := range effects {
		if e.Kind == policy.EffectExec {
			res.Shell = append(res.Shell, shellClassJSON{Command: e.Command, Classification: policy.ClassifyShellWith(e.Command, e.Cwd, e.Links)})
		}
	}
	return res, c, nil
}

func writeText(w io.Writer, c callLine, r checkResult) {
	fmt.Fprintf(w, "%s %s\n", c.Tool, compactJSON(c.Args))
	verdict := strings.ToUpper(string(r.Decision))
	switch r.Decision {
	case policy.VerdictAllow:
		fmt.Fprintf(w, "  %s (by %s)\n", verdict, r.Source)
	case policy.VerdictAsk:
		fmt.Fprintf(w, "  %s because %s\n", verdict, joinReasons(r.Reasons))
	case policy.VerdictDeny:
		fmt.Fprintf(w, "  %s: %s: %s\n  remedy: %s\n", verdict, joinReasons(r.Reasons), r.Detail, r.Remedy)
	}
	fmt.Fprintf(w, "  signature: %s\n", r.Signature)
	if r.LayerDetail != "" {
		fmt.Fprintf(w, "  layer: %s (%s)\n", r.Layer, r.LayerDetail)
	} else {
		fmt.Fprintf(w, "  layer: %s\n", r.Layer)
	}
	if r.Cage != nil {
		fmt.Fprintf(w, "  cage: %s\n", r.Cage)
	}
	if r.HumanCage != nil {
		fmt.Fprintf(w, "  cage if a human approves: %s\n", r.HumanCage)
	}
	for _, sc := range r.Shell {
		fmt.Fprintf(w, "  shell: %s, %d segment(s)", sc.Class, sc.Segments)
		for _, why := range append(append([]string{}, sc.Destructive...), sc.Unknown...) {
			fmt.Fprintf(w, "; %s", why)
		}
		if len(sc.Writes) > 0 {
			fmt.Fprintf(w, "; writes %s", strings.Join(sc.Writes, " "))
		}
		if len(sc.Hosts) > 0 {
			fmt.Fprintf(w, "; hosts %s", strings.Join(sc.Hosts, " "))
		}
		fmt.Fprintln(w)
	}
	for _, st := range r.Trace {
		fmt.Fprintf(w, "  %-10s %s => %s\n", st.Step, st.Saw, st.Concluded)
	}
	fmt.Fprintln(w)
}

func joinReasons(rs []policy.Reason) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = string(r)
	}
	return strings.Join(parts, ", ")
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
