package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// engineGate is a gate over the real policy engine for one session.
func engineGate(t testing.TB, s policy.Session, ap Approver) (*Gate, *journal) {
	t.Helper()
	j := &journal{}
	g, err := New(Config{
		Decider:  policy.New(policy.Config{}),
		Approver: ap,
		Journal:  j,
		Session:  func(context.Context, tools.Env) (policy.Session, error) { return s, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return g, j
}

func TestGateWithTheEngine(t *testing.T) {
	cage := testCage(t)
	mons := tools.NewMonitors(cage)
	t.Cleanup(mons.Close)
	reg, err := tools.Builtins(cage, mons, "")
	if err != nil {
		t.Fatal(err)
	}
	multi := readFile(t, filepath.Join(toolsTestdata, "patch", "multi", "patch.diff"))
	modify := readFile(t, filepath.Join(toolsTestdata, "patch", "modify", "patch.diff"))
	tests := []struct {
		name     string
		sandbox  policy.SandboxKind
		approval policy.ApprovalPolicy
		planning bool
		approve  *answer
		tool     string
		args     func(ws, out string) any
		verdict  policy.Verdict
		reason   policy.Reason   // deny
		reasons  []policy.Reason // asked for
		check    func(t *testing.T, ws, out string)
	}{
		{name: "write inside runs", tool: "fs.write", args: func(ws, _ string) any { return map[string]string{"path": "a.txt", "content": "x"} },
			verdict: policy.VerdictAllow, check: fileIs("a.txt", "x")},
		{name: "write outside is a sandbox denial", tool: "fs.write",
			args:    func(_, out string) any { return map[string]string{"path": filepath.Join(out, "x"), "content": "x"} },
			verdict: policy.VerdictDeny, reason: policy.ReasonSandboxRejected, check: outsideEmpty},
		{name: "write through a symlink pointing outside is outside", tool: "fs.write",
			args: func(ws, out string) any {
				_ = os.Symlink(out, filepath.Join(ws, "link"))
				return map[string]string{"path": "link/x", "content": "x"}
			},
			verdict: policy.VerdictDeny, reason: policy.ReasonSandboxRejected, check: outsideEmpty},
		{name: "relative path escaping", tool: "patch.apply",
			args: func(ws, out string) any {
				return map[string]string{"patch": "--- /dev/null\n+++ b/../" + filepath.Base(out) + "/x\n@@ -0,0 +1 @@\n+x\n"}
			},
			verdict: policy.VerdictDeny, reason: policy.ReasonSandboxRejected, check: outsideEmpty},
		{name: "protected path asks, human approves", tool: "fs.write", approve: &answer{a: Approval{Approved: true}},
			args:    func(ws, _ string) any { return map[string]string{"path": ".envrc", "content": "export A=1\n"} },
			verdict: policy.VerdictAllow, reasons: []policy.Reason{policy.ReasonProtectedPath}, check: fileIs(".envrc", "export A=1\n")},
		{name: "protected path with nobody attached", tool: "fs.write",
			args:    func(ws, _ string) any { return map[string]string{"path": ".envrc", "content": "x"} },
			verdict: policy.VerdictDeny, reason: policy.ReasonNoApprover, check: absentIn(".envrc")},
		{name: "patch deleting a file asks", tool: "patch.apply", approve: &answer{a: Approval{Approved: false}},
			args:    func(ws, _ string) any { return map[string]string{"patch": multi} },
			verdict: policy.VerdictDeny, reason: policy.ReasonUserDenied, check: absentIn("added.txt")},
		{name: "patch without deletion runs", tool: "patch.apply",
			args:    func(ws, _ string) any { return map[string]string{"patch": modify} },
			verdict: policy.VerdictAllow, check: fileIs("lines.txt", readFile(t, filepath.Join(toolsTestdata, "patch", "modify", "after", "lines.txt")))},
		{name: "read-only refuses a write", sandbox: policy.ReadOnly, tool: "fs.write",
			args:    func(ws, _ string) any { return map[string]string{"path": "new.txt", "content": "x"} },
			verdict: policy.VerdictDeny, reason: policy.ReasonSandboxRejected, check: absentIn("new.txt")},
		{name: "planning freeze refuses a shell command", planning: true, tool: "shell.exec",
			args:    func(ws, _ string) any { return map[string]string{"command": "touch made"} },
			verdict: policy.VerdictDeny, reason: policy.ReasonPlanningFreeze, check: absentIn("made")},
		{name: "planning freeze still reads", planning: true, tool: "search.ripgrep",
			args: func(ws, _ string) any { return map[string]string{"pattern": "x"} }, verdict: policy.VerdictAllow},
		{name: "always asks even for a read", approval: policy.Always, tool: "fs.list",
			args: func(ws, _ string) any { return map[string]string{} }, verdict: policy.VerdictDeny, reason: policy.ReasonNoApprover},
		{name: "destructive shell command asks", tool: "shell.exec", approve: &answer{a: Approval{Approved: true, Always: true}},
			args:    func(ws, _ string) any { return map[string]string{"command": "rm -rf build"} },
			verdict: policy.VerdictAllow, reasons: []policy.Reason{policy.ReasonDestructiveEffect}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, out := workspace(t), workspace(t)
			copyTree(t, filepath.Join(toolsTestdata, "patch", "multi", "before"), ws)
			copyTree(t, filepath.Join(toolsTestdata, "patch", "modify", "before"), ws)
			s := policy.Session{Workspace: ws, Approval: tc.approval, Sandbox: policy.SandboxPolicy{Kind: tc.sandbox},
				Planning: tc.planning, Caged: cage.Caged(policy.SandboxPolicy{Kind: tc.sandbox})}
			var ap Approver
			if tc.approve != nil {
				ap = tc.approve
			}
			g, _ := engineGate(t, s, ap)
			tool, _ := reg.Get(tc.tool)
			o, err := callGate(g, context.Background(), tool, mustJSON(t, tc.args(ws, out)), tools.Env{SessionID: "s", Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			if o.Decision.Verdict != tc.verdict || o.Decision.Reason != tc.reason {
				t.Fatalf("decision %s/%s, want %s/%s; trace %+v; result %s", o.Decision.Verdict, o.Decision.Reason, tc.verdict, tc.reason, o.Decision.Trace, text(o.Result))
			}
			if tc.approve != nil && (len(tc.approve.asked) != 1 || (tc.reasons != nil && fmt.Sprint(tc.approve.asked[0].Reasons) != fmt.Sprint(tc.reasons))) {
				t.Fatalf("asked %+v, want reasons %v", tc.approve.asked, tc.reasons)
			}
			if tc.check != nil {
				tc.check(t, ws, out)
			}
		})
	}
}

func fileIs(name, want string) func(t *testing.T, ws, out string) {
	return func(t *testing.T, ws, _ string) {
		if got := readFile(t, filepath.Join(ws, name)); got != want {
			t.Fatalf("%s = %q, want %q", name, got, want)
		}
	}
}

func absentIn(name string) func(t *testing.T, ws, out string) {
	return func(t *testing.T, ws, _ string) {
		if exists(filepath.Join(ws, name)) {
			t.Fatalf("%s exists", name)
		}
	}
}

// outsideEmpty: nothing but the escape tests' victim file is outside.
func outsideEmpty(t *testing.T, _, out string) {
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		if e.Name() != "victim" {
			t.Fatalf("written outside the workspace: %s", e.Name())
		}
	}
}

// TestEscapesThroughTheGate runs escape attempts whose targets are built at
// run time, so the classifier cannot see them: the engine lets them through
// to the cage, and the cage must hold. Each asserts on the outside world.
func TestEscapesThroughTheGate(t *testing.T) {
	cage := testCage(t)
	sh := tools.NewShellExec(cage)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	hits := make(chan struct{}, 10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hits <- struct{}{}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	hidden := func(p string) string { return fmt.Sprintf(`"$(printf '%%s' '%s' | rev | rev)"`, p) }
	tests := []struct {
		name    string
		sandbox policy.SandboxKind
		script  func(ws, out string) string
		check   func(t *testing.T, ws, out string)
	}{
		{"write outside", policy.WorkspaceWrite, func(_, out string) string { return "echo x > " + hidden(out+"/f") }, outsideEmpty},
		{"through a symlink", policy.WorkspaceWrite, func(_, out string) string { return "ln -s " + hidden(out) + " l; echo x > l/f" }, outsideEmpty},
		{"through /proc/self/root", policy.WorkspaceWrite, func(_, out string) string { return "echo x > /proc/self/root" + hidden(out+"/f") }, outsideEmpty},
		{"via a hard link", policy.WorkspaceWrite, func(_, out string) string {
			return "ln " + hidden(out+"/victim") + " h; echo x >> h"
		}, func(t *testing.T, _, out string) {
			if readFile(t, filepath.Join(out, "victim")) != "orig" {
				t.Fatal("victim changed")
			}
		}},
		{"into .git/hooks", policy.WorkspaceWrite, func(string, string) string { return "echo x > " + hidden(".git/hooks/pre-commit") },
			absentIn(".git/hooks/pre-commit")},
		{"loopback listener with network off", policy.WorkspaceWrite, func(string, string) string {
			return fmt.Sprintf("exec 3<>/dev/tcp/$(printf 127.0.0.%%d 1)/%d", port)
		}, func(t *testing.T, _, _ string) {
			select {
			case <-hits:
				t.Fatal("the listener saw a connection")
			case <-time.After(200 * time.Millisecond):
			}
		}},
		{"survive as a background process", policy.WorkspaceWrite, func(string, string) string {
			return "(sleep 0.5; echo late > late) & disown; exit 0"
		}, func(t *testing.T, ws, _ string) {
			time.Sleep(1500 * time.Millisecond)
			absentIn("late")(t, ws, "")
		}},
		{"read-only: write the workspace", policy.ReadOnly, func(string, string) string { return `eval "$(printf 'echo x > inside')"` },
			absentIn("inside")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, out := workspace(t), workspace(t)
			gitInit(t, ws)
			writeFile(t, filepath.Join(out, "victim"), "orig")
			beforeOut := snapshot(t, out)
			pol := policy.SandboxPolicy{Kind: tc.sandbox}
			g, _ := engineGate(t, policy.Session{Workspace: ws, Sandbox: pol, Caged: cage.Caged(pol)}, nil)
			o, err := callGate(g, context.Background(), sh, mustJSON(t, map[string]string{"command": tc.script(ws, out)}), tools.Env{SessionID: "s", Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			if o.Decision.Verdict != policy.VerdictAllow || !o.Invoked {
				t.Fatalf("the engine stopped it (%s %s), so the cage was not tested", o.Decision.Verdict, o.Decision.Reason)
			}
			tc.check(t, ws, out)
			sameTree(t, snapshot(t, out), beforeOut)
			if strings.Contains(text(o.Result), "confined") {
				t.Log(text(o.Result))
			}
		})
	}
}

func TestShellResultCarriesTheCage(t *testing.T) {
	cage := testCage(t)
	ws := workspace(t)
	g, j := engineGate(t, policy.Session{Workspace: ws, Caged: true}, nil)
	o, err := callGate(g, context.Background(), tools.NewShellExec(cage), json.RawMessage(`{"command":"echo hi"}`), tools.Env{SessionID: "s", Workspace: ws})
	if err != nil || o.Decision.Source != "sandbox+policy" || !strings.Contains(string(o.Result.Structured), `"confined":true`) {
		t.Fatalf("%+v %v", o, err)
	}
	if j.types() != "PermissionGranted,ToolInvocationStarted,ToolInvocationCompleted" {
		t.Fatalf("events %s", j.types())
	}
}
