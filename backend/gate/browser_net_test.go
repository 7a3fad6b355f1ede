package gate

import (
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// browserProbe is a browser call on an origin whose invocation asks its
// Egress about destinations, as the browser's proxy does for the page's
// requests: what the gate decides, without a Chromium.
type browserProbe struct {
	origin string
	dests  []policy.Destination
	got    []string // "host:port allow by" or "host:port refused reason"
}

func (b *browserProbe) Name() string            { return "browser.action" }
func (b *browserProbe) Description() string     { return "probe" }
func (b *browserProbe) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (b *browserProbe) Risk() policy.Risk       { return policy.RiskMedium }
func (b *browserProbe) Effects(json.RawMessage, tools.Env) ([]policy.Effect, error) {
	return []policy.Effect{{Kind: policy.EffectBrowser, Action: "navigate", Origin: b.origin}}, nil
}
func (b *browserProbe) Invoke(ctx context.Context, _ json.RawMessage, env tools.Env) (tools.Result, error) {
	for _, d := range b.dests {
		v := env.Egress.Decider.Decide(ctx, d)
		if v.Allow {
			b.got = append(b.got, d.String()+" allow "+v.By)
		} else {
			b.got = append(b.got, d.String()+" refused "+v.Reason)
		}
	}
	return tools.Result{Content: []tools.Content{{Type: "text", Text: strings.Join(b.got, "\n")}}}, nil
}

// A browser call is decided on its origin; the page's connection to that
// very origin is that decision and is not asked again. Every other host the
// page reaches is decided by itself (asked under On request), and a private
// address is never waved through by the call's origin.
func TestGateBrowserCallDecidesItsOwnOrigin(t *testing.T) {
	public := netip.MustParseAddr("93.184.215.14")
	private := netip.MustParseAddr("10.1.2.3")
	site := policy.Destination{Host: "site.example", Port: 443, Addrs: []netip.Addr{public}}
	cdn := policy.Destination{Host: "cdn.example", Port: 443, Addrs: []netip.Addr{public}}
	intranet := policy.Destination{Host: "intranet.example", Port: 80, Addrs: []netip.Addr{private}}
	for _, tc := range []struct {
		name     string
		approval policy.ApprovalPolicy
		origin   string
		dests    []policy.Destination
		approve  bool
		asks     []string // tools asked for, in order
		want     []string
	}{
		{name: "the navigate target is asked once, as the call", approval: policy.OnRequest, origin: "https://site.example:443",
			dests: []policy.Destination{site}, approve: true,
			asks: []string{"browser.action"}, want: []string{"site.example:443 allow browser-call:https://site.example:443"}},
		{name: "another host of the page is asked by itself", approval: policy.OnRequest, origin: "https://site.example:443",
			dests: []policy.Destination{site, cdn}, approve: true,
			asks: []string{"browser.action", "net:cdn.example:443"},
			want: []string{"site.example:443 allow browser-call:https://site.example:443", "cdn.example:443 allow human:once"}},
		{name: "a denied call reaches nothing", approval: policy.OnRequest, origin: "https://site.example:443",
			dests: []policy.Destination{site, cdn}, approve: false,
			asks: []string{"browser.action"},
			want: nil},
		{name: "a private target is not waved through by the call", approval: policy.Never, origin: "http://intranet.example:80",
			dests: []policy.Destination{intranet},
			want:  []string{"intranet.example:80 refused private-address"}},
		{name: "approval never lets a public host through", approval: policy.Never, origin: "https://site.example:443",
			dests: []policy.Destination{cdn},
			want:  []string{"cdn.example:443 allow sandbox+policy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			env.Sandbox.NetworkAccess = true
			s := policy.Session{Workspace: env.Workspace, Approval: tc.approval, Sandbox: env.Sandbox, Caged: true}
			ans := &answer{a: Approval{Approved: tc.approve}}
			g, err := New(Config{Decider: policy.New(policy.Config{}), Journal: &journal{}, Approver: ans,
				Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil }})
			if err != nil {
				t.Fatal(err)
			}
			probe := &browserProbe{origin: tc.origin, dests: tc.dests}
			if _, err := callGate(g, context.Background(), probe, json.RawMessage(`{}`), env); err != nil {
				t.Fatal(err)
			}
			var asked []string
			for _, r := range ans.asked {
				asked = append(asked, r.Tool)
			}
			if strings.Join(asked, ",") != strings.Join(tc.asks, ",") {
				t.Errorf("asked for %v, want %v", asked, tc.asks)
			}
			if strings.Join(probe.got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("decisions:\n%s\nwant:\n%s", strings.Join(probe.got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
