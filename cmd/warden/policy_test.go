//go:build !wardenslim

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

func runCheck(t *testing.T, input string, args ...string) (int, string, string) {
	t.Helper()
	isolateHome(t)
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"policy", "check"}, args...), stdio{in: strings.NewReader(input), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestPolicyCheckDecisions(t *testing.T) {
	ws := t.TempDir()
	cases := []struct {
		name    string
		line    string
		flags   []string
		want    string
		reasons string
		sig     string
	}{
		{"read", `{"tool":"fs.read","args":{"path":"a.go"}}`, nil, "allow", "", "fs.read"},
		{"compound rm", `{"tool":"shell.exec","args":{"command":"ls && rm -rf build"}}`, nil, "ask", "destructive-effect", "shell=ls && rm -rf build"},
		{"home rm is outside", `{"tool":"shell.exec","args":{"command":"ls && rm -rf ~"}}`, nil, "deny", "sandbox-rejected", ""},
		{"network off", `{"tool":"shell.exec","args":{"command":"curl https://example.com"}}`, nil, "deny", "sandbox-rejected", ""},
		{"network on, proxied cage", `{"tool":"shell.exec","args":{"command":"curl https://example.com"}}`, []string{"--network", "--caged", "true"}, "allow", "", ""},
		{"network on, no cage", `{"tool":"shell.exec","args":{"command":"curl https://example.com"}}`, []string{"--network", "--caged", "false"}, "ask", "network-request", ""},
		{"read-only sandbox", `{"tool":"fs.write","args":{"path":"a.go","content":""}}`, []string{"--sandbox", "read-only"}, "deny", "sandbox-rejected", ""},
		{"always", `{"tool":"fs.read","args":{"path":"a.go"}}`, []string{"--approval", "always"}, "ask", "policy-always", ""},
		{"planning", `{"tool":"fs.write","args":{"path":"a.go","content":""}}`, []string{"--planning"}, "deny", "planning-freeze", ""},
		{"uncaged unknown", `{"tool":"shell.exec","args":{"command":"make"}}`, []string{"--caged", "false"}, "ask", "unknown-command", "shell:make"},
		{"caged unknown", `{"tool":"shell.exec","args":{"command":"make"}}`, []string{"--caged", "true"}, "allow", "", "shell:make"},
		{"protected patch", `{"tool":"patch.apply","args":{"patch":"--- a/go.sum\n+++ b/go.sum\n"}}`, nil, "ask", "protected-path", "patch.apply"},
		{"browser remote", `{"tool":"browser.action","args":{"action":"navigate","url":"https://example.com/x"}}`, []string{"--network"}, "ask", "network-request", "browser:navigate:https://example.com:443"},
		{"desktop", `{"tool":"computer.use","args":{"action":"click"}}`, nil, "ask", "desktop-control", "computer.use"},
		{"writable root", `{"tool":"fs.write","args":{"path":"` + os.TempDir() + `/x","content":""}}`, []string{"--writable-root", os.TempDir()}, "allow", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCheck(t, c.line+"\n", append([]string{"--workspace", ws}, c.flags...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s %s", code, out, errOut)
			}
			var res checkResult
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("output %q: %v", out, err)
			}
			if string(res.Decision) != c.want || joinReasons(res.Reasons) != c.reasons {
				t.Errorf("%s %v, want %s [%s]\n%s", res.Decision, res.Reasons, c.want, c.reasons, out)
			}
			if c.sig != "" && res.Signature != c.sig {
				t.Errorf("signature %q, want %q", res.Signature, c.sig)
			}
			if len(res.Trace) == 0 {
				t.Error("no trace")
			}
		})
	}
}

func TestPolicyCheckMalformedLinesContinue(t *testing.T) {
	input := strings.Join([]string{
		`{"tool":"fs.read","args":{"path":"a"}}`,
		`not json`,
		`{"tool":"shell.exec","args":{}}`,
		`{"tool":"shell.exec","args":{"command":"ls"},"extra":1}`,
		``,
		`{"args":{}}`,
		`{"tool":"fs.read","args":{"path":"b"}}`,
	}, "\n")
	code, out, _ := runCheck(t, input, "--workspace", t.TempDir())
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d output lines, want 6:\n%s", len(lines), out)
	}
	for i, want := range []string{`"decision":"allow"`, `"error":"line 2`, `argument \"command\"`, `unknown field`, `missing \"tool\"`, `"decision":"allow"`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: %s, want it to contain %s", i+1, lines[i], want)
		}
	}
}

func TestPolicyCheckFlagErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"bad approval", []string{"--approval", "sometimes"}, "never, on-request, always"},
		{"bad sandbox", []string{"--sandbox", "yolo"}, "read-only, workspace-write, danger-full-access"},
		{"bad caged", []string{"--caged", "maybe"}, "auto, true, false"},
		{"bad format", []string{"--format", "xml"}, "json, text"},
		{"missing workspace", []string{"--workspace", "/no/such/dir"}, "--workspace"},
		{"positional", []string{"extra"}, "unexpected argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCheck(t, "", c.args...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d stderr %q, want 2 and %q", code, errOut, c.want)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"policy", "frob"}, stdio{in: strings.NewReader(""), out: &out, err: &errb}); code != 2 {
		t.Errorf("unknown subcommand exit %d", code)
	}
}

func TestPolicyCheckText(t *testing.T) {
	code, out, _ := runCheck(t, `{"tool":"shell.exec","args":{"command":"git push --force"}}`+"\n",
		"--workspace", t.TempDir(), "--format", "text", "--network", "--caged", "false")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"ASK because destructive-effect, network-request", "signature: git-push:(default)/(current)+force", "approval", "grants"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

// The registered fs.write resolves the path through the workspace's
// symlinks, so the engine sees the write for what it is: outside.
func TestPolicyCheckResolvesSymlinks(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	outReal, _ := filepath.EvalSymlinks(outside)
	code, out, errOut := runCheck(t, `{"tool":"fs.write","args":{"path":"link/new/x","content":"x"}}`+"\n", "--workspace", ws)
	if code != 0 || !strings.Contains(out, `"decision":"deny"`) || !strings.Contains(out, filepath.Join(outReal, "new/x")) {
		t.Errorf("write through a symlink out of the workspace: exit %d %s %s", code, out, errOut)
	}
}

// isolateHome points Warden's config and data folders at a fresh folder,
// so a test opens its own database.
func isolateHome(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("WARDEN_DB", "")
}

// TestPolicyCheckAppliesWorkspaceGrants: a persistent "always for this
// workspace" answer is part of the session a new call starts in, for
// policy check exactly as for the gate `warden tool` runs.
func TestPolicyCheckAppliesWorkspaceGrants(t *testing.T) {
	isolateHome(t)
	ws := cagedDir(t, "grant-ws-")
	if err := os.MkdirAll(filepath.Join(ws, "build"), 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "w.db")
	const cmd = "ls && rm -rf build"
	line := `{"tool":"shell.exec","args":{"command":"` + cmd + `"}}`
	code, before, errOut := runCheck(t, line+"\n", "--workspace", ws, "--db", db)
	if code != 0 || !strings.Contains(before, `"decision":"ask"`) {
		t.Fatalf("before the grant: exit %d %s %s", code, before, errOut)
	}
	var asked checkResult
	if err := json.Unmarshal([]byte(before), &asked); err != nil {
		t.Fatal(err)
	}
	st, _, err := assemble.OpenStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.EnsureWorkspace(context.Background(), ws)
	if err == nil {
		_, err = st.AddGrant(context.Background(), store.NewGrant{WorkspaceID: w.ID, Signature: asked.Signature,
			Scope: policy.ScopeWorkspace, Reasons: asked.Reasons})
	}
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, after, errOut := runCheck(t, line+"\n", "--workspace", ws, "--db", db)
	var res checkResult
	if code != 0 || json.Unmarshal([]byte(after), &res) != nil || res.Decision != policy.VerdictAllow {
		t.Fatalf("after the grant: exit %d %s %s", code, after, errOut)
	}
	r := runToolCLI(t, "shell.exec", "--workspace", ws, "--db", db, "--args", `{"command":"`+cmd+`"}`)
	if r.out.Decision == nil || r.out.Decision.Verdict != policy.VerdictAllow || r.out.Decision.Source != res.Source {
		t.Fatalf("the gate: %+v, policy check allow by %s", r.out.Decision, res.Source)
	}
	if _, err := os.Stat(filepath.Join(ws, "build")); !os.IsNotExist(err) {
		t.Fatalf("the granted command did not run: %v", err)
	}
}
