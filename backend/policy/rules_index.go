package policy

import (
	"strings"
)

// The rule index: a decision with 200 rules loaded must cost at most twice
// one without, so an item of a call is matched only against the rules that
// can match it — command rules by program, path globs by a literal segment
// (or the suffix of a "*.ext" segment) the path must contain, host patterns
// by the name or the domain they cover. Rules with no such clue are tried
// every time.

// decisions in index order.
const (
	dDeny = iota
	dAsk
	dAllow
)

func decisionIndex(v Verdict) int {
	switch v {
	case VerdictDeny:
		return dDeny
	case VerdictAsk:
		return dAsk
	}
	return dAllow
}

// ruleIdx is the index of one decision's rules.
type ruleIdx struct {
	cmd     map[string][]int // program → command rules
	cmdAll  []int            // every command rule (a program computed at run time)
	seg     map[string][]int // literal path segment → path rules
	suffix  []suffixRule     // "*SUFFIX" segments
	pathAny []int            // path rules with no clue
	host    map[string][]int // exact host or ".domain" of "*.domain" → host rules
	hostAny []int            // "*"
	ext     map[string][]int // ".ext" of a "*.ext" segment → path rules
	// tool rules (no match): by exact name, by the first byte of a
	// pattern's literal prefix, and those starting with '*'
	toolExact map[string][]int
	toolFirst map[byte][]int
	toolStar  []int
	tool      []int // all of them
	any       bool  // the decision has rules at all
}

type suffixRule struct {
	suffix string
	rule   int
}

func (x *ruleIdx) add(m *map[string][]int, key string, i int) {
	if *m == nil {
		*m = map[string][]int{}
	}
	l := (*m)[key]
	if n := len(l); n > 0 && l[n-1] == i {
		return
	}
	(*m)[key] = append(l, i)
}

// index adds rule i.
func (x *ruleIdx) index(r *Rule, i int) {
	x.any = true
	switch {
	case len(r.Command) > 0:
		x.add(&x.cmd, r.Command[0], i)
		x.cmdAll = append(x.cmdAll, i)
	case len(r.Paths) > 0:
		for _, g := range r.globs {
			lit, suf := g.clue()
			switch {
			case lit != "":
				x.add(&x.seg, lit, i)
			case strings.LastIndexByte(suf, '.') == 0:
				x.add(&x.ext, suf, i)
			case suf != "":
				x.suffix = append(x.suffix, suffixRule{suf, i})
			default:
				x.pathAny = appendOnce(x.pathAny, i)
			}
		}
	case len(r.Hosts) > 0:
		for _, h := range r.Hosts {
			switch {
			case h.Host == "*":
				x.hostAny = appendOnce(x.hostAny, i)
			case strings.HasPrefix(h.Host, "*."):
				x.add(&x.host, h.Host[1:], i)
			default:
				x.add(&x.host, h.Host, i)
			}
		}
	default:
		x.tool = append(x.tool, i)
		switch t := r.tool; {
		case len(t.parts) == 1:
			x.add(&x.toolExact, t.parts[0], i)
		case t.parts[0] == "":
			x.toolStar = append(x.toolStar, i)
		default:
			if x.toolFirst == nil {
				x.toolFirst = map[byte][]int{}
			}
			x.toolFirst[t.parts[0][0]] = append(x.toolFirst[t.parts[0][0]], i)
		}
	}
}

func appendOnce(l []int, i int) []int {
	if n := len(l); n > 0 && l[n-1] == i {
		return l
	}
	return append(l, i)
}

// clue is what a path must hold for the glob to match it: a literal
// segment, or else the suffix of a "*SUFFIX" segment.
func (g glob) clue() (literal, suffix string) {
	for i := len(g.segs) - 1; i >= 0; i-- {
		s := g.segs[i]
		if s != "**" && !strings.ContainsAny(s, `*?[\`) {
			return s, ""
		}
	}
	for i := len(g.segs) - 1; i >= 0; i-- {
		s := g.segs[i]
		if rest, ok := strings.CutPrefix(s, "*"); ok && rest != "" && !strings.ContainsAny(rest, `*?[\`) {
			return "", rest
		}
	}
	return "", ""
}

// each calls fn on every rule of decision d that may match item it, until
// fn returns true; a rule may come more than once.
func (rs *RuleSet) each(d int, it *item, loose bool, fn func(i int) bool) bool {
	x := &rs.idx[d]
	if !x.any {
		return false
	}
	switch it.kind {
	case itemCommand:
		if it.cmd.Program == "" {
			if loose && eachOf(x.cmdAll, fn) {
				return true
			}
		} else if eachOf(x.cmd[it.cmd.Program], fn) {
			return true
		}
	case itemPath:
		if x.seg != nil || x.ext != nil || len(x.suffix) > 0 {
			for rest := it.text; rest != ""; {
				var s string
				s, rest, _ = strings.Cut(rest, "/")
				if s == "" {
					continue
				}
				if eachOf(x.seg[s], fn) {
					return true
				}
				if j := strings.LastIndexByte(s, '.'); j >= 0 && x.ext != nil && eachOf(x.ext[s[j:]], fn) {
					return true
				}
				for _, sr := range x.suffix {
					if strings.HasSuffix(s, sr.suffix) && fn(sr.rule) {
						return true
					}
				}
			}
		}
		if eachOf(x.pathAny, fn) {
			return true
		}
	case itemHost:
		host := it.host
		if x.host != nil {
			if eachOf(x.host[host], fn) {
				return true
			}
			for i := 0; i < len(host); i++ {
				if host[i] == '.' && eachOf(x.host[host[i:]], fn) {
					return true
				}
			}
		}
		if eachOf(x.hostAny, fn) {
			return true
		}
	}
	return false
}

// eachTool calls fn on every tool rule (no match) of decision d whose tool
// covers one of names: they match every item of the call alike, so they
// are tried once per call, not per item.
func (rs *RuleSet) eachTool(d int, names []string, fn func(i int) bool) bool {
	x := &rs.idx[d]
	if len(x.tool) == 0 {
		return false
	}
	try := func(l []int) bool {
		for _, i := range l {
			if rs.rules[i].toolMatches(names) && fn(i) {
				return true
			}
		}
		return false
	}
	for _, n := range names {
		if try(x.toolExact[n]) {
			return true
		}
		if n != "" && x.toolFirst != nil && try(x.toolFirst[n[0]]) {
			return true
		}
	}
	return try(x.toolStar)
}

// toolMayMatch is eachTool's question for one name, allocation-free.
func (x *ruleIdx) toolMayMatch(rules []Rule, name string) bool {
	if len(x.tool) == 0 {
		return false
	}
	if len(x.toolExact[name]) > 0 {
		return true
	}
	if name != "" && x.toolFirst != nil {
		for _, i := range x.toolFirst[name[0]] {
			if rules[i].tool.match(name) {
				return true
			}
		}
	}
	for _, i := range x.toolStar {
		if rules[i].tool.match(name) {
			return true
		}
	}
	return false
}

func eachOf(l []int, fn func(int) bool) bool {
	for _, i := range l {
		if fn(i) {
			return true
		}
	}
	return false
}

// mayMatchRead reports whether some rule could match a call that only
// reads (so the engine's allocation-free read path must not be taken): a
// tool rule for its tool, or a path rule with a clue in its paths. It
// allocates nothing.
func (rs *RuleSet) mayMatchRead(call *Call) bool {
	if rs == nil || !rs.reads {
		return false
	}
	{
		x := &rs.all
		if x.toolMayMatch(rs.rules, call.Tool) {
			return true
		}
		if len(x.pathAny) > 0 {
			return true
		}
		for j := range call.Effects {
			for _, p := range call.Effects[j].Paths {
				for rest := p; rest != ""; {
					var s string
					s, rest, _ = strings.Cut(rest, "/")
					if s == "" {
						continue
					}
					if len(x.seg[s]) > 0 {
						return true
					}
					if j := strings.LastIndexByte(s, '.'); j >= 0 && len(x.ext[s[j:]]) > 0 {
						return true
					}
					for _, sr := range x.suffix {
						if strings.HasSuffix(s, sr.suffix) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}
