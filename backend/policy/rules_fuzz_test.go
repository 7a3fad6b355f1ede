package policy_test

import (
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// wrappers run CMD; every spelling must stay git push for the rules.
var wrappers = []string{"CMD", "command CMD", "builtin CMD", "exec CMD", "nohup CMD", "nice -n 3 CMD", "timeout 5 CMD",
	"env A=1 CMD", "sudo CMD", "echo x | xargs CMD", "time CMD", "bash -c 'CMD'", "sh -c 'CMD'", "eval 'CMD'",
	"true && CMD", "false || CMD", "(CMD)", "{ CMD; }", "echo $(CMD)", "x=$(CMD)", "/usr/bin/env CMD", "if true; then CMD; fi",
	"for i in 1; do CMD; done", "CMD &", "! CMD", "CMD > /dev/null 2>&1", "stdbuf -o0 CMD", "ionice -c3 CMD",
	"find . -maxdepth 0 -exec CMD \\;", "watch -n 1 CMD", "setsid CMD", "doas CMD", "bash -lc 'CMD'", "zsh -c 'CMD'"}

// FuzzRuleMatch decides arbitrary commands under the test tiers: no
// panic, the same answer twice, a rule never turns a sandbox denial into
// anything else, and a command the org's deny rule names is never allowed
// however it is wrapped.
func FuzzRuleMatch(f *testing.F) {
	for _, c := range readRuleCases(f) {
		if c.Call.Command != "" {
			f.Add(c.Call.Command, uint8(0))
		}
	}
	for i := range wrappers {
		f.Add("git status", uint8(i))
	}
	e, ws := tiersEngine(f, "org,user,ws")
	plain := policy.New(policy.Config{})
	f.Fuzz(func(t *testing.T, command string, which uint8) {
		if len(command) > 2000 {
			return
		}
		wrapper := wrappers[int(which)%len(wrappers)]
		s := policy.Session{Workspace: ruleWS, Caged: true, Rules: ws,
			Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}}
		call := policy.Call{Tool: "shell.exec", Effects: []policy.Effect{{Kind: policy.EffectExec, Command: command, Cwd: ruleWS}}}
		d := e.Decide(call, s)
		if d2 := e.Decide(call, s); d2.Verdict != d.Verdict || d2.Reason != d.Reason || d2.Layer != d.Layer {
			t.Fatalf("two answers for %q: %v/%v", command, d.Verdict, d2.Verdict)
		}
		base := plain.Decide(call, policy.Session{Workspace: ruleWS, Caged: true, Sandbox: s.Sandbox})
		if base.Verdict == policy.VerdictDeny && (base.Reason == policy.ReasonSandboxRejected) && d.Verdict != policy.VerdictDeny {
			t.Fatalf("a rule widened the sandbox for %q: %v", command, d.Verdict)
		}
		// The org denies git push: wrapped in a known wrapper it stays denied.
		{
			wrapped := strings.ReplaceAll(wrapper, "CMD", "git push origin main")
			wc := policy.Call{Tool: "shell.exec", Effects: []policy.Effect{{Kind: policy.EffectExec, Command: wrapped, Cwd: ruleWS}}}
			if d := e.Decide(wc, s); d.Verdict == policy.VerdictAllow {
				t.Fatalf("%q is allowed although the org denies git push", wrapped)
			}
		}
	})
}

// FuzzRuleGlob matches arbitrary paths against arbitrary globs: no panic,
// and a pattern always covers what lies under a path it matches.
func FuzzRuleGlob(f *testing.F) {
	for _, seed := range [][2]string{{"secrets/**", "secrets/a/b"}, {"*.pem", "x/y.pem"}, {"docs/", "docs/a.md"},
		{"/etc/**", "/etc/passwd"}, {"~/.ssh/**", "~/.ssh/id"}, {"a/**/b/*.go", "a/x/y/b/c.go"}, {"[a-", "x"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		if len(pattern) > 200 || len(p) > 400 {
			return
		}
		rules, err := policy.CompileRules([]policy.Rule{{Tier: policy.TierUser, File: "f", Line: 1, Paths: []string{pattern},
			Decision: policy.VerdictDeny, Why: "w", Examples: []string{p}}})
		if err != nil {
			return
		}
		matched := len(rules.CheckExamples()) == 0
		if matched && !strings.HasSuffix(p, "/") {
			below, _ := policy.CompileRules([]policy.Rule{{Tier: policy.TierUser, File: "f", Line: 1, Paths: []string{pattern},
				Decision: policy.VerdictDeny, Why: "w", Examples: []string{p + "/below"}}})
			if below != nil && len(below.CheckExamples()) != 0 && !strings.Contains(p, "..") && !strings.HasSuffix(p, "/.") {
				t.Fatalf("%q matches %q but not what lies under it", pattern, p)
			}
		}
	})
}
