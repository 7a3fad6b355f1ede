package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseApprovalPolicy(t *testing.T) {
	cases := []struct {
		in   string
		want ApprovalPolicy
		err  bool
	}{
		{"never", Never, false}, {"Never", Never, false}, {"on-request", OnRequest, false},
		{"on_request", OnRequest, false}, {"OnRequest", OnRequest, false}, {"onrequest", OnRequest, false},
		{"default", OnRequest, false}, {" always ", Always, false}, {"ALWAYS", Always, false},
		{"sometimes", 0, true}, {"", 0, true}, {"on-requests", 0, true},
	}
	for _, c := range cases {
		got, err := ParseApprovalPolicy(c.in)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), "never, on-request, always") && !strings.Contains(err.Error(), "on-request, never, always") {
				t.Errorf("%q: error %v should list the valid values", c.in, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
}

func TestParseSandboxKind(t *testing.T) {
	cases := []struct {
		in   string
		want SandboxKind
		err  bool
	}{
		{"read-only", ReadOnly, false}, {"ReadOnly", ReadOnly, false}, {"readonly", ReadOnly, false},
		{"read_only", ReadOnly, false}, {"workspace-write", WorkspaceWrite, false}, {"WorkspaceWrite", WorkspaceWrite, false},
		{"danger-full-access", DangerFullAccess, false}, {"DangerFullAccess", DangerFullAccess, false},
		{"full-access", DangerFullAccess, false}, {"yolo", 0, true}, {"", 0, true},
	}
	for _, c := range cases {
		got, err := ParseSandboxKind(c.in)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), "read-only") {
				t.Errorf("%q: error %v should list the valid values", c.in, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
}

func TestParseReason(t *testing.T) {
	for _, r := range allReasons {
		got, err := ParseReason(string(r))
		if err != nil || got != r {
			t.Errorf("%q: %v %v", r, got, err)
		}
	}
	if got, err := ParseReason("DestructiveEffect"); err != nil || got != ReasonDestructiveEffect {
		t.Errorf("CamelCase: %v %v", got, err)
	}
	if _, err := ParseReason("because"); err == nil || !strings.Contains(err.Error(), "network-request") {
		t.Errorf("bad reason error: %v", err)
	}
}

func TestSessionJSONRoundTrip(t *testing.T) {
	s := Session{Workspace: "/w", Approval: Always, Sandbox: SandboxPolicy{Kind: ReadOnly}, Grants: []Grant{{ID: "1", Signature: "fs.read", Scope: ScopeSession, Reasons: []Reason{ReasonPolicyAlways}}}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"approval":"always"`) || !strings.Contains(string(b), `"kind":"read-only"`) {
		t.Errorf("stable text forms missing: %s", b)
	}
	var back Session
	if err := json.Unmarshal(b, &back); err != nil || back.Approval != Always || back.Sandbox.Kind != ReadOnly {
		t.Errorf("round trip: %+v %v", back, err)
	}
	bad := strings.Replace(string(b), `"policy-always"`, `"policy-sometimes"`, 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil {
		t.Error("a grant with an unknown reason was accepted")
	}
}

func TestProtectedTier(t *testing.T) {
	cases := []struct {
		path       string
		cage, edit bool
	}{
		{"/w/.git/hooks/pre-commit", true, true},
		{"/w/.git/hooks", true, true},
		{"/w/.git/config", true, true},
		{"/repo/.git/worktrees/wt/config", true, true},
		{"/repo/.git/modules/sub/hooks/post-checkout", true, true},
		{"/w/.git/HEAD", false, false},
		{"/w/.git/objects/ab/cdef", false, false},
		{"/w/.git/refs/heads/main", false, false},
		// git's data areas hold names that are not configuration.
		{"/w/.git/objects/info/packs", false, false},
		{"/w/.git/objects/info", false, false},
		{"/w/.git/refs/heads/hooks", false, false},
		{"/w/.git/refs/heads/config", false, false},
		{"/w/.git/refs/tags/info", false, false},
		{"/w/.git/logs/refs/heads/hooks", false, false},
		{"/w/.git/modules/m/objects/info/alternates", false, false},
		{"/w/.git/modules/m/refs/heads/hooks", false, false},
		{"/w/.git/worktrees/objects/config.worktree", true, true},
		{"/w/.git/modules/refs/hooks/post-merge", true, true},
		{"/w/.git/modules/a/b/hooks/pre-push", true, true},
		{"/w/.git/info/attributes", true, true},
		{"/w/.git/commondir", true, true},
		{"/w/vendor/x/.git/refs/heads/hooks", false, false},
		{"/w/vendor/x/.git/hooks/post-checkout", true, true},
		{"/w/config", false, false},
		{"/w/.mcp.json", true, true},
		{"/w/.warden/rules.toml", true, true},
		{"/w/.vscode/tasks.json", true, true},
		{"/w/sub/.envrc", true, true},
		{"/home/me/.bashrc", true, true},
		{"~/.zshrc", true, true},
		{"/w/.profile", true, true},
		{"/w/package-lock.json", false, true},
		{"/w/web/yarn.lock", false, true},
		{"/w/go.sum", false, true},
		{"/w/Cargo.lock", false, true},
		{"/w/.env", false, true},
		{"/w/.env.production", false, true},
		{"/w/src/main.go", false, false},
		{"/w/environment.md", false, false},
		{"/w/go.mod", false, false},
		{"rel/.env", false, true},
	}
	for _, c := range cases {
		cage, edit := ProtectedTier(c.path, "/w")
		if cage != c.cage || edit != c.edit {
			t.Errorf("%s: cage=%v edit=%v, want %v %v", c.path, cage, edit, c.cage, c.edit)
		}
	}
	// A workspace inside a protected-looking folder is not protected wholesale.
	if cage, edit := ProtectedTier("/home/me/.vscode/extensions/ext/src/a.ts", "/home/me/.vscode/extensions/ext"); cage || edit {
		t.Error("workspace under .vscode made every file protected")
	}
	if cage, _ := ProtectedTier("/home/me/.vscode/extensions/ext/.vscode/settings.json", "/home/me/.vscode/extensions/ext"); !cage {
		t.Error(".vscode inside such a workspace not protected")
	}
	e := New(Config{ProtectedPaths: []string{"/home/me/.local/share/warden", "relative/ignored"}})
	if cage, _ := e.ProtectedTier("/home/me/.local/share/warden/warden.db", "/w"); !cage {
		t.Error("data folder not protected")
	}
	if cage, _ := e.ProtectedTier("/home/me/.local/share/wardenx", "/w"); cage {
		t.Error("prefix match on a sibling folder")
	}
	if len(e.ExtraProtected()) != 1 {
		t.Errorf("extra %v", e.ExtraProtected())
	}
	names := CageProtectedNames()
	for _, want := range []string{".git/hooks", ".git/config", ".mcp.json", ".warden", ".vscode", ".envrc", ".bashrc"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("CageProtectedNames lacks %s", want)
		}
	}
}

// TestGitMetaNamesAgreeWithProtectedTier keeps the list the cage walks and
// the per-path rule the engine applies the same fact.
func TestGitMetaNamesAgreeWithProtectedTier(t *testing.T) {
	for _, gitdir := range []string{".git", ".git/worktrees/wt", ".git/modules/lib", ".git/modules/a/modules/b", "vendor/x/.git", "fixtures/remote.git"} {
		for _, n := range GitMetaNames() {
			p := ws + "/" + gitdir + "/" + n.Name
			if n.Dir {
				p += "/anything"
			}
			if cage, _ := ProtectedTier(p, ws); !cage {
				t.Errorf("%s is not cage-protected", p)
			}
		}
	}
	for _, p := range []string{ws + "/.git/objects/ab/cd", ws + "/.git/refs/heads/main", ws + "/.git/index", ws + "/src/config"} {
		if cage, _ := ProtectedTier(p, ws); cage {
			t.Errorf("%s is cage-protected; the rest of .git stays writable", p)
		}
	}
	if !CageProtected(ws+"/sub/.git", ws, false) || CageProtected(ws+"/sub/.git", ws, true) {
		t.Error("a .git file is cage-protected, a .git directory is not")
	}
}
