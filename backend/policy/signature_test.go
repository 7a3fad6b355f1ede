package policy

import (
	"os"
	"strings"
	"testing"
)

func TestShellSignatures(t *testing.T) {
	data, err := os.ReadFile("testdata/signatures.tsv")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		want, cmd, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("signatures.tsv:%d: want signature<TAB>command", i+1)
		}
		n++
		if got := SignatureOf(shell(cmd)); got != want {
			t.Errorf("signatures.tsv:%d: %q: signature %q, want %q", i+1, cmd, got, want)
		}
	}
	if n < 30 {
		t.Errorf("only %d signature cases", n)
	}
}

func TestToolSignatures(t *testing.T) {
	cases := []struct {
		name string
		call Call
		want string
	}{
		{"browser-navigate", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "navigate", Origin: "https://example.com:443"}}}, "browser:navigate:https://example.com:443"},
		{"browser-click", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "click", Origin: "https://example.com:443"}}}, "browser:click"},
		{"mcp", mcpCall("github", "create_issue", false, false), "mcp-tool:github/create_issue"},
		{"mcp-wins-over-exec", Call{Tool: "mcp-tool:x/run", Effects: []Effect{{Kind: EffectExec, Command: "ls"}, {Kind: EffectMcp, Server: "x", Tool: "run"}}}, "mcp-tool:x/run"},
		{"fs.read", fsRead("/a"), "fs.read"},
		{"fs.write", fsWrite("/a"), "fs.write"},
		{"no-effects", Call{Tool: "task"}, "task"},
		{"monitor-command", Call{Tool: "monitor.start", Effects: []Effect{{Kind: EffectExec, Command: "npm run dev"}}}, "shell:npm run dev"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := SignatureOf(c.call); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
			// Decide reports the same signature.
			if d := New(Config{}).Decide(c.call, session(DangerFullAccess, Always)); d.Signature != c.want {
				t.Errorf("Decide signature %q, want %q", d.Signature, c.want)
			}
		})
	}
}
