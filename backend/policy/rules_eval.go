package policy

import (
	"fmt"
	"strings"

	classifier "github.com/warden-dev/warden/backend/policy/shell"
)

// The chain's organisation and rule steps (chain.go calls them):
//
//	org ceilings   after the sandbox: hosts outside the host ceiling, network
//	               when the policy turns it off, MCP servers off the allowlist
//	deny/ask rules org first, then user, then workspace; any deny wins
//	allow rules    after the approval policy: an ask whose every part an
//	               allow rule covers is allowed (org, user, workspace if the
//	               organisation permits)

// ruleSets are the sets a call is matched against, in tier order.
func (ev *evaluation) ruleSets() []*RuleSet {
	if !ev.setsDone {
		n := 0
		if ev.e.rules.Len() > 0 {
			ev.sets[n], n = ev.e.rules, n+1
		}
		if ev.s.Rules.Len() > 0 {
			ev.sets[n], n = ev.s.Rules, n+1
		}
		ev.nsets, ev.setsDone = n, true
	}
	return ev.sets[:ev.nsets]
}

// toolNames are the names a rule's tool is matched against: the call's
// tool and, for MCP effects, mcp-tool:<server>/<tool>.
func (ev *evaluation) toolNames() []string {
	if ev.names != nil {
		return ev.names
	}
	names := []string{ev.call.Tool}
	for i := range ev.call.Effects {
		if ef := &ev.call.Effects[i]; ef.Kind == EffectMcp {
			names = append(names, "mcp-tool:"+ef.Server+"/"+ef.Tool)
		}
	}
	ev.names = names
	return names
}

// callItems splits the call into the parts rules match, once.
func (ev *evaluation) callItems() []item {
	if ev.items != nil {
		return ev.items
	}
	items := []item{}
	ws := ev.s.Workspace
	for i := range ev.call.Effects {
		ef := &ev.call.Effects[i]
		n := len(items)
		switch ef.Kind {
		case EffectExec:
			_, cmds := ev.classifyCommands(i)
			items = append(items, commandItems(cmds, true)...)
			c := ev.classify(i)
			for _, p := range c.Writes {
				items = append(items, item{kind: itemPath, text: p})
			}
			for _, p := range c.Links {
				items = append(items, item{kind: itemPath, text: p})
			}
			for _, m := range c.Moves {
				for _, p := range m.Sources {
					items = append(items, item{kind: itemPath, text: p})
				}
				if m.Dest != "" {
					items = append(items, item{kind: itemPath, text: m.Dest})
				}
			}
			for _, h := range c.Hosts {
				items = append(items, hostItem(h, false))
			}
			// The transparent wrappers count for deny and ask.
			for j := range cmds {
				if cm := &cmds[j]; transparent[cm.Program] && !cm.Path && !cm.SetsEnv {
					items = append(items, item{kind: itemCommand, cmd: cm})
				}
			}
			if !hasRequired(items[n:]) {
				items = append(items, item{kind: itemTool, required: true})
			}
		case EffectRead, EffectWrite, EffectDestructive:
			for _, p := range ef.Paths {
				if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && ws != "" {
					p = ws + "/" + p
				}
				items = append(items, item{kind: itemPath, text: p, required: true})
			}
		case EffectNetwork:
			for _, h := range ef.Hosts {
				items = append(items, hostItem(h, true))
			}
		case EffectBrowser:
			if h := originHost(ef.Origin); h != "" {
				items = append(items, hostItem(hostPortOf(ef.Origin), true))
			}
		}
		if len(items) == n {
			items = append(items, item{kind: itemTool, required: true})
		}
	}
	if len(items) == 0 {
		items = append(items, item{kind: itemTool, required: true})
	}
	ev.items = items
	return items
}

func hasRequired(items []item) bool {
	for i := range items {
		if items[i].required {
			return true
		}
	}
	return false
}

// hostPortOf is an origin's host:port (the scheme's port when none is
// written).
func hostPortOf(origin string) string {
	h := originHost(origin)
	port := ""
	if i := strings.Index(origin, "://"); i >= 0 {
		rest := origin[i+3:]
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			rest = rest[:j]
		}
		if k := strings.LastIndex(rest, ":"); k >= 0 && !strings.HasSuffix(rest, "]") {
			port = rest[k+1:]
		}
		if port == "" {
			switch strings.ToLower(origin[:i]) {
			case "http", "ws":
				port = "80"
			case "https", "wss":
				port = "443"
			}
		}
	}
	if port == "" {
		return h
	}
	if strings.Contains(h, ":") {
		return "[" + h + "]:" + port
	}
	return h + ":" + port
}

// firstRule finds the first rule (tier order) of decision d matching some
// item.
func (ev *evaluation) firstRule(d int) (ruleMatch, bool) {
	items := ev.callItems()
	names := ev.toolNames()
	for _, rs := range ev.ruleSets() {
		best := -1
		on := "the call"
		rs.eachTool(d, names, func(i int) bool {
			if best < 0 {
				best = i
			}
			return true
		})
		for k := range items {
			it := &items[k]
			rs.each(d, it, true, func(i int) bool {
				if (best < 0 || i < best) && rs.rules[i].matches(it, names, ev.s.Workspace, true) {
					best, on = i, it.describe()
				}
				return false
			})
		}
		if best >= 0 {
			return ruleMatch{rule: &rs.rules[best], on: on}, true
		}
	}
	return ruleMatch{}, false
}

// allAsks are the ask rules matching, at most one per set and tier.
func (ev *evaluation) allAsks() []ruleMatch {
	var out []ruleMatch
	items := ev.callItems()
	names := ev.toolNames()
	for _, rs := range ev.ruleSets() {
		var seen [3]bool // org, user, workspace
		rs.eachTool(dAsk, names, func(i int) bool {
			r := &rs.rules[i]
			if t := tierIndex(r.Tier); !seen[t] {
				seen[t] = true
				out = append(out, ruleMatch{rule: r, on: "the call"})
			}
			return false
		})
		for k := range items {
			it := &items[k]
			rs.each(dAsk, it, true, func(i int) bool {
				r := &rs.rules[i]
				t := tierIndex(r.Tier)
				if !seen[t] && r.matches(it, names, ev.s.Workspace, true) {
					seen[t] = true
					out = append(out, ruleMatch{rule: r, on: it.describe()})
				}
				return false
			})
		}
	}
	return out
}

func tierIndex(t Tier) int {
	switch t {
	case TierOrg:
		return 0
	case TierUser:
		return 1
	}
	return 2
}

// allowRules returns the allow rules that cover every required part of
// the call, or false.
func (ev *evaluation) allowRules() ([]*Rule, bool) {
	items := ev.callItems()
	names := ev.toolNames()
	// A tool rule covers every part of its tool's call.
	for _, rs := range ev.ruleSets() {
		var by *Rule
		rs.eachTool(dAllow, names, func(i int) bool {
			if r := &rs.rules[i]; ev.e.org.AllowApplies(r.Tier) {
				by = r
				return true
			}
			return false
		})
		if by != nil {
			return []*Rule{by}, true
		}
	}
	var used []*Rule
	for k := range items {
		it := &items[k]
		if !it.required {
			continue
		}
		var by *Rule
		for _, rs := range ev.ruleSets() {
			best := -1
			rs.each(dAllow, it, false, func(i int) bool {
				r := &rs.rules[i]
				if (best < 0 || i < best) && ev.e.org.AllowApplies(r.Tier) && r.matches(it, names, ev.s.Workspace, false) {
					best = i
				}
				return false
			})
			if best >= 0 {
				by = &rs.rules[best]
				break
			}
		}
		if by == nil {
			return nil, false
		}
		dup := false
		for _, u := range used {
			dup = dup || u == by
		}
		if !dup {
			used = append(used, by)
		}
	}
	return used, len(used) > 0
}

// classifyCommands is classify with the script's programs.
func (ev *evaluation) classifyCommands(i int) (Classification, []classifier.Command) {
	if cmds, ok := ev.cmds[i]; ok {
		return ev.classes[i], cmds
	}
	ef := &ev.call.Effects[i]
	c, cmds := classifier.ClassifyCommands(ef.Command, ev.cwd(ef), ef.Links)
	if ev.classes == nil {
		ev.classes = map[int]Classification{}
	}
	if ev.cmds == nil {
		ev.cmds = map[int][]classifier.Command{}
	}
	ev.classes[i], ev.cmds[i] = c, cmds
	return c, cmds
}

// ruleRef names a rule in a trace: its tier and file:line, and for an
// organisation rule the policy's digest.
func (ev *evaluation) ruleRef(r *Rule) string {
	if r.Tier == TierOrg {
		return "org rule " + r.Where() + " (" + ev.e.org.Detail() + ")"
	}
	return string(r.Tier) + " rule " + r.Where()
}

// ruleLayer is the layer and detail of a decision a rule made.
func (ev *evaluation) ruleLayer(rules ...*Rule) (Layer, string) {
	parts := make([]string, 0, len(rules))
	layer := LayerRule
	for i, r := range rules {
		if r.Tier == TierOrg && i == 0 {
			layer = LayerOrg
		}
		parts = append(parts, ev.ruleRef(r))
	}
	return layer, strings.Join(parts, "; ")
}

// remedy says how a rule's decision can change.
func ruleRemedy(r *Rule) string {
	if r.Tier == TierOrg {
		return "this rule is set by your organisation's policy (" + r.Where() + "); ask your administrator, or do it another way"
	}
	return "change or remove the " + string(r.Tier) + " rule at " + r.Where() + ", or do it another way"
}

// orgStep applies the host ceiling, the network switch and the MCP
// allowlist; a refusal is a deny by the organisation.
func (ev *evaluation) orgStep(effects []Effect, sig string) (Decision, bool) {
	org := ev.e.org
	if !org.Active() {
		return Decision{}, false
	}
	refuse := func(what, why string) (Decision, bool) {
		ev.step("org", what+"; "+org.Detail(), "deny: "+why)
		d := ev.deny(ReasonOrgCeiling, what+" is refused by "+org.Name()+": "+why,
			"this limit is set by your organisation's policy; ask your administrator", sig)
		d.Layer, d.LayerDetail = LayerOrg, org.Detail()
		return d, true
	}
	for i := range effects {
		ef := &effects[i]
		var hosts []string
		switch ef.Kind {
		case EffectNetwork:
			hosts = ef.Hosts
		case EffectBrowser:
			if ef.Origin != "" && !isLoopback(originHost(ef.Origin)) {
				hosts = []string{hostPortOf(ef.Origin)}
			}
		case EffectExec:
			c := ev.classify(i)
			hosts = c.Hosts
			if org.NoNetwork && c.Network && len(hosts) == 0 {
				return refuse("`"+ef.Command+"` reaches the network", "network is off")
			}
		case EffectMcp:
			if !org.ServerAllowed(ef.Server) {
				return refuse("MCP server "+ef.Server, "it is not on the allowlist")
			}
		}
		for _, h := range hosts {
			if why := org.hostRefusal(h); why != "" {
				return refuse("host "+h, why)
			}
		}
	}
	return Decision{}, false
}

// denyAskRules runs the deny and ask rules of every tier: any deny denies
// the call; ask rules raise their reasons for the approval step.
func (ev *evaluation) denyAskRules(sig string) (Decision, bool) {
	sets := ev.ruleSets()
	if len(sets) == 0 {
		return Decision{}, false
	}
	if m, ok := ev.firstRule(dDeny); ok {
		r := m.rule
		ev.layer, ev.layerDetail = ev.ruleLayer(r)
		ev.step("rules", ev.ruleRef(r)+" (deny "+r.Match()+") matches "+m.on, "deny")
		who := string(r.Tier) + " rule"
		if r.Tier == TierOrg {
			who = "organisation rule (" + ev.e.org.Name() + ")"
		}
		return ev.deny(ReasonRuleDenied, fmt.Sprintf("denied by the %s at %s: %s", who, r.Where(), r.Why), ruleRemedy(r), sig), true
	}
	asks := ev.allAsks()
	if len(asks) == 0 {
		ev.step("rules", "no deny or ask rule matches", "no veto")
		return Decision{}, false
	}
	rules := make([]*Rule, len(asks))
	var saw []string
	for i, m := range asks {
		rules[i] = m.rule
		reason := ReasonRuleAsk
		if m.rule.Tier == TierOrg {
			reason = ReasonOrgRuleAsk
		}
		ev.raise(reason, m.rule.Why+" ("+string(m.rule.Tier)+" rule "+m.rule.Where()+")")
		saw = append(saw, ev.ruleRef(m.rule)+" (ask "+m.rule.Match()+") matches "+m.on)
	}
	ev.layer, ev.layerDetail = ev.ruleLayer(rules...)
	ev.step("rules", strings.Join(saw, "; "), "ask")
	return Decision{}, false
}

// allowCoverable are the reasons an allow rule may answer for the human.
// A protected path, a rule's ask and any reason not listed here still ask.
var allowCoverable = reasonBit(ReasonPolicyAlways) | reasonBit(ReasonDestructiveEffect) | reasonBit(ReasonUnknownCommand) |
	reasonBit(ReasonNetworkRequest) | reasonBit(ReasonUntrustedMcpServer) | reasonBit(ReasonDesktopControl) |
	reasonBit(ReasonOutsideWorkspace)

// allowStep allows an ask whose every part an allow rule covers.
func (ev *evaluation) allowStep(sig string) (Decision, bool) {
	if len(ev.ruleSets()) == 0 {
		return Decision{}, false
	}
	if left := ev.reasons &^ allowCoverable; left != 0 {
		ev.step("allow-rules", "asked for "+reasonList(left), "not applied: only a human answers that")
		return Decision{}, false
	}
	used, ok := ev.allowRules()
	if !ok {
		ev.step("allow-rules", "no allow rule covers every part of the call", "ask")
		return Decision{}, false
	}
	where := make([]string, len(used))
	for i, r := range used {
		where[i] = ev.ruleRef(r) + " (allow " + r.Match() + ")"
	}
	ev.step("allow-rules", strings.Join(where, "; "), "allow")
	ev.step("grants", "allowed by a rule", "not needed")
	ev.mcpStep()
	layer, detail := ev.ruleLayer(used...)
	r := used[0]
	return Decision{Verdict: VerdictAllow, Source: "rule:" + string(r.Tier) + ":" + r.Where(), Signature: sig,
		Trace: ev.trace, Layer: layer, LayerDetail: detail}, true
}
