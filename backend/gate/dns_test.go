package gate

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/netproxy/dnstest"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// A caged command's names reach Warden's resolver only once the gate
// allowed them: a real DNS server (the proxy's only resolver here) sees no
// query for a name the [network] deny list refuses, one whose ask nobody
// answers, or one a human refuses, through the proxy's HTTP and SOCKS5
// (socks5h: the name travels to the proxy) alike. An allowed name is
// looked up, which shows the listener hears the proxy.
func TestGateDecidesNamesBeforeResolving(t *testing.T) {
	cage := testCage(t)
	port, accepted := hostService(t)
	for _, tc := range []struct {
		name     string
		host     string
		approval policy.ApprovalPolicy
		approver *answer
		allow    []string
		deny     []string
		query    bool
	}{
		{name: "deny list", host: "x.denied.example", approval: policy.OnRequest, deny: []string{"*.denied.example"}},
		{name: "deny list under never", host: "x.denied.example", approval: policy.Never, deny: []string{"*.denied.example"}},
		{name: "headless ask", host: "nobody.example", approval: policy.OnRequest},
		{name: "unanswered ask", host: "nobody.example", approval: policy.OnRequest, approver: &answer{never: true}},
		{name: "a human refuses", host: "refused.example", approval: policy.OnRequest, approver: &answer{a: Approval{Note: "no"}}},
		{name: "always asks, nobody there", host: "nobody.example", approval: policy.Always},
		{name: "data in the name, denied", host: "c2VjcmV0.exfil.example", approval: policy.OnRequest, deny: []string{"*.exfil.example"}},
		{name: "exact allow entry: looked up, then reached", host: "allowed.example", approval: policy.OnRequest,
			allow: []string{fmt.Sprintf("allowed.example:%d", port)}, query: true},
	} {
		for _, via := range []string{"http", "socks5h"} {
			t.Run(tc.name+" via "+via, func(t *testing.T) {
				accepted.Store(0)
				dns := dnstest.Start(t, map[string]string{tc.host: "127.0.0.1"})
				env := testEnv(t)
				env.Sandbox.NetworkAccess = true
				rules, err := policy.ParseHostRules(tc.allow, tc.deny)
				if err != nil {
					t.Fatal(err)
				}
				s := policy.Session{Workspace: env.Workspace, Approval: tc.approval, Sandbox: env.Sandbox, Caged: true, NetworkProxied: true}
				cfg := Config{Decider: policy.New(policy.Config{}), Journal: &journal{}, ApprovalTimeout: 50 * time.Millisecond,
					Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil },
					Network: NetworkConfig{Rules: rules, AskTimeout: 300 * time.Millisecond, Resolve: dns.Resolve}}
				if tc.approver != nil {
					cfg.Approver = tc.approver
				}
				g, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				url := fmt.Sprintf("http://%s:%d/x", tc.host, port)
				cmd := "curl -sS --max-time 20 " + url
				if via == "socks5h" {
					cmd = "curl -sS --max-time 20 --socks5-hostname 127.0.0.1:3128 " + url
				}
				out, err := callGate(g, context.Background(), &alwaysAllowed{tools.NewShellExec(cage)}, mustJSON(t, map[string]any{"command": cmd}), env)
				if err != nil {
					t.Fatal(err)
				}
				res := text(out.Result)
				if asked := dns.Asked(tc.host); asked != tc.query {
					t.Fatalf("the DNS listener saw a query for %s: %v, want %v (queries %v)\n%s", tc.host, asked, tc.query, dns.Queries(), res)
				}
				if !tc.query && len(dns.Queries()) > 0 {
					t.Fatalf("the DNS listener saw %v\n%s", dns.Queries(), res)
				}
				reached := strings.Contains(res, "reached-the-host-service")
				if reached != tc.query || (accepted.Load() > 0) != tc.query {
					t.Fatalf("reached %v (host service accepted %d), want %v:\n%s", reached, accepted.Load(), tc.query, res)
				}
			})
		}
	}
}
