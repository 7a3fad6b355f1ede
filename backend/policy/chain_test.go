package policy

import (
	"strings"
	"testing"
)

// One table per chain step, each case naming what it pins down.

func TestStepPlanning(t *testing.T) {
	e := New(Config{})
	cases := []struct {
		name string
		call Call
		want Verdict
	}{
		{"read runs", fsRead(ws + "/a"), VerdictAllow},
		{"write_plan runs", Call{Tool: "write_plan", Effects: []Effect{{Kind: EffectMeta}}}, VerdictAllow},
		{"settings change is frozen", Call{Tool: "propose_settings", Effects: []Effect{{Kind: EffectMeta, Mutates: true}}}, VerdictDeny},
		{"write is frozen", fsWrite(ws + "/a"), VerdictDeny},
		{"read-only shell is frozen", shell("ls"), VerdictDeny},
		{"browser is frozen", Call{Tool: "browser.action", Effects: []Effect{{Kind: EffectBrowser, Action: "navigate", Origin: "http://localhost:3000"}}}, VerdictDeny},
		{"untrusted MCP is frozen", mcpCall("s", "t", false, true), VerdictDeny},
		{"trusted read-only MCP runs", mcpCall("s", "t", true, true), VerdictAllow},
		{"read plus write is frozen", Call{Tool: "x", Effects: []Effect{{Kind: EffectRead}, {Kind: EffectWrite, Paths: []string{ws + "/a"}}}}, VerdictDeny},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := session(DangerFullAccess, Never)
			s.Planning = true
			d := e.Decide(c.call, s)
			if d.Verdict != c.want {
				t.Fatalf("%s, want %s\n%s", d.Verdict, c.want, traceText(d))
			}
			if d.Verdict == VerdictDeny && (d.Reason != ReasonPlanningFreeze || d.Trace[0].Step != "planning") {
				t.Errorf("deny %s at step %s", d.Reason, d.Trace[0].Step)
			}
		})
	}
}

func TestStepSandbox(t *testing.T) {
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	cases := []struct {
		name      string
		mut       func(*Session)
		call      Call
		want      Verdict
		detailHas string
		remedyHas string
	}{
		{"read-only rejects writes", func(s *Session) { s.Sandbox.Kind = ReadOnly }, fsWrite(ws + "/a"), VerdictDeny, ws + "/a", "workspace-write"},
		{"outside path is named", nil, fsWrite("/srv/data/x"), VerdictDeny, "/srv/data/x", "writable root"},
		{"writable root admits", func(s *Session) { s.Sandbox.WritableRoots = []string{"/srv/data"} }, fsWrite("/srv/data/x"), VerdictAllow, "", ""},
		{"writable root is not a prefix match", func(s *Session) { s.Sandbox.WritableRoots = []string{"/srv/data"} }, fsWrite("/srv/database"), VerdictDeny, "/srv/database", ""},
		{"workspace is not a prefix match", nil, fsWrite(ws + "2/a"), VerdictDeny, ws + "2/a", ""},
		{"relative path is refused", nil, fsWrite("a.go"), VerdictDeny, "not absolute", ""},
		{"write without paths is refused", nil, Call{Tool: "fs.write", Effects: []Effect{{Kind: EffectWrite}}}, VerdictDeny, "without target paths", ""},
		{"network off names the host", nil, Call{Tool: "web.fetch", Effects: []Effect{{Kind: EffectNetwork, Hosts: []string{"example.com"}}}}, VerdictDeny, "example.com", "network access on"},
		{"network on asks", func(s *Session) { s.Sandbox.NetworkAccess = true }, Call{Tool: "web.fetch", Effects: []Effect{{Kind: EffectNetwork, Hosts: []string{"example.com"}}}}, VerdictAsk, "", ""},
		{"shell network off", nil, shell("curl -s https://api.example.com/x"), VerdictDeny, "api.example.com", "network access on"},
		{"shell write to cage tmp", nil, shell("sort a > /tmp/sorted"), VerdictAllow, "", ""},
		{"shell write to host tmp without cage", func(s *Session) { s.Caged = false }, shell("sort a > /tmp/sorted"), VerdictDeny, "/tmp/sorted", ""},
		{"shell cd then write outside", nil, shell("cd /etc && echo x > hosts"), VerdictDeny, "/etc/hosts", ""},
		{"shell cd inside then write", nil, shell("cd sub && echo x > y"), VerdictAllow, "", ""},
		{"shell rm home is outside", nil, shell("rm -rf ~"), VerdictDeny, "~", ""},
		{"read-only cage runs unknown", func(s *Session) { s.Sandbox.Kind = ReadOnly }, shell("python3 x.py"), VerdictAllow, "", ""},
		{"read-only without cage refuses unknown", func(s *Session) { s.Sandbox.Kind = ReadOnly; s.Caged = false }, shell("python3 x.py"), VerdictDeny, "no OS cage", "bubblewrap"},
		{"read-only without cage runs proven reads", func(s *Session) { s.Sandbox.Kind = ReadOnly; s.Caged = false }, shell("git log | head"), VerdictAllow, "", ""},
		{"config folder is protected", func(s *Session) { s.Sandbox.Kind = DangerFullAccess }, fsWrite("/home/me/.config/warden/config.toml"), VerdictAsk, "", ""},
		{"desktop control is rejected read-only", func(s *Session) { s.Sandbox.Kind = ReadOnly }, Call{Tool: "computer.use", Effects: []Effect{{Kind: EffectDesktop, Action: "control"}}}, VerdictDeny, "desktop", ""},
		{"invalid axes", func(s *Session) { s.Sandbox.Kind = 9 }, fsRead(ws + "/a"), VerdictDeny, "not a known value", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := session(WorkspaceWrite, OnRequest)
			if c.mut != nil {
				c.mut(&s)
			}
			d := e.Decide(c.call, s)
			if d.Verdict != c.want {
				t.Fatalf("%s, want %s\n%s", d.Verdict, c.want, traceText(d))
			}
			if !strings.Contains(d.Detail, c.detailHas) || !strings.Contains(d.Remedy, c.remedyHas) {
				t.Errorf("detail %q remedy %q, want them to mention %q and %q", d.Detail, d.Remedy, c.detailHas, c.remedyHas)
			}
		})
	}
}

func TestStepApprovalReasons(t *testing.T) {
	e := New(Config{})
	cases := []struct {
		name string
		mut  func(*Session)
		call Call
		want []Reason
	}{
		{"destructive", nil, shell("git reset --hard"), []Reason{ReasonDestructiveEffect}},
		{"unknown asks without a cage", func(s *Session) { s.Caged = false }, shell("make test"), []Reason{ReasonUnknownCommand}},
		{"unknown asks when unconfined", func(s *Session) { s.Sandbox.Kind = DangerFullAccess }, shell("make test"), []Reason{ReasonUnknownCommand}},
		{"network admitted", func(s *Session) { s.Sandbox.NetworkAccess = true }, shell("git fetch origin"), []Reason{ReasonNetworkRequest}},
		{"network and destructive", func(s *Session) { s.Sandbox.NetworkAccess = true }, shell("git push -f"), []Reason{ReasonDestructiveEffect, ReasonNetworkRequest}},
		{"protected by shell redirect", nil, shell("echo 'x' >> .bashrc"), []Reason{ReasonProtectedPath}},
		{"protected by sed -i", nil, shell("sed -i 's/a/b/' package-lock.json"), []Reason{ReasonProtectedPath}},
		{"protected by cp", nil, shell("cp evil .git/config"), []Reason{ReasonProtectedPath}},
		{"protected by tee", nil, shell("echo x | tee .mcp.json"), []Reason{ReasonProtectedPath}},
		{"protected by patch effect", nil, Call{Tool: "patch.apply", Effects: []Effect{{Kind: EffectWrite, Paths: []string{ws + "/a.go", ws + "/yarn.lock"}}}}, []Reason{ReasonProtectedPath}},
		{"untrusted MCP", nil, mcpCall("s", "t", false, false), []Reason{ReasonUntrustedMcpServer}},
		{"desktop control", nil, Call{Tool: "computer.use", Effects: []Effect{{Kind: EffectDesktop, Action: "control"}}}, []Reason{ReasonDesktopControl}},
		{"always adds policy-always", func(s *Session) { s.Approval = Always }, shell("git reset --hard"), []Reason{ReasonPolicyAlways, ReasonDestructiveEffect}},
		{"undeclared effect", nil, Call{Tool: "x", Effects: []Effect{{Kind: "teleport"}}}, []Reason{ReasonUnknownCommand}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := session(WorkspaceWrite, OnRequest)
			if c.mut != nil {
				c.mut(&s)
			}
			d := e.Decide(c.call, s)
			if d.Verdict != VerdictAsk || strings.Join(reasonStrings(d.Reasons), ",") != strings.Join(reasonStrings(c.want), ",") {
				t.Errorf("%s %v, want ask %v\n%s", d.Verdict, d.Reasons, c.want, traceText(d))
			}
		})
	}
}

func TestStepApprovalNeverFailsClosed(t *testing.T) {
	e := New(Config{})
	for _, c := range []struct {
		call Call
		want Reason
	}{
		{fsWrite(ws + "/.env.local"), ReasonProtectedPath},
		{shell("echo x > go.sum"), ReasonProtectedPath},
		{mcpCall("s", "t", false, false), ReasonUntrustedMcpServer},
	} {
		d := e.Decide(c.call, session(WorkspaceWrite, Never))
		if d.Verdict != VerdictDeny || d.Reason != c.want || !strings.Contains(d.Remedy, "on-request") {
			t.Errorf("%s: %s %s %q", c.call.Tool, d.Verdict, d.Reason, d.Remedy)
		}
	}
	// Everything else the sandbox admits runs without a prompt.
	if d := e.Decide(shell("rm -rf build"), session(WorkspaceWrite, Never)); d.Verdict != VerdictAllow {
		t.Errorf("never + admitted destructive: %s", d.Verdict)
	}
}

func TestStepMcpTrust(t *testing.T) {
	e := New(Config{})
	d := e.Decide(mcpCall("github", "create_issue", true, false), session(WorkspaceWrite, OnRequest))
	if d.Verdict != VerdictAllow || d.Source != "trusted-mcp:github" {
		t.Errorf("trusted server: %s %q", d.Verdict, d.Source)
	}
	last := d.Trace[len(d.Trace)-1]
	if last.Step != "mcp-trust" || !strings.Contains(last.Saw, "github") {
		t.Errorf("last step %+v", last)
	}
	d = e.Decide(mcpCall("github", "list", true, true), session(ReadOnly, OnRequest))
	if d.Verdict != VerdictAllow || d.Source != "trusted-mcp:github" {
		t.Errorf("trusted read-only tool under read-only: %s %q", d.Verdict, d.Source)
	}
}

func TestTraceOrder(t *testing.T) {
	e := New(Config{})
	want := []string{"planning", "sandbox", "approval", "grants", "mcp-trust"}
	for _, c := range []Call{fsRead(ws + "/a"), shell("rm -rf build"), shell("ls")} {
		for _, ap := range []ApprovalPolicy{Never, OnRequest, Always} {
			d := e.Decide(c, session(WorkspaceWrite, ap))
			var got []string
			for _, s := range d.Trace {
				got = append(got, s.Step)
			}
			want := want
			if c.Tool == "shell.exec" {
				// A command's decision ends with the cage it runs in.
				want = append(want[:len(want):len(want)], "cage")
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s/%s: trace steps %v", c.Tool, ap, got)
			}
		}
	}
}

func TestFastPathSharesNothingMutable(t *testing.T) {
	e := New(Config{})
	d := e.Decide(fsRead(ws+"/a"), session(WorkspaceWrite, OnRequest))
	d.Trace = append(d.Trace, Step{Step: "extra"})
	d2 := e.Decide(fsRead(ws+"/a"), session(WorkspaceWrite, OnRequest))
	if len(d2.Trace) != 5 {
		t.Errorf("appending to a returned trace changed the engine: %d steps", len(d2.Trace))
	}
}

// TestDecideConcurrent runs one engine from many goroutines; with -race it
// proves the compiled engine and the parser pools share nothing mutable.
func TestDecideConcurrent(t *testing.T) {
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	calls := []Call{fsRead(ws + "/a"), shell("ls && rm -rf ~"), shell("git push -f"), shell("cat f | sort > out"),
		mcpCall("s", "t", false, false), fsWrite(ws + "/.env")}
	want := make([]Decision, len(calls))
	for i, c := range calls {
		want[i] = e.Decide(c, session(WorkspaceWrite, OnRequest))
	}
	done := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for n := 0; n < 50; n++ {
				i := n % len(calls)
				d := e.Decide(calls[i], session(WorkspaceWrite, OnRequest))
				if d.Verdict != want[i].Verdict || d.Signature != want[i].Signature {
					done <- calls[i].Tool + " changed under concurrency"
					return
				}
			}
			done <- ""
		}()
	}
	for g := 0; g < 8; g++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

// TestFastPathTraceMatchesChain proves the fast path for reads writes the
// trace the full chain writes for the same call, in every session shape the
// fast path serves.
func TestFastPathTraceMatchesChain(t *testing.T) {
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	calls := []Call{
		fsRead(ws + "/a.go"),
		{Tool: "write_plan", Effects: []Effect{{Kind: EffectMeta}}},
		{Tool: "fs.read", Effects: []Effect{{Kind: EffectRead}, {Kind: EffectMeta}}},
	}
	for _, call := range calls {
		for _, planning := range []bool{false, true} {
			for _, sb := range []SandboxKind{ReadOnly, WorkspaceWrite, DangerFullAccess} {
				for _, ap := range []ApprovalPolicy{Never, OnRequest} {
					for _, caged := range []bool{false, true} {
						for _, network := range []bool{false, true} {
							s := session(sb, ap)
							s.Planning, s.Caged, s.Sandbox.NetworkAccess = planning, caged, network
							s.Sandbox.WritableRoots = []string{"/srv/data"}
							if !e.onlyReads(&call, &s) {
								t.Fatalf("%s is not on the fast path", call.Tool)
							}
							fast := e.Decide(call, s)
							full := e.decideChain(call, s)
							if traceText(fast) != traceText(full) || fast.Verdict != full.Verdict || fast.Source != full.Source || fast.Signature != full.Signature {
								t.Errorf("%s planning=%v %s/%s caged=%v network=%v:\nfast:\n%s\nchain:\n%s",
									call.Tool, planning, sb, ap, caged, network, traceText(fast), traceText(full))
							}
						}
					}
				}
			}
		}
	}
}
