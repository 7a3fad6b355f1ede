package gate

// Network decisions of a running call. A caged command with network reaches
// the outside only through Warden's proxy; each new destination host:port it
// names is decided here, through the same chain as the call itself (the
// engine on policy.NetworkCall, then the [network] lists), and an Ask goes to
// the same Approver as any call: "Always allow" remembers net:<host>:<port>.
// The ask waits at most NetworkConfig.AskTimeout: an unanswered one refuses
// that connection (the command reads a 403 naming the host and how to allow
// it); the command itself never hangs on it. Every connection ends in one
// store.NetworkConnection.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/cage/netproxy"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// DefaultNetworkAskTimeout bounds a network ask when none is configured.
const DefaultNetworkAskTimeout = 2 * time.Minute

// NetworkConfig is the gate's network input: the [network] allow/deny lists
// plus --allow-host, and how long one destination's ask may wait.
type NetworkConfig struct {
	Rules      policy.HostRules
	AskTimeout time.Duration
	// Resolve looks host names up for the proxy; nil is the system
	// resolver (tests map names to their loopback servers).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// netCall decides the destinations of one call's commands, each once.
type netCall struct {
	g       *Gate
	env     tools.Env
	req     Request // the call's: its session source and human
	network NetworkConfig
	callID  string
	tool    string // the call's tool, named in the ask
	// decidedOrigins are the host:port of the browser origins the call
	// itself was decided on, by host:port, with the origin.
	decidedOrigins map[string]string

	mu      sync.Mutex
	decided map[string]*netDecision
	refused []string
}

type netDecision struct {
	done chan struct{}
	v    netproxy.Verdict
}

// egress is what the call's cage routes its connections through.
func (g *Gate) egress(env tools.Env, req Request, callID, tool string, effects []policy.Effect) *sandbox.Egress {
	nc := &netCall{g: g, env: env, req: req, network: g.networkConfig(), callID: callID, tool: tool,
		decided: map[string]*netDecision{}, decidedOrigins: map[string]string{}}
	for _, e := range effects {
		if e.Kind != policy.EffectBrowser || e.Origin == "" {
			continue
		}
		if u, err := url.Parse(e.Origin); err == nil && u.Port() != "" {
			if port, err := strconv.Atoi(u.Port()); err == nil {
				nc.decidedOrigins[policy.Destination{Host: policy.CanonicalHost(u.Hostname()), Port: port}.String()] = e.Origin
			}
		}
	}
	return &sandbox.Egress{Decider: nc, Observe: nc.observe, Resolver: nc.network.Resolve,
		HostLoopback: nc.network.Rules.ExplicitLoopback()}
}

// Decide implements netproxy.Decider. Concurrent connections to the same new
// destination share one decision (one ask, not one per connection). The
// proxy asks first about the name alone (d.Addrs empty: nothing resolved
// yet, so a refused name reaches no resolver) and then, once the name is
// allowed, about the addresses it resolved to; each step is decided once
// per destination (and per set of addresses).
func (nc *netCall) Decide(ctx context.Context, d policy.Destination) netproxy.Verdict {
	key := decisionKey(d)
	nc.mu.Lock()
	if e, ok := nc.decided[key]; ok {
		nc.mu.Unlock()
		select {
		case <-e.done:
			return e.v
		case <-ctx.Done():
			return netproxy.Verdict{Reason: string(policy.ReasonNoApprover), Detail: "the command ended before " + key + " was decided"}
		}
	}
	e := &netDecision{done: make(chan struct{})}
	nc.decided[key] = e
	nc.mu.Unlock()
	e.v = nc.decide(ctx, d)
	close(e.done)
	return e.v
}

// decisionKey names one step of a destination's decision: its name, or its
// name with the addresses it resolved to.
func decisionKey(d policy.Destination) string {
	if len(d.Addrs) == 0 || literal(d) {
		return d.String()
	}
	addrs := make([]string, len(d.Addrs))
	for i, a := range d.Addrs {
		addrs[i] = a.String()
	}
	return d.String() + " → " + strings.Join(addrs, ",")
}

// literal says the destination is an IP address, decided in one step.
func literal(d policy.Destination) bool {
	return len(d.Addrs) == 1 && d.Addrs[0].String() == d.Host
}

// nameVerdict is the decision already made on d's name, if any.
func (nc *netCall) nameVerdict(d policy.Destination) (netproxy.Verdict, bool) {
	nc.mu.Lock()
	e, ok := nc.decided[policy.Destination{Host: d.Host, Port: d.Port}.String()]
	nc.mu.Unlock()
	if !ok {
		return netproxy.Verdict{}, false
	}
	<-e.done
	return e.v, true
}

func (nc *netCall) decide(ctx context.Context, dest policy.Destination) netproxy.Verdict {
	named := len(dest.Addrs) == 0
	if !named && !literal(dest) && allPublic(dest.Addrs) {
		// An allowed name that resolved to public addresses only: the
		// name's decision is the connection's.
		if v, ok := nc.nameVerdict(dest); ok && v.Allow {
			return v
		}
	}
	g := nc.g
	s, err := g.session(ctx, Request{Env: nc.env, Session: nc.req.Session})
	if err != nil {
		return netproxy.Verdict{Reason: "session", Detail: "the session could not be read: " + err.Error()}
	}
	call := policy.NetworkCall(dest)
	d := nc.network.Rules.Apply(dest, g.cfg.Decider.Decide(call, s))
	if origin, ok := nc.decidedOrigins[dest.String()]; ok && d.Verdict == policy.VerdictAsk && (named || allPublic(dest.Addrs)) {
		// The browser call was decided (asked, if need be) on this very
		// origin; its page load is that decision, not a second question.
		// A private or metadata address still needs its own answer.
		d = policy.Decision{Verdict: policy.VerdictAllow, Source: policy.SourceBrowserCall + origin, Signature: d.Signature, Trace: d.Trace}
	}
	if d.Verdict == policy.VerdictAsk {
		t := netTool{dest: dest, sig: call.Tool, via: nc.tool}
		args, _ := json.Marshal(map[string]any{"host": dest.Host, "port": dest.Port})
		// Its own call id per destination (the broker keys asks by call), never
		// one a resumed turn could mistake for a model or "!" call.
		callID := call.Tool + "@" + nc.callID
		if !named && !literal(dest) {
			// The second question about one destination: its addresses.
			callID += "#addrs"
		}
		id := ask.ID{SessionID: nc.env.SessionID, RequestID: g.cfg.NewID(), CallID: callID, Tool: call.Tool}
		timeout := nc.network.AskTimeout
		if timeout <= 0 {
			timeout = DefaultNetworkAskTimeout
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		// The session's answerers answer a destination's ask too.
		lu := g.lineup(actx, CallInfo{SessionID: nc.env.SessionID, CallID: id.CallID, Tool: call.Tool, Workspace: s.Workspace,
			Sandbox: s.Sandbox, Approval: s.Approval, Caged: s.Caged, Effects: call.Effects, Args: args, Decision: d})
		final, err := g.ask(actx, askCall{tool: t, args: args, env: nc.env, effects: call.Effects, approver: nc.req.Approver,
			session: nc.req.Session, risk: policy.RiskOf(call, s), sess: s, lineup: lu, humanOnly: notPublic(dest)}, d, id, false)
		cancel()
		if err != nil {
			return netproxy.Verdict{Reason: "journal", Detail: err.Error()}
		}
		d = final
	}
	if d.Verdict == policy.VerdictAllow {
		return netproxy.Verdict{Allow: true, By: d.Source}
	}
	v := netproxy.Verdict{Reason: string(d.Reason), Detail: d.Detail, Remedy: d.Remedy}
	if d.Reason == policy.ReasonNoApprover || d.Reason == policy.ReasonUserDenied {
		// The ask's remedy speaks of calls; the proxy says how to allow
		// the host instead.
		v.Remedy = ""
	}
	nc.mu.Lock()
	nc.refused = append(nc.refused, refusalLine(dest, v))
	nc.mu.Unlock()
	return v
}

// notPublic says, in words, why only a human may answer for dest: it is
// (or resolves to) a loopback, private, link-local or metadata address,
// which the engine lets through only on a human's answer or an exact allow
// entry; "" when every address is public.
func notPublic(dest policy.Destination) string {
	addrs := dest.Addrs
	if a, err := netip.ParseAddr(dest.Host); err == nil {
		addrs = append(addrs, a)
	}
	own := ownAddrs()
	for _, a := range addrs {
		if c := policy.ClassifyAddr(a); c != policy.AddrPublic {
			return dest.String() + " is a " + string(c) + " address, which only your answer reaches"
		}
		if own[a.Unmap().WithZone("")] {
			return dest.String() + " is an address of this machine (its services are outside the cage), which only your answer reaches"
		}
	}
	return ""
}

// ownAddrs are this machine's interface addresses: a public one reaches
// the host's own services as surely as loopback does.
func ownAddrs() map[netip.Addr]bool {
	out := map[netip.Addr]bool{}
	as, err := net.InterfaceAddrs()
	if err != nil {
		return out
	}
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out[ip.Unmap()] = true
			}
		}
	}
	return out
}

// allPublic says every address is a public one (none loopback, link-local,
// private or metadata).
func allPublic(addrs []netip.Addr) bool {
	for _, a := range addrs {
		if policy.ClassifyAddr(a) != policy.AddrPublic {
			return false
		}
	}
	return len(addrs) > 0
}

func refusalLine(d policy.Destination, v netproxy.Verdict) string {
	line := fmt.Sprintf("network: %s refused (%s)", d, v.Reason)
	if v.Detail != "" {
		line += ": " + v.Detail
	}
	remedy := v.Remedy
	if remedy == "" {
		remedy = fmt.Sprintf("--allow-host %[1]s, or [network] allow = [\"%[1]s\"] in config.toml", d)
	}
	return line + ". To allow it: " + remedy
}

// observe records the connection's event. It is owed to the log even when
// the command's context has ended.
func (nc *netCall) observe(c netproxy.Conn) {
	ev := store.NetworkConnection{CallID: nc.callID, Host: c.Host, Port: c.Port, Addr: c.Addr, Proto: c.Proto,
		Allowed: c.Allowed, AllowedBy: c.By, Reason: c.Reason, Detail: c.Detail, Error: c.Error,
		BytesUp: c.BytesUp, BytesDown: c.BytesDown, DurationMs: c.Duration.Milliseconds()}
	_, _ = nc.g.log.Append(context.Background(), nc.env.SessionID, store.AnyVersion, ev)
}

// Refused lists what the call's commands were refused, one line each with
// how to allow it, for the model to read (tools.RefusedConnections).
func (nc *netCall) Refused() []string {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	return append([]string(nil), nc.refused...)
}

// netTool is how a destination appears to the approver: its name is the
// signature net:<host>:<port>, and its preview says what is being reached.
// It is never invoked; the proxy carries the connection.
type netTool struct {
	dest policy.Destination
	sig  string
	via  string // the tool whose call made the connection
}

func (t netTool) Name() string { return t.sig }
func (t netTool) Description() string {
	return "a connection of a caged command through Warden's proxy"
}
func (netTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (netTool) Risk() policy.Risk       { return policy.RiskMedium }
func (t netTool) Effects(json.RawMessage, tools.Env) ([]policy.Effect, error) {
	return policy.NetworkCall(t.dest).Effects, nil
}
func (t netTool) Invoke(context.Context, json.RawMessage, tools.Env) (tools.Result, error) {
	return tools.ErrorResult(t.sig + " is a network destination; the proxy carries it, nothing is invoked"), nil
}

func (t netTool) Preview(json.RawMessage, tools.Env) (string, error) {
	parts := make([]string, len(t.dest.Addrs))
	public := true
	for i, a := range t.dest.Addrs {
		parts[i] = a.String()
		if c := policy.ClassifyAddr(a); c != policy.AddrPublic {
			parts[i] += ", a " + string(c) + " address of this machine's network"
			public = false
		}
	}
	lit := literal(t.dest)
	where := ""
	switch {
	case len(parts) == 0:
		where = " (not looked up yet: Warden resolves a name only once it is allowed)"
	case lit && public:
	case lit:
		where = " (" + parts[0] + ")"
	default:
		where = " (resolves to " + strings.Join(parts, "; ") + ")"
	}
	by := ""
	if t.via != "" {
		// A caged MCP server connects on behalf of its tool's call: the
		// human sees which server wants the host.
		by = " for " + t.via
	}
	return fmt.Sprintf("Network: connect to %s%s through Warden's proxy%s.\n\"Always allow\" remembers %s.", t.dest, where, by, t.sig), nil
}
