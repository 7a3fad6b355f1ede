package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

const orgBundle = `[approval]
allowed = ["on-request", "always"]

[sandbox]
widest = "workspace-write"
network = false

[grants]
max_days = 7

[[rule]]
command = "git push"
decision = "deny"
why = "pushes go through the release pipeline"
examples = ["git -C sub push --force origin x", "command git push", "bash -c 'git push'"]
`

// orgConfig puts the bundle's ceilings and rules where assemble puts them.
func orgConfig(t *testing.T) func(*rigConfig) { return orgConfigOf(t, orgBundle) }

func orgConfigOf(t *testing.T, bundle string) func(*rigConfig) {
	b, err := orgpolicy.ParseBundle([]byte(bundle), "/etc/warden/policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := policy.CompileRules(b.Rules)
	if err != nil {
		t.Fatal(err)
	}
	org := b.Org
	return func(c *rigConfig) {
		c.Org, c.Rules = &org, rules
		c.Engine = policy.New(policy.Config{Org: &org, Rules: rules})
	}
}

func wantCeiling(t *testing.T, err error, what string) {
	t.Helper()
	var ce *policy.CeilingError
	if !errors.As(err, &ce) {
		t.Fatalf("want a refusal by the organisation's policy, got %v", err)
	}
	for _, s := range []string{"/etc/warden/policy.toml", "organisation", what} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("the refusal %q does not say %q", err, s)
		}
	}
}

func TestOrgCeilingsRefuseAxisChanges(t *testing.T) {
	r := newRig(t, nil, orgConfig(t))
	ctx := context.Background()
	full := policy.DangerFullAccess
	never := policy.Never
	for _, c := range []struct {
		name string
		args CreateSessionArgs
		want string
	}{
		{"full access", CreateSessionArgs{Sandbox: &Sandbox{Kind: full}}, "danger-full-access"},
		{"never", CreateSessionArgs{Approval: &never}, "never"},
		{"network", CreateSessionArgs{Sandbox: &Sandbox{Kind: policy.WorkspaceWrite, NetworkAccess: true}}, "network"},
	} {
		t.Run("create with "+c.name, func(t *testing.T) {
			c.args.Workspace = r.ws
			_, err := r.svc.CreateSession(ctx, c.args)
			wantCeiling(t, err, c.want)
		})
	}
	s := r.session(nil)
	_, err := r.svc.SetSandboxPolicy(ctx, s.ID, Sandbox{Kind: full})
	wantCeiling(t, err, "danger-full-access")
	_, err = r.svc.SetApprovalPolicy(ctx, s.ID, policy.Never)
	wantCeiling(t, err, "never")
	_, err = r.svc.SetSandboxPolicy(ctx, s.ID, Sandbox{Kind: policy.WorkspaceWrite, NetworkAccess: true})
	wantCeiling(t, err, "network")
	// The session keeps its widest permitted value.
	got, err := r.svc.GetSession(ctx, s.ID)
	must(t, err)
	if got.Sandbox.Kind != policy.WorkspaceWrite || got.Approval != policy.OnRequest || got.Sandbox.NetworkAccess {
		t.Fatalf("session changed: %+v", got)
	}
	// Within the ceilings, changes work.
	if _, err := r.svc.SetSandboxPolicy(ctx, s.ID, Sandbox{Kind: policy.ReadOnly}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.SetApprovalPolicy(ctx, s.ID, policy.Always); err != nil {
		t.Fatal(err)
	}
	in, err := r.svc.Info(ctx)
	must(t, err)
	if in.Org == nil || in.Org.File != "/etc/warden/policy.toml" || in.Org.Sandbox == nil || *in.Org.Sandbox != policy.WorkspaceWrite ||
		!in.Org.NetworkOff || len(in.Org.Approvals) != 2 || in.Org.MaxGrantDays != 7 || !strings.HasPrefix(in.Org.Digest, "sha256:") {
		t.Fatalf("info org %+v", in.Org)
	}
}

// An old session with wider axes, reopened under the policy, is lowered
// to the widest values permitted, recorded as changed by the org.
func TestOrgLowersOldSessions(t *testing.T) {
	r := newRig(t, nil, nil)
	full, never := policy.DangerFullAccess, policy.Never
	s := r.session(func(a *CreateSessionArgs) { a.Sandbox, a.Approval = &Sandbox{Kind: full}, &never })
	r.close()
	orgConfig(t)(&r.cfg)
	r.open()
	got, err := r.svc.GetSession(context.Background(), s.ID)
	must(t, err)
	if got.Sandbox.Kind != policy.WorkspaceWrite || got.Approval != policy.OnRequest {
		t.Fatalf("reopened session not lowered: %+v", got)
	}
	found := false
	for _, e := range r.events(s.ID) {
		if strings.Contains(string(e.Payload), `"by":"org"`) {
			found = true
		}
	}
	if !found {
		t.Fatal("no event records the organisation lowering the session")
	}
}

// An org rule stops a real git push from a human's "!" command: the push
// never reaches the remote, and the denial names the rule and the policy.
func TestOrgRuleStopsARealPush(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	// Network may be on here, so the sandbox admits the push and the
	// rule is what stops it.
	r := newRig(t, nil, orgConfigOf(t, strings.Replace(orgBundle, "network = false", "network = true", 1)))
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitRun(t, "", "init", "-q", "--bare", remote)
	sub := filepath.Join(r.ws, "sub")
	gitRun(t, "", "init", "-q", sub)
	gitRun(t, sub, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x")
	gitRun(t, sub, "remote", "add", "origin", remote)
	s := r.session(func(a *CreateSessionArgs) { a.Sandbox = &Sandbox{Kind: policy.WorkspaceWrite, NetworkAccess: true} })
	ctx := context.Background()
	for _, cmd := range []string{"git -C sub push --force origin HEAD:x", "command git -C sub push origin HEAD:x", "bash -c 'cd sub && git push origin HEAD:x'"} {
		must(t, r.svc.SendMessage(ctx, s.ID, "!"+cmd))
		r.waitIdle(s.ID)
	}
	deadline := time.Now().Add(20 * time.Second)
	var denied []store.StoredEvent
	for time.Now().Before(deadline) {
		if denied = r.events(s.ID, store.KindPermissionDenied); len(denied) == 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(denied) != 3 {
		t.Fatalf("%d denials, want 3", len(denied))
	}
	for _, e := range denied {
		var d store.PermissionDenied
		must(t, json.Unmarshal(e.Payload, &d))
		if d.Reason != policy.ReasonRuleDenied || !strings.Contains(d.Detail, "/etc/warden/policy.toml") ||
			!strings.Contains(d.Detail, "release pipeline") {
			t.Fatalf("denial %+v", d)
		}
		// The audit row names the layer and the policy's digest.
		if d.Layer != policy.LayerOrg || !strings.Contains(d.LayerDetail, "sha256:") || !strings.Contains(d.LayerDetail, "/etc/warden/policy.toml:") {
			t.Fatalf("audit row layer %q detail %q", d.Layer, d.LayerDetail)
		}
		digest := false
		for _, st := range d.Trace {
			digest = digest || strings.Contains(st.Saw, "sha256:")
		}
		if !digest {
			t.Fatalf("the audit row's trace does not name the policy digest: %+v", d.Trace)
		}
	}
	if out, _ := exec.Command("git", "--git-dir", remote, "for-each-ref").Output(); len(out) != 0 {
		t.Fatalf("the push reached the remote: %s", out)
	}
	if started := r.events(s.ID, store.KindToolInvocationStarted); len(started) != 0 {
		t.Fatalf("%d tool calls ran", len(started))
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}

// Grants last at most the organisation's longest lifetime, old ones too.
func TestOrgCapsGrantLifetime(t *testing.T) {
	var now time.Time
	clock := func() time.Time { return now }
	base := time.Now() // the store dates grants by its own clock
	now = base
	r := newRig(t, nil, func(c *rigConfig) { orgConfig(t)(c); c.Now = clock })
	s := r.session(nil)
	ctx := context.Background()
	ss, err := r.st.Session(ctx, s.ID)
	must(t, err)
	if _, err := r.st.AddGrant(ctx, store.NewGrant{WorkspaceID: ss.WorkspaceID, SessionID: s.ID, Signature: "shell:make",
		Scope: policy.ScopeWorkspace, Reasons: []policy.Reason{policy.ReasonUnknownCommand}}); err != nil {
		t.Fatal(err)
	}
	views, err := r.svc.ListGrants(ctx, s.ID)
	must(t, err)
	if len(views) != 1 || views[0].ExpiresAt == 0 {
		t.Fatalf("the grant shows no cap: %+v", views)
	}
	ps, _, err := r.svc.policySession(ctx, s.ID)
	must(t, err)
	if len(ps.Grants) != 1 || ps.Grants[0].ExpiresAt.IsZero() {
		t.Fatalf("grants %+v", ps.Grants)
	}
	now = base.Add(8 * 24 * time.Hour)
	ps, _, err = r.svc.policySession(ctx, s.ID)
	must(t, err)
	if len(ps.Grants) != 0 {
		t.Fatalf("an always grant outlived the organisation's 7 days: %+v", ps.Grants)
	}
}

// A workspace's rules apply to its sessions; a broken rules file refuses
// new sessions with the file's name.
func TestWorkspaceRulesInSessions(t *testing.T) {
	tiers, err := orgpolicy.LoadTiers(orgpolicy.System(), "", time.Now())
	if err != nil {
		t.Fatal(err) // this machine has no /etc/warden: no org tier
	}
	r := newRig(t, nil, func(c *rigConfig) { c.WorkspaceRules = tiers.Workspace })
	must(t, os.MkdirAll(filepath.Join(r.ws, ".warden"), 0o755))
	must(t, os.WriteFile(filepath.Join(r.ws, ".warden", "rules.toml"), []byte(`[[rule]]
command = "make"
decision = "deny"
why = "use the CI"
examples = ["make all"]
`), 0o644))
	s := r.session(nil)
	ctx := context.Background()
	must(t, r.svc.SendMessage(ctx, s.ID, "!make all"))
	r.waitIdle(s.ID)
	if len(r.events(s.ID, store.KindPermissionDenied)) != 1 {
		t.Fatal("the workspace rule did not deny")
	}
	rules, err := r.svc.ListRules(ctx, s.ID)
	must(t, err)
	if len(rules) != 1 || rules[0].Tier != policy.TierWorkspace || rules[0].Line != 1 || rules[0].ReadOnly {
		t.Fatalf("rules %+v", rules)
	}
	must(t, os.WriteFile(filepath.Join(r.ws, ".warden", "rules.toml"), []byte(`[[rule]]
command = "make"
decision = "deny"
why = "use the CI"
examples = ["cmake ."]
`), 0o644))
	_, err = r.svc.CreateSession(ctx, CreateSessionArgs{Workspace: r.ws})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(r.ws, ".warden", "rules.toml")) || !strings.Contains(err.Error(), "cmake") {
		t.Fatalf("want a refusal naming the rules file, got %v", err)
	}
}
