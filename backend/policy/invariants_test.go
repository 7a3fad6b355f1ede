package policy

import (
	"testing"
	"time"
)

// allReasonsGrant grants every reason for sig, the widest grant possible.
func allReasonsGrant(sig string, scope GrantScope) Grant {
	return Grant{ID: "g-" + sig, Signature: sig, Scope: scope, Reasons: allReasons[:]}
}

func TestInvariantSandboxDenialNeverOverridden(t *testing.T) {
	e := New(Config{})
	for _, c := range matrixCases {
		for _, sb := range []SandboxKind{ReadOnly, WorkspaceWrite, DangerFullAccess} {
			base := e.Decide(c.call, session(sb, OnRequest))
			if base.Verdict != VerdictDeny || base.Reason != ReasonSandboxRejected {
				continue
			}
			for _, ap := range []ApprovalPolicy{Never, OnRequest, Always} {
				s := session(sb, ap)
				s.Grants = []Grant{allReasonsGrant(base.Signature, ScopeSession), allReasonsGrant(base.Signature, ScopeWorkspace)}
				d := e.Decide(c.call, s)
				if d.Verdict != VerdictDeny || d.Reason != ReasonSandboxRejected {
					t.Errorf("%s under %s/%s with grants: %s %s, want sandbox denial", c.name, sb, ap, d.Verdict, d.Reason)
				}
			}
		}
	}
}

func TestInvariantNeverNeverWidens(t *testing.T) {
	e := New(Config{})
	for _, c := range matrixCases {
		for _, sb := range []SandboxKind{ReadOnly, WorkspaceWrite, DangerFullAccess} {
			on := e.Decide(c.call, session(sb, OnRequest))
			never := e.Decide(c.call, session(sb, Never))
			if on.Verdict == VerdictDeny && never.Verdict != VerdictDeny {
				t.Errorf("%s/%s: on-request denies, never gives %s", c.name, sb, never.Verdict)
			}
			if never.Verdict == VerdictAsk {
				t.Errorf("%s/%s: never asked", c.name, sb)
			}
		}
	}
}

func TestInvariantGrantNeverRelaxesDeny(t *testing.T) {
	e := New(Config{})
	cases := []struct {
		name string
		call Call
		s    Session
	}{
		{"planning", shell("rm -rf build"), func() Session { s := session(WorkspaceWrite, OnRequest); s.Planning = true; return s }()},
		{"sandbox", fsWrite("/etc/hosts"), session(WorkspaceWrite, OnRequest)},
		{"never-protected", fsWrite(ws + "/go.sum"), session(WorkspaceWrite, Never)},
		{"never-untrusted-mcp", mcpCall("x", "y", false, false), session(WorkspaceWrite, Never)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.Decide(c.call, c.s)
			if before.Verdict != VerdictDeny {
				t.Fatalf("setup: %s, want deny", before.Verdict)
			}
			c.s.Grants = []Grant{allReasonsGrant(before.Signature, ScopeSession), allReasonsGrant(before.Signature, ScopeWorkspace)}
			after := e.Decide(c.call, c.s)
			if after.Verdict != VerdictDeny || after.Reason != before.Reason {
				t.Errorf("with grants: %s %s, want deny %s", after.Verdict, after.Reason, before.Reason)
			}
		})
	}
}

func TestInvariantFreezeOutlastsAlways(t *testing.T) {
	e := New(Config{})
	for _, call := range []Call{shell("rm -rf build"), shell("ls"), fsWrite(ws + "/a.go"), mcpCall("s", "t", true, false),
		{Tool: "propose_settings", Effects: []Effect{{Kind: EffectMeta, Mutates: true}}}} {
		s := session(DangerFullAccess, Never)
		s.Planning = true
		sig := SignatureOf(call)
		s.Grants = []Grant{allReasonsGrant(sig, ScopeSession), allReasonsGrant(sig, ScopeWorkspace)}
		d := e.Decide(call, s)
		if d.Verdict != VerdictDeny || d.Reason != ReasonPlanningFreeze {
			t.Errorf("%s during planning after an 'always': %s %s, want planning-freeze", call.Tool, d.Verdict, d.Reason)
		}
	}
	// The way out of the freeze and reads still run.
	for _, call := range []Call{fsRead(ws + "/a"), {Tool: "write_plan", Effects: []Effect{{Kind: EffectMeta}}}, mcpCall("s", "list", true, true)} {
		s := session(WorkspaceWrite, OnRequest)
		s.Planning = true
		if d := e.Decide(call, s); d.Verdict != VerdictAllow {
			t.Errorf("%s during planning: %s, want allow", call.Tool, d.Verdict)
		}
	}
}

func TestInvariantMcpGrantsNeverCrossIntoShell(t *testing.T) {
	e := New(Config{})
	s := session(WorkspaceWrite, Always)
	shellLs := shell("ls")
	mcpLs := mcpCall("files", "ls", false, false)
	if SignatureOf(shellLs) == SignatureOf(mcpLs) {
		t.Fatalf("shell and MCP share signature %q", SignatureOf(shellLs))
	}
	s.Grants = []Grant{allReasonsGrant(SignatureOf(mcpLs), ScopeSession)}
	if d := e.Decide(shellLs, s); d.Verdict != VerdictAsk {
		t.Errorf("an MCP grant allowed a shell call: %s %s", d.Verdict, d.Source)
	}
	s.Grants = []Grant{allReasonsGrant(SignatureOf(shellLs), ScopeSession), allReasonsGrant("ls", ScopeSession)}
	if d := e.Decide(mcpLs, s); d.Verdict != VerdictAsk {
		t.Errorf("a shell grant allowed an MCP call: %s %s", d.Verdict, d.Source)
	}
	// An MCP tool named like a shell signature stays in its namespace.
	odd := mcpCall("evil", "shell:ls", false, false)
	if sig := SignatureOf(odd); sig != "mcp-tool:evil/shell:ls" {
		t.Errorf("signature %q", sig)
	}
}

func TestInvariantCompoundApprovalNeverGrantsFamily(t *testing.T) {
	e := New(Config{})
	s := session(WorkspaceWrite, OnRequest)
	first := shell("npm test && rm -rf build")
	d := e.Decide(first, s)
	if d.Verdict != VerdictAsk {
		t.Fatalf("setup: %s", d.Verdict)
	}
	s.Grants = []Grant{{ID: "g1", Signature: d.Signature, Scope: ScopeSession, Reasons: d.Reasons}}
	if got := e.Decide(first, s); got.Verdict != VerdictAllow || got.Source != "session-grant:"+d.Signature {
		t.Errorf("the approved command itself: %s %q", got.Verdict, got.Source)
	}
	for _, cmd := range []string{"npm test && rm -rf src", "npm test && rm -rf build ~", "npm test; rm -rf build", "rm -rf build"} {
		if got := e.Decide(shell(cmd), s); got.Verdict == VerdictAllow {
			t.Errorf("%q rode on the grant for %q: %s", cmd, d.Signature, got.Verdict)
		}
	}
}

func TestGrantCoversOnlyItsReasons(t *testing.T) {
	e := New(Config{})
	s := session(WorkspaceWrite, OnRequest)
	s.Sandbox.NetworkAccess = true
	push := shell("git push --force origin main")
	d := e.Decide(push, s)
	if d.Verdict != VerdictAsk || len(d.Reasons) != 2 {
		t.Fatalf("setup: %s %v", d.Verdict, d.Reasons)
	}
	s.Grants = []Grant{{ID: "net", Signature: d.Signature, Scope: ScopeSession, Reasons: []Reason{ReasonNetworkRequest}}}
	if got := e.Decide(push, s); got.Verdict != VerdictAsk {
		t.Errorf("a network grant silenced destructive-effect: %s", got.Verdict)
	}
	s.Grants = append(s.Grants, Grant{ID: "destr", Signature: d.Signature, Scope: ScopeWorkspace, Reasons: []Reason{ReasonDestructiveEffect}})
	if got := e.Decide(push, s); got.Verdict != VerdictAllow {
		t.Errorf("two grants covering both reasons: %s", got.Verdict)
	}
}

func TestGrants(t *testing.T) {
	e := New(Config{})
	call := shell("rm -rf build")
	sig := SignatureOf(call)
	cases := []struct {
		name   string
		grant  Grant
		now    time.Time
		want   Verdict
		source string
	}{
		{"session", Grant{ID: "1", Signature: sig, Scope: ScopeSession, Reasons: []Reason{ReasonDestructiveEffect}}, now, VerdictAllow, "session-grant:" + sig},
		{"workspace", Grant{ID: "2", Signature: sig, Scope: ScopeWorkspace, Reasons: []Reason{ReasonDestructiveEffect}}, now, VerdictAllow, "workspace-rule:" + sig},
		{"other-signature", Grant{ID: "3", Signature: "shell:rm", Scope: ScopeSession, Reasons: []Reason{ReasonDestructiveEffect}}, now, VerdictAsk, ""},
		{"other-reason", Grant{ID: "4", Signature: sig, Scope: ScopeSession, Reasons: []Reason{ReasonNetworkRequest}}, now, VerdictAsk, ""},
		{"no-reasons", Grant{ID: "5", Signature: sig, Scope: ScopeSession}, now, VerdictAsk, ""},
		{"not-yet-expired", Grant{ID: "6", Signature: sig, Scope: ScopeSession, Reasons: []Reason{ReasonDestructiveEffect}, ExpiresAt: now.Add(time.Minute)}, now, VerdictAllow, "session-grant:" + sig},
		{"expired", Grant{ID: "7", Signature: sig, Scope: ScopeSession, Reasons: []Reason{ReasonDestructiveEffect}, ExpiresAt: now}, now, VerdictAsk, ""},
		{"expiry-without-clock", Grant{ID: "8", Signature: sig, Scope: ScopeSession, Reasons: []Reason{ReasonDestructiveEffect}, ExpiresAt: now}, time.Time{}, VerdictAsk, ""},
		{"unknown-scope", Grant{ID: "9", Signature: sig, Scope: "global", Reasons: []Reason{ReasonDestructiveEffect}}, now, VerdictAsk, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := session(WorkspaceWrite, OnRequest)
			s.Now = c.now
			s.Grants = []Grant{c.grant}
			d := e.Decide(call, s)
			if d.Verdict != c.want || d.Source != c.source {
				t.Errorf("%s %q, want %s %q\n%s", d.Verdict, d.Source, c.want, c.source, traceText(d))
			}
		})
	}
}

func TestAlwaysGrantedByPolicyAlwaysGrant(t *testing.T) {
	e := New(Config{})
	s := session(WorkspaceWrite, Always)
	call := fsRead(ws + "/a")
	if d := e.Decide(call, s); d.Verdict != VerdictAsk || d.Reasons[0] != ReasonPolicyAlways {
		t.Fatalf("setup: %s %v", d.Verdict, d.Reasons)
	}
	s.Grants = []Grant{{ID: "r", Signature: "fs.read", Scope: ScopeWorkspace, Reasons: []Reason{ReasonPolicyAlways}}}
	if d := e.Decide(call, s); d.Verdict != VerdictAllow || d.Source != "workspace-rule:fs.read" {
		t.Errorf("%s %q", d.Verdict, d.Source)
	}
}

func TestProtectedPathIsNeverGranted(t *testing.T) {
	e := New(Config{})
	for _, call := range []Call{fsWrite(ws + "/.env"), shell("echo x >> .bashrc"),
		{Tool: "patch.apply", Effects: []Effect{{Kind: EffectWrite, Paths: []string{ws + "/go.sum"}}}}} {
		s := session(WorkspaceWrite, OnRequest)
		sig := SignatureOf(call)
		s.Grants = []Grant{allReasonsGrant(sig, ScopeSession), allReasonsGrant(sig, ScopeWorkspace)}
		d := e.Decide(call, s)
		if d.Verdict != VerdictAsk || len(d.Reasons) != 1 || d.Reasons[0] != ReasonProtectedPath {
			t.Errorf("%s with standing grants: %s %v, want ask protected-path", call.Tool, d.Verdict, d.Reasons)
		}
	}
}
