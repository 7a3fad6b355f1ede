package policy

import (
	"fmt"
	"testing"
)

// The target of issue 33: a decision with 200 rules loaded costs at most
// twice one without. Each call kind is measured with no rules and with 200
// (command, path and host rules of every decision, a fifth of them on
// programs the calls run), side by side; bench/run.sh prints the ratios.

// benchRules are n rules as an organisation and a user would write them.
func benchRules(n int) *RuleSet {
	progs := []string{"git", "rm", "docker", "curl", "npm", "make", "kubectl", "terraform", "ssh", "scp"}
	var rules []Rule
	for i := 0; len(rules) < n; i++ {
		tier := TierOrg
		if i%2 == 1 {
			tier = TierUser
		}
		dec := []Verdict{VerdictDeny, VerdictAsk, VerdictAllow}[i%3]
		r := Rule{Tier: tier, File: "/etc/warden/policy.toml", Line: i + 1, Decision: dec, Why: "bench"}
		switch i % 4 {
		case 0:
			if i%5 == 0 {
				r.Command = []string{progs[i%len(progs)], fmt.Sprintf("sub%d", i)}
			} else {
				r.Command = []string{fmt.Sprintf("tool%d", i), "run"}
			}
			r.Examples = []string{r.Command[0] + " " + r.Command[1]}
		case 1:
			r.Paths = []string{fmt.Sprintf("secrets%d/**", i), fmt.Sprintf("*.key%d", i)}
			r.Examples = []string{fmt.Sprintf("secrets%d/a", i)}
		case 2:
			r.Hosts = []HostPattern{{Raw: fmt.Sprintf("*.corp%d.example", i), Host: fmt.Sprintf("*.corp%d.example", i)}}
			r.Examples = []string{fmt.Sprintf("a.corp%d.example", i)}
		case 3:
			r.Tool = fmt.Sprintf("mcp-tool:srv%d/*", i)
			r.Examples = []string{fmt.Sprintf("mcp-tool:srv%d/x", i)}
		}
		rules = append(rules, r)
	}
	rs, err := CompileRules(rules)
	if err != nil {
		panic(err)
	}
	return rs
}

func BenchmarkDecideRules(b *testing.B) {
	calls := []struct {
		name string
		call Call
		s    Session
	}{
		{"compound-shell", shell("git status --short | grep -v '^??' > /tmp/changed.txt; rg -n deprecated . | wc -l && ls -la"), session(WorkspaceWrite, OnRequest)},
		{"git-push", shell("git -C sub push origin main"), func() Session { s := session(WorkspaceWrite, OnRequest); s.Sandbox.NetworkAccess = true; return s }()},
		{"fs-write", Call{Tool: "fs.write", Effects: []Effect{{Kind: EffectWrite, Paths: []string{ws + "/src/main.go"}}}}, session(WorkspaceWrite, OnRequest)},
		{"network", NetworkCall(Destination{Host: "registry.npmjs.org", Port: 443}), func() Session { s := session(WorkspaceWrite, OnRequest); s.Sandbox.NetworkAccess = true; return s }()},
		{"fs-read", fsRead(ws + "/src/main.go"), session(WorkspaceWrite, OnRequest)},
	}
	org := &Org{File: "/etc/warden/policy.toml", Digest: "sha256:00", UserAllow: true}
	for _, c := range calls {
		for _, n := range []int{0, 200} {
			cfg := Config{ProtectedPaths: []string{"/home/me/.config/warden"}}
			if n > 0 {
				cfg.Org, cfg.Rules = org, benchRules(n)
			}
			e := New(cfg)
			b.Run(fmt.Sprintf("%s/rules=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				reportCPU(b, func() { e.Decide(c.call, c.s) })
			})
		}
	}
}
