package policy

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestLinksOnDisk decides shell commands whose paths pass through symbolic
// links already on disk (Effect.Links, as the shell tool finds them): the
// engine sees where the kernel will write, not the spelling.
func TestLinksOnDisk(t *testing.T) {
	data, err := os.ReadFile("testdata/links_decide.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{})
	n := 0
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var c struct {
			Name, Sandbox, Approval, Cmd, Want string
			Caged                              bool
			Links                              map[string]string
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("links_decide.jsonl:%d: %v", i+1, err)
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			kind, err := ParseSandboxKind(c.Sandbox)
			if err != nil {
				t.Fatal(err)
			}
			appr, err := ParseApprovalPolicy(c.Approval)
			if err != nil {
				t.Fatal(err)
			}
			s := Session{Workspace: "/work/ws", Approval: appr, Caged: c.Caged, Now: now, Sandbox: SandboxPolicy{Kind: kind}}
			d := e.Decide(Call{Tool: "shell.exec", Effects: []Effect{{Kind: EffectExec, Command: c.Cmd, Cwd: "/work/ws", Links: c.Links}}}, s)
			verdict, reason, _ := strings.Cut(c.Want, ":")
			ok := false
			switch verdict {
			case "allow":
				ok = d.Verdict == VerdictAllow
			case "deny":
				ok = d.Verdict == VerdictDeny && string(d.Reason) == reason
			case "ask":
				ok = d.Verdict == VerdictAsk && containsReason(d.Reasons, Reason(reason))
			}
			if !ok {
				t.Errorf("%q with %v: %s %v %s, want %s\n%s", c.Cmd, c.Links, d.Verdict, d.Reasons, d.Reason, c.Want, traceText(d))
			}
			// Without the links the same command looks like a workspace
			// write: the links are what the decision rests on.
			if c.Want != "allow" && !strings.Contains(c.Want, "destructive") {
				plain := e.Decide(Call{Tool: "shell.exec", Effects: []Effect{{Kind: EffectExec, Command: c.Cmd, Cwd: "/work/ws"}}}, s)
				if plain.Verdict == d.Verdict && plain.Reason == d.Reason && len(plain.Reasons) == len(d.Reasons) {
					t.Errorf("%q decides the same without its links (%s %v): the case does not test links", c.Cmd, plain.Verdict, plain.Reasons)
				}
			}
		})
	}
	if n < 10 {
		t.Errorf("only %d cases", n)
	}
}
