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
	var out []*RuleSet
	if ev.e.rules.Len() > 0 {
		out = append(out, ev.e.rules)
	}
	if ev.s.Rules.Len() > 0 {
		out = append(out, ev.s.Rules)
	}
	return out
}

// toolNames are the names a rule's tool is matched against: the call's
// tool and, for MCP effects, mcp-tool:<server>/<tool>.
func (ev *evaluation) toolNames() []string {
	names := []string{ev.call.Tool}
	for i := range ev.call.Effects {
		if ef := &ev.call.Effects[i]; ef.Kind == EffectMcp {
			names = append(names, "mcp-tool:"+ef.Server+"/"+ef.Tool)
		}
	}
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
				items = append(items, item{kind: itemHost, text: h})
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
				items = append(items, item{kind: itemHost, text: h, required: true})
			}
		case EffectBrowser:
			if h := originHost(ef.Origin); h != "" {
				items = append(items, item{kind: itemHost, text: hostPortOf(ef.Origin), required: true})
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

// candidates are the rules of list worth trying on an item: command rules
// for the item's program (every command rule for a program computed at
// run time, when loose), and the other rules.
func (rs *RuleSet) candidates(list []int, it *item, loose bool, fn func(r *Rule) bool) bool {
	if it.kind == itemCommand && it.cmd.Program != "" {
		for _, i := range rs.byProgram[it.cmd.Program] {
			if inList(list, i) && fn(&rs.rules[i]) {
				return true
			}
		}
		for _, i := range list {
			if r := &rs.rules[i]; len(r.Command) == 0 && fn(r) {
				return true
			}
		}
		return false
	}
	for _, i := range list {
		r := &rs.rules[i]
		if len(r.Command) > 0 && (it.kind != itemCommand || !loose) {
			continue
		}
		if fn(r) {
			return true
		}
	}
	return false
}

// inList reports whether i is in the (short, sorted) index list.
func inList(list []int, i int) bool {
	for _, x := range list {
		if x == i {
			return true
		}
		if x > i {
			return false
		}
	}
	return false
}

// firstRule finds the first rule of the decision's lists (tier order)
// matching some item.
func (ev *evaluation) firstRule(which func(*RuleSet) []int) (ruleMatch, bool) {
	items := ev.callItems()
	names := ev.toolNames()
	for _, rs := range ev.ruleSets() {
		list := which(rs)
		if len(list) == 0 {
			continue
		}
		var found ruleMatch
		ok := false
		// Tier order across items: the earliest rule wins, whichever
		// part it matched.
		best := -1
		for k := range items {
			it := &items[k]
			rs.candidates(list, it, true, func(r *Rule) bool {
				if r.matches(it, names, ev.s.Workspace, true) {
					idx := ruleIndex(rs, r)
					if best < 0 || idx < best {
						best, found, ok = idx, ruleMatch{rule: r, on: it.describe()}, true
					}
				}
				return false
			})
		}
		if ok {
			return found, true
		}
	}
	return ruleMatch{}, false
}

func ruleIndex(rs *RuleSet, r *Rule) int {
	for i := range rs.rules {
		if &rs.rules[i] == r {
			return i
		}
	}
	return -1
}

// allAsks are the ask rules matching, at most one per set and tier.
func (ev *evaluation) allAsks() []ruleMatch {
	var out []ruleMatch
	items := ev.callItems()
	names := ev.toolNames()
	for _, rs := range ev.ruleSets() {
		seen := map[Tier]bool{}
		for k := range items {
			it := &items[k]
			rs.candidates(rs.ask, it, true, func(r *Rule) bool {
				if !seen[r.Tier] && r.matches(it, names, ev.s.Workspace, true) {
					seen[r.Tier] = true
					out = append(out, ruleMatch{rule: r, on: it.describe()})
				}
				return false
			})
		}
	}
	return out
}

// allowRules returns the allow rules that cover every required part of
// the call, or false.
func (ev *evaluation) allowRules() ([]*Rule, bool) {
	items := ev.callItems()
	names := ev.toolNames()
	var used []*Rule
	for k := range items {
		it := &items[k]
		if !it.required {
			continue
		}
		var by *Rule
		for _, rs := range ev.ruleSets() {
			rs.candidates(rs.allow, it, false, func(r *Rule) bool {
				if ev.e.org.AllowApplies(r.Tier) && r.matches(it, names, ev.s.Workspace, false) {
					by = r
					return true
				}
				return false
			})
			if by != nil {
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
	c, cmds := classifier.ClassifyCommands(ef.Command, ev.cwd(ef))
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
	if m, ok := ev.firstRule(func(rs *RuleSet) []int { return rs.deny }); ok {
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
		ev.step("rules", fmt.Sprintf("%d rules; no deny or ask rule matches", ev.ruleCount()), "no veto")
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

func (ev *evaluation) ruleCount() int {
	n := 0
	for _, rs := range ev.ruleSets() {
		n += rs.Len()
	}
	return n
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
