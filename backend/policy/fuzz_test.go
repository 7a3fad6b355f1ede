package policy

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// destructiveSegments are appended to fuzzed prefixes: whatever comes
// before them, the script contains a destructive segment and must never be
// allowed by OnRequest or Always without a grant.
var destructiveSegments = []string{"rm -rf ~", "git push --force", "git reset --hard", "find . -delete",
	"dd if=/dev/zero of=x", "shred x", "git clean -fdx", "sudo ls", "chmod -R 777 ."}

func FuzzDecide(f *testing.F) {
	f.Add("ls && rm -rf ~", "/work/ws", uint8(0), uint8(0), false, false)
	f.Add("git push --force", "sub", uint8(1), uint8(2), true, true)
	f.Add("cat a | sudo tee /etc/x", "", uint8(2), uint8(1), true, false)
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	f.Fuzz(func(t *testing.T, cmd, cwd string, sb, ap uint8, caged, network bool) {
		s := Session{Workspace: ws, Sandbox: SandboxPolicy{Kind: SandboxKind(sb % 3), NetworkAccess: network},
			Approval: ApprovalPolicy(ap % 3), Caged: caged, Now: now}
		call := Call{Tool: "shell.exec", Effects: []Effect{{Kind: EffectExec, Command: cmd, Cwd: cwd}}}
		d1 := e.Decide(call, s)
		d2 := e.Decide(call, s)
		if !reflect.DeepEqual(d1, d2) {
			t.Fatalf("not deterministic for %q", cmd)
		}
		if d1.Verdict != VerdictAllow && d1.Verdict != VerdictAsk && d1.Verdict != VerdictDeny {
			t.Fatalf("verdict %q", d1.Verdict)
		}
		if s.Approval == Never {
			return
		}
		for _, seg := range destructiveSegments {
			full := cmd + "\n" + seg
			if swallows(cmd) {
				continue
			}
			call.Effects[0].Command = full
			if d := e.Decide(call, s); d.Verdict == VerdictAllow {
				t.Fatalf("%q allowed under %s/%s caged=%v", full, s.Sandbox.Kind, s.Approval, caged)
			}
		}
	})
}

// swallows reports prefixes that legitimately turn what follows into data:
// an open quote, heredoc, comment, or line continuation.
func swallows(prefix string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(prefix), "")
	return err != nil || strings.Contains(prefix, "<<") || strings.Contains(prefix, "#") || strings.HasSuffix(prefix, "\\") || f == nil
}

// FuzzParseNames checks the enum parsers: no panic, and whatever parses
// prints back to a form that parses to the same value.
func FuzzParseNames(f *testing.F) {
	for _, s := range []string{"never", "OnRequest", "read_only", "danger-full-access", "DestructiveEffect", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if a, err := ParseApprovalPolicy(s); err == nil {
			if b, err := ParseApprovalPolicy(a.String()); err != nil || b != a {
				t.Fatalf("approval %q -> %v -> %v %v", s, a, b, err)
			}
		}
		if k, err := ParseSandboxKind(s); err == nil {
			if b, err := ParseSandboxKind(k.String()); err != nil || b != k {
				t.Fatalf("sandbox %q -> %v -> %v %v", s, k, b, err)
			}
		}
		if r, err := ParseReason(s); err == nil {
			if b, err := ParseReason(string(r)); err != nil || b != r {
				t.Fatalf("reason %q -> %v -> %v %v", s, r, b, err)
			}
		}
	})
}
