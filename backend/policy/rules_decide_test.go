package policy_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/policy"
)

const ruleWS = "/ws"

// ruleCase is one line of testdata/rules/decide.jsonl: the tiers in play
// (org, orgwsallow, user, ws), the axes, a call, and the decision.
type ruleCase struct {
	Name     string `json:"name"`
	Tiers    string `json:"tiers"`
	Approval string `json:"approval"`
	Sandbox  string `json:"sandbox"`
	Caged    *bool  `json:"caged"`
	Planning bool   `json:"planning"`
	Grant    string `json:"grant"` // "all": a grant of every reason for the call's signature
	Call     struct {
		Tool    string   `json:"tool"`
		Command string   `json:"command"`
		Paths   []string `json:"paths"`
		Read    []string `json:"read"`
		Hosts   []string `json:"hosts"`
		Browser string   `json:"browser"`
		MCP     string   `json:"mcp"`
	} `json:"call"`
	Want          string `json:"want"`
	Layer         string `json:"layer"`
	Reason        string `json:"reason"`
	Reasons       string `json:"reasons"`
	Source        string `json:"source"`
	Detail        string `json:"detail"`
	AlwaysRefused bool   `json:"always_refused"`
}

func loadTier(t testing.TB, name string) (*policy.Org, []policy.Rule) {
	t.Helper()
	file := map[string]string{"org": "org.toml", "orgwsallow": "org-ws-allow.toml", "user": "user.toml", "ws": "ws.toml"}[name]
	if file == "" {
		t.Fatalf("unknown tier %q", name)
	}
	path := filepath.Join("testdata", "rules", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch name {
	case "org", "orgwsallow":
		b, err := orgpolicy.ParseBundle(data, "/etc/warden/policy.toml")
		if err != nil {
			t.Fatal(err)
		}
		return &b.Org, b.Rules
	case "user":
		rules, err := orgpolicy.ParseRules(data, "/home/u/.config/warden/rules.toml", policy.TierUser)
		if err != nil {
			t.Fatal(err)
		}
		return nil, rules
	}
	rules, err := orgpolicy.ParseRules(data, ruleWS+"/.warden/rules.toml", policy.TierWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	return nil, rules
}

// tiersEngine builds the engine and the workspace rules of a case.
func tiersEngine(t testing.TB, tiers string) (*policy.Engine, *policy.RuleSet) {
	t.Helper()
	var org *policy.Org
	var engineRules, wsRules []policy.Rule
	for _, name := range strings.Split(tiers, ",") {
		if name == "" {
			continue
		}
		o, rules := loadTier(t, name)
		if o != nil {
			org = o
		}
		if name == "ws" {
			wsRules = rules
		} else {
			engineRules = append(engineRules, rules...)
		}
	}
	cfg := policy.Config{Org: org}
	var err error
	if len(engineRules) > 0 {
		if cfg.Rules, err = policy.CompileRules(engineRules); err != nil {
			t.Fatal(err)
		}
	}
	var ws *policy.RuleSet
	if len(wsRules) > 0 {
		if ws, err = policy.CompileRules(wsRules); err != nil {
			t.Fatal(err)
		}
	}
	return policy.New(cfg), ws
}

func abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return ruleWS + "/" + p
}

func (c *ruleCase) session(t testing.TB, ws *policy.RuleSet) policy.Session {
	s := policy.Session{Workspace: ruleWS, Caged: true, Planning: c.Planning, Rules: ws}
	if c.Caged != nil {
		s.Caged = *c.Caged
	}
	var err error
	if c.Approval != "" {
		if s.Approval, err = policy.ParseApprovalPolicy(c.Approval); err != nil {
			t.Fatal(err)
		}
	}
	if c.Sandbox == "" {
		// Network on, so a command that would reach the network is not
		// refused by the sandbox before the rules are read.
		c.Sandbox = "workspace-write+network"
	}
	{
		kind, network := strings.CutSuffix(c.Sandbox, "+network")
		if s.Sandbox.Kind, err = policy.ParseSandboxKind(kind); err != nil {
			t.Fatal(err)
		}
		s.Sandbox.NetworkAccess = network
	}
	return s
}

func (c *ruleCase) call() policy.Call {
	call := policy.Call{Tool: c.Call.Tool}
	switch {
	case c.Call.Command != "":
		call.Effects = []policy.Effect{{Kind: policy.EffectExec, Command: c.Call.Command, Cwd: ruleWS}}
	case c.Call.Paths != nil:
		var ps []string
		for _, p := range c.Call.Paths {
			ps = append(ps, abs(p))
		}
		call.Effects = []policy.Effect{{Kind: policy.EffectWrite, Paths: ps}}
	case c.Call.Read != nil:
		call.Effects = []policy.Effect{{Kind: policy.EffectRead, Paths: []string{abs(c.Call.Read[0])}}}
	case c.Call.Hosts != nil:
		call.Effects = []policy.Effect{{Kind: policy.EffectNetwork, Hosts: c.Call.Hosts}}
	case c.Call.Browser != "":
		call.Effects = []policy.Effect{{Kind: policy.EffectBrowser, Action: "navigate", Origin: c.Call.Browser}}
	case c.Call.MCP != "":
		srv, tool, _ := strings.Cut(c.Call.MCP, "/")
		call.Effects = []policy.Effect{{Kind: policy.EffectMcp, Server: srv, Tool: tool}}
	}
	return call
}

func readRuleCases(t testing.TB) []ruleCase {
	f, err := os.Open("testdata/rules/decide.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ruleCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c ruleCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		out = append(out, c)
	}
	return out
}

func TestRulesDecide(t *testing.T) {
	cases := readRuleCases(t)
	if len(cases) < 60 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			e, ws := tiersEngine(t, c.Tiers)
			s := c.session(t, ws)
			call := c.call()
			if c.Grant == "all" {
				sig := e.Decide(call, s).Signature
				s.Grants = []policy.Grant{{ID: "g1", Signature: sig, Scope: policy.ScopeSession, Reasons: policy.AllReasons()}}
			}
			d := e.Decide(call, s)
			fail := func(what string) {
				t.Helper()
				js, _ := json.MarshalIndent(d, "", "  ")
				t.Fatalf("%s\n%s", what, js)
			}
			if string(d.Verdict) != c.Want {
				fail("want " + c.Want)
			}
			if c.Layer != "" && string(d.Layer) != c.Layer {
				fail("want layer " + c.Layer)
			}
			if c.Reason != "" && string(d.Reason) != c.Reason {
				fail("want reason " + c.Reason)
			}
			for _, r := range strings.Split(c.Reasons, ",") {
				if r == "" {
					continue
				}
				found := false
				for _, x := range d.Reasons {
					found = found || string(x) == r
				}
				if !found {
					fail("want reason " + r + " among the ask's")
				}
			}
			if c.Source != "" && !strings.HasPrefix(d.Source, c.Source) {
				fail("want source " + c.Source)
			}
			if c.Detail != "" && !strings.Contains(d.Detail, c.Detail) {
				fail("want detail " + c.Detail)
			}
			if c.AlwaysRefused && d.AlwaysRefused == "" {
				fail("want always refused")
			}
			if d.Layer == policy.LayerOrg {
				// Every decision the organisation shaped names the
				// policy's digest, on the decision and in its trace.
				if !strings.Contains(d.LayerDetail, "sha256:") || !traceHas(d.Trace, "sha256:") && !strings.Contains(d.Detail, "sha256") {
					fail("an org decision must name the policy digest")
				}
			}
		})
	}
}

func traceHas(tr []policy.Step, s string) bool {
	for _, st := range tr {
		if strings.Contains(st.Saw, s) || strings.Contains(st.Concluded, s) {
			return true
		}
	}
	return false
}

// A proxied destination: the [network] allow list never widens an org or
// rule denial, nor answers a rule's ask.
func TestHostListsUnderRules(t *testing.T) {
	e, _ := tiersEngine(t, "org,user")
	s := policy.Session{Workspace: ruleWS, Caged: true, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}}
	lists, err := policy.ParseHostRules([]string{"*.internal.corp.example", "x.pastebin.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"db.internal.corp.example", "x.pastebin.com"} {
		dest := policy.Destination{Host: host, Port: 443}
		d := lists.Apply(dest, e.Decide(policy.NetworkCall(dest), s))
		if d.Verdict != policy.VerdictDeny || d.Layer != policy.LayerOrg {
			t.Fatalf("%s: the allow list widened the org's denial: %+v", host, d)
		}
	}
	ask, err := orgpolicy.ParseRules([]byte(`[[rule]]
hosts = ["*.example.org"]
decision = "ask"
why = "look first"
examples = ["a.example.org"]
`), "/u/rules.toml", policy.TierUser)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := policy.CompileRules(ask)
	if err != nil {
		t.Fatal(err)
	}
	e2 := policy.New(policy.Config{Rules: rs})
	lists2, _ := policy.ParseHostRules([]string{"*.example.org"}, nil)
	dest := policy.Destination{Host: "a.example.org", Port: 443}
	if d := lists2.Apply(dest, e2.Decide(policy.NetworkCall(dest), s)); d.Verdict != policy.VerdictAsk {
		t.Fatalf("the allow list answered a rule's ask: %+v", d)
	}
}
