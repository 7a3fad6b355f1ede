package policy

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestRedTeamDecisions holds the engine to the classes at the
// decision level: which reason is asked, what is denied, what runs.
func TestRedTeamDecisions(t *testing.T) {
	f, err := os.Open("testdata/redteam_decide.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	perClass := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 9 {
			t.Fatalf("redteam_decide.tsv:%d: want 9 columns, got %d", n, len(p))
		}
		class, name, sb, ap, caged, network, workspace, cmd, want := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]
		perClass[class]++
		t.Run(class+"/"+name, func(t *testing.T) {
			kind, err := ParseSandboxKind(sb)
			if err != nil {
				t.Fatal(err)
			}
			appr, err := ParseApprovalPolicy(ap)
			if err != nil {
				t.Fatal(err)
			}
			// caged "proxied": in the cage, network only through Warden's proxy.
			s := Session{Workspace: workspace, Approval: appr, Caged: caged == "true" || caged == "proxied",
				NetworkProxied: caged == "proxied", Now: now,
				Sandbox: SandboxPolicy{Kind: kind, NetworkAccess: network == "true"}}
			call := Call{Tool: "shell.exec", Effects: []Effect{{Kind: EffectExec, Command: cmd, Cwd: workspace}}}
			if path, ok := strings.CutPrefix(cmd, "fs.write:"); ok {
				call = fsWrite(path)
			}
			d := e.Decide(call, s)
			verdict, reason, _ := strings.Cut(want, ":")
			ok := false
			switch verdict {
			case "allow":
				ok = d.Verdict == VerdictAllow
			case "!allow":
				ok = d.Verdict != VerdictAllow
			case "deny":
				ok = d.Verdict == VerdictDeny && string(d.Reason) == reason
			case "ask":
				ok = d.Verdict == VerdictAsk && containsReason(d.Reasons, Reason(reason))
			default:
				t.Fatalf("bad want %q", want)
			}
			if !ok {
				t.Errorf("%q: %s %v %s, want %s\n%s", cmd, d.Verdict, d.Reasons, d.Reason, want, traceText(d))
			}
		})
	}
	for _, cl := range []string{"5", "6", "7", "8", "31"} {
		if perClass[cl] < 15 {
			t.Errorf("class %s has %d decision cases, want at least 15", cl, perClass[cl])
		}
	}
}

func containsReason(rs []Reason, r Reason) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
