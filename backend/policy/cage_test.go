package policy

import (
	"strings"
	"testing"
)

// cageSession reads a sandbox column of testdata/cage_shapes.tsv.
func cageSession(t *testing.T, col string, ap ApprovalPolicy) Session {
	t.Helper()
	caged := true
	if rest, ok := strings.CutPrefix(col, "uncaged:"); ok {
		caged, col = false, rest
	}
	net := false
	if rest, ok := strings.CutSuffix(col, "+net"); ok {
		net, col = true, rest
	}
	kind, err := ParseSandboxKind(col)
	if err != nil {
		t.Fatal(err)
	}
	s := session(kind, ap)
	s.Caged = caged
	s.Sandbox.NetworkAccess = net
	s.NetworkProxied = caged && net
	return s
}

func cageName(c *Cage) string {
	if c == nil {
		return "-"
	}
	return string(c.Shape)
}

// TestCageShapes holds the cage of every shell decision to
// testdata/cage_shapes.tsv: the claim's cage when no human answers, the
// sandbox's whole reach when one does, and the trace naming it.
func TestCageShapes(t *testing.T) {
	e := New(Config{})
	rows := readCorpus(t, "cage_shapes.tsv")
	if len(rows) < 40 {
		t.Fatalf("%d cases", len(rows))
	}
	for _, row := range rows {
		f := strings.Split(row, "\t")
		if len(f) != 6 {
			t.Fatalf("bad row %q", row)
		}
		t.Run(f[0]+"/"+f[1]+"/"+f[2], func(t *testing.T) {
			ap, err := ParseApprovalPolicy(f[1])
			if err != nil {
				t.Fatal(err)
			}
			d := e.Decide(shell(f[2]), cageSession(t, f[0], ap))
			if string(d.Verdict) != f[3] || cageName(d.Cage) != f[4] || cageName(d.HumanCage) != f[5] {
				t.Fatalf("%s, cage %s, human cage %s; want %s %s %s (%v %s)", d.Verdict, cageName(d.Cage), cageName(d.HumanCage),
					f[3], f[4], f[5], d.Reasons, d.Cage)
			}
			last := d.Trace[len(d.Trace)-1]
			if last.Step != "cage" || !strings.Contains(last.Concluded, d.Cage.String()) {
				t.Fatalf("the trace does not end with the cage %q: %+v", d.Cage, last)
			}
			if d.Cage.Claimed != (d.Cage.Shape != CageNone) {
				t.Fatalf("claimed %v for %s", d.Cage.Claimed, d.Cage)
			}
			if d.Verdict == VerdictAsk {
				h := ApprovedByHuman(d)
				if h.Cage != d.HumanCage || h.HumanCage != nil || h.Cage.Claimed {
					t.Fatalf("ApprovedByHuman: %+v", h.Cage)
				}
			}
		})
	}
}

// TestCageNetwork: under full access only a command that claims the
// network (or one the engine cannot read) gets the proxy; under
// workspace-write with network on, every caged command has it.
func TestCageNetwork(t *testing.T) {
	e := New(Config{})
	for _, tc := range []struct {
		sb      SandboxKind
		net     bool
		ap      ApprovalPolicy
		cmd     string
		network bool
	}{
		{DangerFullAccess, false, OnRequest, "ls -la", false},
		{DangerFullAccess, false, OnRequest, "echo hi > out.txt", false},
		{DangerFullAccess, false, Never, "curl -s https://example.com", true},
		{DangerFullAccess, false, Never, "go test ./...", true},
		{WorkspaceWrite, true, OnRequest, "ls -la", true},
		{WorkspaceWrite, false, OnRequest, "ls -la", false},
		{WorkspaceWrite, false, OnRequest, "make", false},
		{ReadOnly, false, OnRequest, "ls", false},
	} {
		s := session(tc.sb, tc.ap)
		s.Sandbox.NetworkAccess = tc.net
		s.NetworkProxied = tc.net
		d := e.Decide(shell(tc.cmd), s)
		if d.Cage == nil || d.Cage.Network != tc.network {
			t.Errorf("%s net=%v %q: cage %+v, want network %v", tc.sb, tc.net, tc.cmd, d.Cage, tc.network)
		}
	}
}

func TestCageWords(t *testing.T) {
	e := New(Config{})
	d := e.Decide(shell("ls -la"), session(DangerFullAccess, OnRequest))
	if got := d.Cage.String(); got != "read-only cage: classified read-only" {
		t.Fatalf("%q", got)
	}
	if !d.Cage.Escalates(SandboxPolicy{Kind: DangerFullAccess}) || d.Cage.Escalates(SandboxPolicy{Kind: ReadOnly}) {
		t.Fatal("a claimed read-only cage escalates under full access, never under read-only")
	}
	d = e.Decide(shell("make"), session(WorkspaceWrite, OnRequest))
	if got := d.Cage.String(); got != "workspace-write cage: workspace-write sandbox; not classified (make runs project-defined code)" {
		t.Fatalf("%q", got)
	}
	if d.Cage.Escalates(SandboxPolicy{Kind: WorkspaceWrite}) {
		t.Fatal("a human's answer gives make nothing more under workspace-write")
	}
	if d := e.Decide(fsRead(ws+"/a"), session(DangerFullAccess, OnRequest)); d.Cage != nil {
		t.Fatalf("a file read has a cage: %s", d.Cage)
	}
}

// TestExactGrantIsTheHumansAnswer: a grant for the exact command the human
// saw runs it as the human's answer would; a head grant (a family of
// commands) runs what it allows in the claim's cage.
func TestExactGrantIsTheHumansAnswer(t *testing.T) {
	e := New(Config{})
	s := session(DangerFullAccess, OnRequest)
	s.Grants = []Grant{{ID: "g1", Signature: "shell:go test", Scope: ScopeSession, Reasons: []Reason{ReasonUnknownCommand}},
		{ID: "g2", Signature: "shell=rm -rf build", Scope: ScopeWorkspace, Reasons: []Reason{ReasonDestructiveEffect}}}
	d := e.Decide(shell("go test"), s)
	if d.Verdict != VerdictAllow || d.Cage.Shape != CageFullAccess || !d.Cage.Claimed {
		t.Fatalf("head grant: %s %s", d.Verdict, d.Cage)
	}
	d = e.Decide(shell("rm -rf build"), s)
	if d.Verdict != VerdictAllow || d.Cage.Shape != CageHost || d.Cage.Claimed {
		t.Fatalf("exact grant: %s %s", d.Verdict, d.Cage)
	}
}

// TestApprovedProtectedWrite: the protected path a human saw the command
// write is not held by the cage a human's answer gives; nothing else is
// let through.
func TestApprovedProtectedWrite(t *testing.T) {
	e := New(Config{})
	for _, sb := range []SandboxKind{WorkspaceWrite, DangerFullAccess} {
		d := e.Decide(shell("echo 'use flake' > .envrc"), session(sb, OnRequest))
		if d.Verdict != VerdictAsk || d.HumanCage == nil || len(d.HumanCage.Approved) != 1 || d.HumanCage.Approved[0] != ws+"/.envrc" {
			t.Fatalf("%s: %s %+v", sb, d.Verdict, d.HumanCage)
		}
		if len(d.Cage.Approved) != 0 {
			t.Fatalf("%s: the claim's cage lets %v through", sb, d.Cage.Approved)
		}
	}
	d := e.Decide(shell("rm -rf build; echo x > .envrc"), session(DangerFullAccess, Never))
	if d.Verdict != VerdictDeny || d.Reason != ReasonProtectedPath {
		t.Fatalf("never: %s %s", d.Verdict, d.Reason)
	}
}

// TestEscalation: "escalate" always asks a human, no grant covers it, and
// under Never it is a denial that says so.
func TestEscalation(t *testing.T) {
	e := New(Config{})
	esc := func(cmd string) Call {
		c := shell(cmd)
		c.Effects[0].Escalate = true
		return c
	}
	for _, sb := range []SandboxKind{ReadOnly, WorkspaceWrite, DangerFullAccess} {
		for _, cmd := range []string{"ls", "echo hi > out.txt", "make"} {
			if sb == ReadOnly && cmd == "echo hi > out.txt" {
				continue // the read-only sandbox denies it first
			}
			d := e.Decide(esc(cmd), session(sb, OnRequest))
			if d.Verdict != VerdictAsk || !contains(d.Reasons, ReasonEscalation) || d.AlwaysRefused == "" {
				t.Fatalf("%s %q: %s %v %q", sb, cmd, d.Verdict, d.Reasons, d.AlwaysRefused)
			}
			s := session(sb, OnRequest)
			s.Grants = []Grant{{ID: "g", Signature: d.Signature, Scope: ScopeWorkspace, Reasons: d.Reasons}}
			if g := e.Decide(esc(cmd), s); g.Verdict != VerdictAsk {
				t.Fatalf("%s %q: a grant covered an escalation: %s %s", sb, cmd, g.Verdict, g.Source)
			}
			n := e.Decide(esc(cmd), session(sb, Never))
			if n.Verdict != VerdictDeny || n.Reason != ReasonEscalation || !strings.Contains(n.Remedy, "without escalate") {
				t.Fatalf("%s %q under never: %s %s %q", sb, cmd, n.Verdict, n.Reason, n.Remedy)
			}
		}
	}
	// The sandbox still rules first: escalate never widens an axis.
	if d := e.Decide(esc("echo x > /opt/x"), session(WorkspaceWrite, OnRequest)); d.Verdict != VerdictDeny || d.Reason != ReasonSandboxRejected {
		t.Fatalf("escalate past the sandbox: %s %s", d.Verdict, d.Reason)
	}
}

func contains(rs []Reason, r Reason) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
