package policy

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"testing"
)

type networkCases struct {
	Patterns []struct {
		Name, Pattern, Host string
		Port                int
		Match               bool
	}
	Invalid   []struct{ Name, Pattern string }
	Addrs     []struct{ Name, Addr, Class string }
	Decisions []struct {
		Name, Approval, Host, Grant, Verdict, Source, Reason string
		Port                                                 int
		Addrs, Allow, Deny                                   []string
		Network                                              *bool
		Planning                                             bool
	}
}

func loadNetworkCases(t *testing.T) networkCases {
	t.Helper()
	b, err := os.ReadFile("testdata/network_hosts.json")
	if err != nil {
		t.Fatal(err)
	}
	var c networkCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHostPatternMatches(t *testing.T) {
	for _, tc := range loadNetworkCases(t).Patterns {
		t.Run(tc.Name, func(t *testing.T) {
			p, err := ParseHostPattern(tc.Pattern)
			if err != nil {
				t.Fatalf("parse %q: %v", tc.Pattern, err)
			}
			if got := p.Matches(CanonicalHost(tc.Host), tc.Port); got != tc.Match {
				t.Fatalf("%q matches %s:%d = %v, want %v", tc.Pattern, tc.Host, tc.Port, got, tc.Match)
			}
		})
	}
}

func TestHostPatternInvalid(t *testing.T) {
	for _, tc := range loadNetworkCases(t).Invalid {
		t.Run(tc.Name, func(t *testing.T) {
			if p, err := ParseHostPattern(tc.Pattern); err == nil {
				t.Fatalf("%q parsed as %+v, want an error", tc.Pattern, p)
			}
		})
	}
}

func TestClassifyAddr(t *testing.T) {
	for _, tc := range loadNetworkCases(t).Addrs {
		t.Run(tc.Name, func(t *testing.T) {
			if got := ClassifyAddr(netip.MustParseAddr(tc.Addr)); string(got) != tc.Class {
				t.Fatalf("%s is %s, want %s", tc.Addr, got, tc.Class)
			}
		})
	}
}

func TestNetworkDecision(t *testing.T) {
	e := New(Config{})
	for _, tc := range loadNetworkCases(t).Decisions {
		t.Run(tc.Name, func(t *testing.T) {
			ap, err := ParseApprovalPolicy(tc.Approval)
			if err != nil {
				t.Fatal(err)
			}
			s := Session{Workspace: "/w", Approval: ap, Caged: true, Planning: tc.Planning,
				Sandbox: SandboxPolicy{Kind: WorkspaceWrite, NetworkAccess: tc.Network == nil || *tc.Network}}
			if tc.Grant != "" {
				s.Grants = []Grant{{ID: "g1", Signature: tc.Grant, Scope: ScopeSession, Reasons: []Reason{ReasonNetworkRequest}}}
			}
			rules, err := ParseHostRules(tc.Allow, tc.Deny)
			if err != nil {
				t.Fatal(err)
			}
			d := Destination{Host: CanonicalHost(tc.Host), Port: tc.Port}
			for _, a := range tc.Addrs {
				d.Addrs = append(d.Addrs, netip.MustParseAddr(a))
			}
			got := rules.Apply(d, e.Decide(NetworkCall(d), s))
			if string(got.Verdict) != tc.Verdict || got.Source != tc.Source || string(got.Reason) != tc.Reason {
				t.Fatalf("got %s source=%q reason=%q (%s), want %s source=%q reason=%q\ntrace: %+v",
					got.Verdict, got.Source, got.Reason, got.Detail, tc.Verdict, tc.Source, tc.Reason, got.Trace)
			}
			if want := NetworkSignature(tc.Host, tc.Port); got.Signature != want {
				t.Fatalf("signature %q, want %q", got.Signature, want)
			}
			if got.Verdict == VerdictDeny && (got.Detail == "" || got.Remedy == "" && got.Reason != ReasonPlanningFreeze) {
				t.Fatalf("a denial names what and how to allow it: %+v", got)
			}
		})
	}
}

func FuzzParseHostPattern(f *testing.F) {
	for _, s := range []string{"registry.npmjs.org", "*.github.com:443", "[::1]:8080", "127.0.0.1:80", "*", "a..b", "x:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseHostPattern(s)
		if err != nil {
			return
		}
		// The canonical spelling parses to the same pattern.
		q, err := ParseHostPattern(p.String())
		if err != nil {
			t.Fatalf("%q → %q does not parse: %v", s, p.String(), err)
		}
		if q.Host != p.Host || q.Port != p.Port {
			t.Fatalf("%q → %+v, its spelling %q → %+v", s, p, p.String(), q)
		}
		if p.Port < 0 || p.Port > 65535 {
			t.Fatalf("port %d", p.Port)
		}
	})
}

func TestExplicitLoopback(t *testing.T) {
	for _, tc := range []struct {
		name  string
		allow []string
		want  []string
	}{
		{"none", []string{"registry.npmjs.org", "*"}, nil},
		{"ip with port", []string{"127.0.0.1:4873", "127.0.0.1:5000"}, []string{"127.0.0.1"}},
		{"other loopback ip and names", []string{"127.0.0.2:80", "localhost:3000", "[::1]:8080"}, []string{"127.0.0.2", "localhost", "::1"}},
		{"private is not loopback", []string{"10.0.0.5:443"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseHostRules(tc.allow, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := r.ExplicitLoopback()
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
