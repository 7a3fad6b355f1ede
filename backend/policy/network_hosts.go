package policy

// Network by host: the decision for one destination of a caged command's
// proxy (permission-model.md, "Network through the proxy").
//
// A caged command never shares the host's network; every connection it makes
// through Warden's proxy names a destination host:port, and each new one is
// decided here: the chain (freeze, sandbox, approval, grants) on a call whose
// tool and signature are net:<host>:<port>, then the [network] lists on top:
// a deny pattern refuses, an allow pattern admits (even under approval
// "always": the user listed it), and an address the name resolves to that is
// loopback, link-local, private or a metadata endpoint is reached only when
// listed explicitly: an allow entry naming that host exactly (no wildcard), a
// grant for its net:<host>:<port>, or a human answering its ask (the prompt
// shows the address). Approval "never" and wildcards never reach one.
// Everything here is pure: the proxy resolves names and passes the addresses.

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Network decision reasons (deny only).
const (
	// ReasonHostDenied: a [network] deny pattern matched the destination.
	ReasonHostDenied Reason = "host-denied"
	// ReasonPrivateAddress: the destination is (or resolves to) a loopback,
	// link-local, private or metadata address nobody listed explicitly.
	ReasonPrivateAddress Reason = "private-address"
)

// Sources of a network allow that the chain did not give.
const (
	// SourceNetworkAllow prefixes the allow pattern that admitted a host.
	SourceNetworkAllow = "network-allow:"
	// SourceBrowserCall prefixes the origin of a browser call that named
	// the destination itself (its navigate target): the call was decided
	// on that origin, so its connection is not asked for a second time.
	SourceBrowserCall = "browser-call:"
)

// HostPattern is one entry of [network] allow/deny or --allow-host:
// "registry.npmjs.org", "*.github.com:443", "10.0.0.5", "[::1]:8080", "*".
// A pattern without a port matches every port. "*.x" matches every name
// below x at any depth, not x itself.
type HostPattern struct {
	Raw  string `json:"raw"`
	Host string `json:"host"` // lower case, no trailing dot; "*" or "*.suffix" for wildcards
	Port int    `json:"port"` // 0: any
}

// Wildcard reports whether the pattern names hosts by a wildcard; only a
// pattern that is not one lists a private address explicitly.
func (p HostPattern) Wildcard() bool { return strings.HasPrefix(p.Host, "*") }

// String is the pattern in its canonical spelling.
func (p HostPattern) String() string {
	if p.Port == 0 {
		return p.Host
	}
	return net.JoinHostPort(p.Host, strconv.Itoa(p.Port))
}

// ParseHostPattern parses one pattern. Schemes, paths, user info, empty
// labels and wildcards anywhere but the whole first label are refused with an
// error that says so.
func ParseHostPattern(s string) (HostPattern, error) {
	raw := s
	s = strings.TrimSpace(s)
	if s == "" {
		return HostPattern{}, errors.New("empty host pattern")
	}
	if strings.Contains(s, "://") || strings.ContainsAny(s, "/?#@ \t") {
		return HostPattern{}, fmt.Errorf("host pattern %q: give a host name, optionally with :PORT (no scheme, path or user)", raw)
	}
	host, port := s, 0
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return HostPattern{}, fmt.Errorf("host pattern %q: unclosed [", raw)
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return HostPattern{}, fmt.Errorf("host pattern %q: unexpected %q after ]", raw, rest)
			}
			p, err := parsePort(rest[1:])
			if err != nil {
				return HostPattern{}, fmt.Errorf("host pattern %q: %w", raw, err)
			}
			port = p
		}
		if _, err := netip.ParseAddr(host); err != nil {
			return HostPattern{}, fmt.Errorf("host pattern %q: %q is not an IPv6 address", raw, host)
		}
	case strings.Count(s, ":") == 1:
		h, ps, _ := strings.Cut(s, ":")
		p, err := parsePort(ps)
		if err != nil {
			return HostPattern{}, fmt.Errorf("host pattern %q: %w", raw, err)
		}
		host, port = h, p
	case strings.Count(s, ":") > 1:
		if _, err := netip.ParseAddr(s); err != nil {
			return HostPattern{}, fmt.Errorf("host pattern %q: an IPv6 address with a port is written [ADDR]:PORT", raw)
		}
	}
	host = CanonicalHost(host)
	if err := checkPatternHost(host); err != nil {
		return HostPattern{}, fmt.Errorf("host pattern %q: %w", raw, err)
	}
	return HostPattern{Raw: raw, Host: host, Port: port}, nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return p, nil
}

func checkPatternHost(h string) error {
	if h == "*" {
		return nil
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return nil
	}
	name := strings.TrimPrefix(h, "*.")
	if name == "" {
		return errors.New("empty host")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return errors.New("empty label (two dots in a row?)")
		}
		if len(label) > 63 {
			return fmt.Errorf("label %q is longer than 63 characters", label)
		}
		for _, r := range label {
			ok := r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
			if !ok {
				if r == '*' {
					return errors.New("a wildcard may only be the whole first label (*.example.com)")
				}
				return fmt.Errorf("%q is not allowed in a host name", r)
			}
		}
	}
	return nil
}

// CanonicalHost is the form hosts are compared in: lower case, no brackets,
// no trailing dot, IP addresses in their canonical text (so 127.000.0.1 or
// ::ffff:127.0.0.1 cannot pass for something else).
func CanonicalHost(h string) string {
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().WithZone("").String()
	}
	return h
}

// Matches reports whether the pattern covers host:port (host canonical).
func (p HostPattern) Matches(host string, port int) bool {
	if p.Port != 0 && p.Port != port {
		return false
	}
	switch {
	case p.Host == "*":
		return true
	case strings.HasPrefix(p.Host, "*."):
		return strings.HasSuffix(host, p.Host[1:]) && net.ParseIP(host) == nil
	}
	return p.Host == host
}

// HostRules are the [network] lists plus the --allow-host entries.
type HostRules struct {
	Allow []HostPattern `json:"allow,omitempty"`
	Deny  []HostPattern `json:"deny,omitempty"`
}

// ParseHostRules parses both lists; every bad entry is reported.
func ParseHostRules(allow, deny []string) (HostRules, error) {
	var r HostRules
	var errs []error
	for _, s := range allow {
		p, err := ParseHostPattern(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("allow: %w", err))
			continue
		}
		r.Allow = append(r.Allow, p)
	}
	for _, s := range deny {
		p, err := ParseHostPattern(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("deny: %w", err))
			continue
		}
		r.Deny = append(r.Deny, p)
	}
	return r, errors.Join(errs...)
}

// With returns the rules with more allow entries (the CLI's --allow-host).
func (r HostRules) With(allow ...HostPattern) HostRules {
	out := HostRules{Allow: append(append([]HostPattern(nil), r.Allow...), allow...), Deny: r.Deny}
	return out
}

// AddrClass is what kind of address a destination is.
type AddrClass string

const (
	AddrPublic      AddrClass = "public"
	AddrLoopback    AddrClass = "loopback"
	AddrPrivate     AddrClass = "private"
	AddrLinkLocal   AddrClass = "link-local"
	AddrMetadata    AddrClass = "metadata"
	AddrUnspecified AddrClass = "unspecified"
	AddrMulticast   AddrClass = "multicast"
)

// metadataAddrs are cloud instance-metadata endpoints outside link-local.
var metadataAddrs = []netip.Prefix{
	netip.MustParsePrefix("169.254.169.254/32"),
	netip.MustParsePrefix("fd00:ec2::254/128"),
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud
}

// otherPrivate are special-purpose ranges the standard library does not call
// private but that never lead to the public internet (CGNAT, benchmarking,
// documentation, IPv4-translated and 6to4 forms are left to Unmap).
var otherPrivate = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

// ClassifyAddr says what kind of address a is. Only AddrPublic is reached
// without an explicit listing.
func ClassifyAddr(a netip.Addr) AddrClass {
	a = a.Unmap().WithZone("")
	for _, p := range metadataAddrs {
		if p.Contains(a) {
			return AddrMetadata
		}
	}
	switch {
	case !a.IsValid(), a.IsUnspecified():
		return AddrUnspecified
	case a.IsLoopback():
		return AddrLoopback
	case a.IsLinkLocalUnicast():
		return AddrLinkLocal
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return AddrMulticast
	case a.IsPrivate():
		return AddrPrivate
	}
	if a.Is4() && a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return AddrMulticast
	}
	for _, p := range otherPrivate {
		if p.Contains(a) {
			return AddrPrivate
		}
	}
	return AddrPublic
}

// Destination is one host:port a caged command wants to reach, with the
// addresses the proxy resolved it to (an IP literal resolves to itself).
type Destination struct {
	Host  string       `json:"host"` // canonical
	Port  int          `json:"port"`
	Addrs []netip.Addr `json:"addrs,omitempty"`
}

// String is host:port.
func (d Destination) String() string { return net.JoinHostPort(d.Host, strconv.Itoa(d.Port)) }

// NetworkSignature is what "always allow" remembers for a destination.
func NetworkSignature(host string, port int) string {
	return "net:" + net.JoinHostPort(CanonicalHost(host), strconv.Itoa(port))
}

// NetworkCall is the call the chain decides for a destination: its tool name
// is the signature, so grants, re-decisions and the audit name the host.
func NetworkCall(d Destination) Call {
	return Call{Tool: NetworkSignature(d.Host, d.Port), Effects: []Effect{{Kind: EffectNetwork, Hosts: []string{d.String()}}}}
}

// Apply puts the [network] lists and the address rule on top of the chain's
// decision for NetworkCall(d). The result is the connection's decision.
func (r HostRules) Apply(d Destination, chain Decision) Decision {
	out := chain
	out.Trace = append([]Step(nil), chain.Trace...)
	sig := NetworkSignature(d.Host, d.Port)
	out.Signature = sig
	deny := func(reason Reason, saw, detail, remedy string) Decision {
		out.Trace = append(out.Trace, Step{Step: "network", Saw: saw, Concluded: "deny: " + detail})
		return Decision{Verdict: VerdictDeny, Reason: reason, Detail: detail, Remedy: remedy, Signature: sig, Trace: out.Trace}
	}
	if chain.Verdict == VerdictDeny && (chain.Reason == ReasonPlanningFreeze || chain.Reason == ReasonSandboxRejected ||
		chain.Layer == LayerOrg || chain.Layer == LayerRule) {
		// No list can widen the structural axes, the organisation's
		// ceilings or a deny rule.
		out.Trace = append(out.Trace, Step{Step: "network", Saw: d.String(), Concluded: "the chain denied it; lists not consulted"})
		return out
	}
	for _, p := range r.Deny {
		if p.Matches(d.Host, d.Port) {
			return deny(ReasonHostDenied, d.String()+" matches deny pattern "+p.String(),
				fmt.Sprintf("%s is denied by the [network] deny pattern %s", d, p),
				"remove "+p.String()+" from [network] deny in config.toml")
		}
	}
	var allowedBy *HostPattern
	explicit := false
	for i, p := range r.Allow {
		if p.Matches(d.Host, d.Port) {
			if allowedBy == nil || !p.Wildcard() && allowedBy.Wildcard() {
				allowedBy = &r.Allow[i]
			}
			explicit = explicit || !p.Wildcard()
		}
	}
	// A grant or a human's answer names exactly this host:port, so it lists
	// it as explicitly as an allow entry does.
	granted := chain.Verdict == VerdictAllow && (strings.HasPrefix(chain.Source, "session-grant:") || strings.HasPrefix(chain.Source, "workspace-rule:"))
	for _, a := range d.Addrs {
		c := ClassifyAddr(a)
		if c == AddrPublic || explicit || granted {
			continue
		}
		what := d.Host + " is"
		if CanonicalHost(a.String()) != d.Host {
			what = fmt.Sprintf("%s resolves to %s,", d.Host, a.Unmap())
		}
		saw := fmt.Sprintf("%s → %s (%s)", d, a.Unmap(), c)
		if chain.Verdict == VerdictAsk {
			// A human may list it by answering; nothing else does.
			out.Trace = append(out.Trace, Step{Step: "network", Saw: saw, Concluded: "ask: only a human's answer or an exact allow entry reaches a " + string(c) + " address"})
			return out
		}
		return deny(ReasonPrivateAddress, saw,
			fmt.Sprintf("%s a %s address of this machine's network; those are reached only when listed explicitly", what, c),
			fmt.Sprintf("list it by name: --allow-host %s, or [network] allow = [\"%s\"] in config.toml", d, d))
	}
	if allowedBy != nil && !ruleAsked(chain) {
		out.Trace = append(out.Trace, Step{Step: "network", Saw: d.String() + " matches allow pattern " + allowedBy.String(), Concluded: "allow"})
		return Decision{Verdict: VerdictAllow, Source: SourceNetworkAllow + allowedBy.String(), Signature: sig, Trace: out.Trace}
	}
	out.Trace = append(out.Trace, Step{Step: "network", Saw: d.String() + " is on no [network] list", Concluded: string(chain.Verdict) + " (the chain's decision)"})
	return out
}

// ExplicitLoopback lists the loopback hosts ("127.0.0.1", "localhost", "::1",
// ...) that an exact allow entry names: the user means the host's own
// service there, so the cage sends those names through the proxy instead of
// keeping them on its own loopback.
func (r HostRules) ExplicitLoopback() []string {
	var out []string
	for _, p := range r.Allow {
		if p.Wildcard() || !isLoopback(p.Host) {
			continue
		}
		dup := false
		for _, h := range out {
			dup = dup || h == p.Host
		}
		if !dup {
			out = append(out, p.Host)
		}
	}
	return out
}

// ruleAsked reports an ask a rule raised: deny beats ask beats allow, so
// an allow list entry does not answer it.
func ruleAsked(d Decision) bool {
	for _, r := range d.Reasons {
		if r == ReasonRuleAsk || r == ReasonOrgRuleAsk {
			return true
		}
	}
	return false
}
