package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// call is one kind of tool call an agent makes in a working session, with
// what it prints when it runs.
type call struct {
	weight  int
	tool    string
	args    string
	effects []policy.Effect
	output  []string // ToolOutput chunks
	fails   bool     // the tool returns an error instead of completing
}

// calls is a coding session's mix: mostly reads, some writes and tests, a
// few destructive, network and MCP calls that the gate asks or refuses.
func calls(ws string) []call {
	p := func(rel string) string { return filepath.Join(ws, rel) }
	return []call{
		{weight: 20, tool: "fs.read", args: `{"path":"src/app.ts"}`,
			effects: []policy.Effect{{Kind: policy.EffectRead, Paths: []string{p("src/app.ts")}}}},
		{weight: 10, tool: "fs.list", args: `{"path":"src/components"}`,
			effects: []policy.Effect{{Kind: policy.EffectRead, Paths: []string{p("src/components")}}}},
		{weight: 10, tool: "search.ripgrep", args: `{"pattern":"deprecated","path":"src"}`,
			effects: []policy.Effect{{Kind: policy.EffectRead, Paths: []string{p("src")}}}},
		{weight: 12, tool: "fs.write", args: `{"path":"src/components/Button.vue","content":"<template><button><slot /></button></template>\n"}`,
			effects: []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{p("src/components/Button.vue")}}}},
		{weight: 8, tool: "patch.apply", args: `{"patch":"--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-const n = 1\n+const n = 2\n"}`,
			effects: []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{p("src/app.ts")}}}},
		{weight: 10, tool: "shell.exec", args: `{"command":"npm test"}`,
			effects: []policy.Effect{{Kind: policy.EffectExec, Command: "npm test", Cwd: ws}},
			output:  []string{"> app@1.0.0 test\n> vitest run\n", " ✓ src/app.test.ts (12 tests) 41ms\n", " Test Files  1 passed (1)\n      Tests  12 passed (12)\n"}},
		{weight: 6, tool: "shell.exec", args: `{"command":"git status --short"}`,
			effects: []policy.Effect{{Kind: policy.EffectExec, Command: "git status --short", Cwd: ws}},
			output:  []string{" M src/app.ts\n?? src/components/Button.vue\n"}},
		{weight: 3, tool: "shell.exec", args: `{"command":"npm run lint"}`, fails: true,
			effects: []policy.Effect{{Kind: policy.EffectExec, Command: "npm run lint", Cwd: ws}},
			output:  []string{"src/app.ts\n  14:7  error  'n' is assigned a value but never used  no-unused-vars\n"}},
		{weight: 3, tool: "shell.exec", args: `{"command":"rm -rf dist build"}`,
			effects: []policy.Effect{{Kind: policy.EffectDestructive, Paths: []string{p("dist"), p("build")}, Why: "removes files recursively"},
				{Kind: policy.EffectExec, Command: "rm -rf dist build", Cwd: ws}}},
		{weight: 3, tool: "shell.exec", args: `{"command":"curl -sSf https://registry.npmjs.org/vue/latest"}`,
			effects: []policy.Effect{{Kind: policy.EffectNetwork, Hosts: []string{"registry.npmjs.org"}},
				{Kind: policy.EffectExec, Command: "curl -sSf https://registry.npmjs.org/vue/latest", Cwd: ws}}},
		{weight: 2, tool: "fs.write", args: `{"path":"/etc/hosts","content":"127.0.0.1 api.local\n"}`,
			effects: []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{"/etc/hosts"}}}},
		{weight: 2, tool: "fs.write", args: `{"path":".git/hooks/pre-commit","content":"#!/bin/sh\nnpm test\n"}`,
			effects: []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{p(".git/hooks/pre-commit")}}}},
		{weight: 4, tool: "browser.action", args: `{"action":"navigate","url":"http://localhost:5173/"}`,
			effects: []policy.Effect{{Kind: policy.EffectBrowser, Action: "navigate", Origin: "http://localhost:5173"}}},
		{weight: 2, tool: "mcp-tool:github/create_issue", args: `{"repo":"acme/app","title":"Button loses focus ring"}`,
			effects: []policy.Effect{{Kind: policy.EffectMcp, Server: "github", Tool: "create_issue"}}},
		{weight: 5, tool: "mcp-tool:filesystem/read_text_file", args: `{"path":"README.md"}`,
			effects: []policy.Effect{{Kind: policy.EffectMcp, Server: "filesystem", Tool: "read_text_file", ReadOnlyHint: true, Trusted: true}}},
	}
}

// mix produces a session's events call by call. Decisions come from the
// real policy engine, so signatures, reasons and traces are the ones the
// gate writes; the human's answers and the tools' outcomes are drawn from a
// seeded generator, so a seed always gives the same log.
type mix struct {
	calls     []call
	decisions []policy.Decision
	total     int
	rng       *rand.Rand
	n         int
	granted   map[string]bool // signatures a human allowed for the session
}

func newMix(ws string, seed uint64) *mix {
	m := &mix{calls: calls(ws), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		granted: map[string]bool{}}
	eng := policy.New(policy.Config{})
	sess := policy.Session{Workspace: ws, Approval: policy.OnRequest, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, Caged: true}
	for _, c := range m.calls {
		m.decisions = append(m.decisions, eng.Decide(policy.Call{Tool: c.tool, Effects: c.effects}, sess))
		m.total += c.weight
	}
	return m
}

func (m *mix) pick() int {
	r := m.rng.IntN(m.total)
	for i, c := range m.calls {
		if r < c.weight {
			return i
		}
		r -= c.weight
	}
	return len(m.calls) - 1
}

// next returns the events of one more call, in the order the runtime
// writes them, and now and then the assistant's message between calls.
func (m *mix) next() []store.Event {
	m.n++
	i := m.pick()
	c, d := m.calls[i], m.decisions[i]
	callID := fmt.Sprintf("toolu_%07d", m.n)
	reqID := fmt.Sprintf("req_%07d", m.n)
	args := json.RawMessage(c.args)
	var out []store.Event
	if m.n%4 == 0 {
		out = append(out, store.MessageAppended{Role: "assistant", Model: "claude-sonnet-4-5",
			Text: fmt.Sprintf("Step %d: I checked the result and will continue with the next change.", m.n)})
	}
	run := func(source string) {
		out = append(out, store.PermissionGranted{RequestID: reqID, CallID: callID, Tool: c.tool, Signature: d.Signature,
			Source: source, Trace: d.Trace})
		out = append(out, store.ToolInvocationStarted{CallID: callID, Tool: c.tool, Args: args})
		for _, chunk := range c.output {
			out = append(out, store.ToolOutput{CallID: callID, Stream: "stdout", Chunk: chunk})
		}
		ms := int64(20 + m.rng.IntN(3000))
		if c.fails {
			out = append(out, store.ToolInvocationFailed{CallID: callID, Tool: c.tool, Error: "exit status 2", DurationMs: ms})
			return
		}
		code := 0
		out = append(out, store.ToolInvocationCompleted{CallID: callID, Tool: c.tool, Output: "ok", ExitCode: &code, DurationMs: ms})
	}
	switch {
	case d.Verdict == policy.VerdictAllow:
		run(d.Source)
	case d.Verdict == policy.VerdictAsk && m.granted[d.Signature]:
		run("session-grant:" + d.Signature)
	case d.Verdict == policy.VerdictAsk:
		risk := policy.RiskMedium
		for _, ef := range c.effects {
			if ef.Kind == policy.EffectDestructive {
				risk = policy.RiskHigh
			}
		}
		out = append(out, store.PermissionRequested{RequestID: reqID, CallID: callID, Tool: c.tool, Args: args, Risk: risk,
			Reasons: d.Reasons, Signature: d.Signature, Effects: c.effects, Trace: d.Trace})
		// A human denies one ask in four, allows most once, and now and
		// then for the rest of the session, after which the grant answers.
		switch r := m.rng.IntN(20); {
		case r < 5:
			out = append(out, store.PermissionDenied{RequestID: reqID, CallID: callID, Tool: c.tool, Signature: d.Signature,
				Reason: policy.ReasonUserDenied, Detail: "the user refused this call", By: store.DeniedByUser, Trace: d.Trace})
		case r == 5:
			m.granted[d.Signature] = true
			run("human:always")
			out = append(out, store.GrantAdded{RequestID: reqID, Grant: policy.Grant{ID: fmt.Sprintf("grant_%07d", m.n),
				Signature: d.Signature, Scope: policy.ScopeSession, Reasons: d.Reasons}})
		default:
			run("human:once")
		}
	default:
		out = append(out, store.PermissionDenied{RequestID: reqID, CallID: callID, Tool: c.tool, Signature: d.Signature,
			Reason: d.Reason, Detail: d.Detail, Remedy: d.Remedy, By: store.DeniedBySandbox, Trace: d.Trace})
	}
	return out
}

// listed are the kinds the audit view lists (frontend/src/model/audit.ts):
// the permission audit and the tool invocations.
var listed = map[store.Kind]bool{
	store.KindPermissionRequested: true, store.KindPermissionGranted: true, store.KindPermissionDenied: true,
	store.KindToolInvocationStarted: true, store.KindToolInvocationCompleted: true, store.KindToolInvocationFailed: true,
	store.KindApprovalPolicyChanged: true, store.KindSandboxPolicyChanged: true, store.KindPlanningEntered: true,
	store.KindPlanningExited: true, store.KindGrantAdded: true, store.KindGrantRevoked: true,
	store.KindMcpServerTrusted: true, store.KindMcpServerUntrusted: true,
}
