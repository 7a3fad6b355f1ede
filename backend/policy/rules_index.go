package policy

import (
	"math/bits"
	"strings"
)

// The rule index: a decision with 200 rules loaded must cost at most twice
// one without, so an item of a call is matched only against the rules that
// can match it — command rules by program, path globs by a literal segment
// (or the suffix of a "*.ext" segment) the path must contain, host patterns
// by the name or the domain they cover. Rules with no such clue are tried
// every time. In front of the maps stands a sieve (bit sets of the keys'
// length and end bytes) so a miss costs no hashing: the engine's read fast
// path asks "can any rule match this read?" on every read, and with 200
// rules the map lookups alone cost several times the read itself.

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
	// sieve answers "no rule can match" in a few nanoseconds before the
	// maps are asked (the read fast path asks it on every read).
	sieve sieve
}

// sieve is bit sets built from the index's keys. It may answer "maybe"
// for a key the index lacks, never "no" for one it holds, so a "maybe"
// goes on to the exact index and a "no" skips it: what the index finds is
// unchanged, only the misses get cheap. A map lookup hashes the whole key
// (~15 ns each, four or five per path); the sieve looks at a segment's
// length and last byte: one load.
type sieve struct {
	// last[c]: bit n%32 when a literal segment clue of length n ends in
	// c, bit tailBit when a "*.ext" or "*SUFFIX" clue does.
	last [256]uint64
	// paths: some path rule has a clue at all.
	paths bool
	// absolute: some glob anchored at the root or home has a clue, so
	// the segments of a path above the workspace may hold one.
	absolute  bool
	host      bits1024 // segHash of the exact hosts and ".domain"s
	toolExact bits1024 // segHash of exact tool names
	toolFirst bits256  // first bytes of the tool patterns' literal prefixes
	toolAny   bits256  // first bytes of both: the read path's one look
}

const tailBit = 32

// segBits is what a segment of length n looks for in last[c].
func segBits(n int) uint64 { return 1<<(uint(n)&31) | 1<<tailBit }

// mayHold reports whether the non-empty path segment s may be a clue.
func (v *sieve) mayHold(s string) bool { return v.last[s[len(s)-1]]&segBits(len(s)) != 0 }

type (
	bits256  [4]uint64
	bits1024 [16]uint64
)

func (b *bits256) set(c byte)      { b[c>>6] |= 1 << (c & 63) }
func (b *bits256) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }
func (b *bits1024) set(h uint32)   { b[h>>6] |= 1 << (h & 63) }
func (b *bits1024) has(h uint32) bool {
	return b[h>>6]&(1<<(h&63)) != 0
}

// segHash is a 10-bit hash of a non-empty string's length, first and last
// byte: what tells path segments apart cheaply.
func segHash(s string) uint32 {
	k := uint32(len(s))<<16 | uint32(s[0])<<8 | uint32(s[len(s)-1])
	return (k * 0x9E3779B1) >> 22
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
			if lit != "" || suf != "" {
				x.sieve.paths = true
				x.sieve.absolute = x.sieve.absolute || g.absolute
			}
			switch {
			case lit != "":
				x.add(&x.seg, lit, i)
				x.sieve.last[lit[len(lit)-1]] |= 1 << (uint(len(lit)) & 31)
			case strings.LastIndexByte(suf, '.') == 0:
				x.add(&x.ext, suf, i)
				x.sieve.last[suf[len(suf)-1]] |= 1 << tailBit
			case suf != "":
				x.suffix = append(x.suffix, suffixRule{suf, i})
				x.sieve.last[suf[len(suf)-1]] |= 1 << tailBit
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
				x.sieve.host.set(segHash(h.Host[1:]))
			default:
				x.add(&x.host, h.Host, i)
				if h.Host != "" {
					x.sieve.host.set(segHash(h.Host))
				}
			}
		}
	default:
		x.tool = append(x.tool, i)
		switch t := r.tool; {
		case len(t.parts) == 1:
			x.add(&x.toolExact, t.parts[0], i)
			if t.parts[0] != "" {
				x.sieve.toolExact.set(segHash(t.parts[0]))
				x.sieve.toolAny.set(t.parts[0][0])
			}
		case t.parts[0] == "":
			x.toolStar = append(x.toolStar, i)
		default:
			if x.toolFirst == nil {
				x.toolFirst = map[byte][]int{}
			}
			x.toolFirst[t.parts[0][0]] = append(x.toolFirst[t.parts[0][0]], i)
			x.sieve.toolFirst.set(t.parts[0][0])
			x.sieve.toolAny.set(t.parts[0][0])
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
			if host != "" && x.sieve.host.has(segHash(host)) && eachOf(x.host[host], fn) {
				return true
			}
			for i := 0; i < len(host); i++ {
				if host[i] == '.' && x.sieve.host.has(segHash(host[i:])) && eachOf(x.host[host[i:]], fn) {
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
		if (n == "" || x.sieve.toolExact.has(segHash(n))) && try(x.toolExact[n]) {
			return true
		}
		if n != "" && x.sieve.toolFirst.has(n[0]) && try(x.toolFirst[n[0]]) {
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
	if name == "" {
		return len(x.toolExact[name]) > 0 || x.toolStarMayMatch(rules, name)
	}
	if x.sieve.toolExact.has(segHash(name)) && len(x.toolExact[name]) > 0 {
		return true
	}
	if x.sieve.toolFirst.has(name[0]) {
		for _, i := range x.toolFirst[name[0]] {
			if rules[i].tool.match(name) {
				return true
			}
		}
	}
	return x.toolStarMayMatch(rules, name)
}

func (x *ruleIdx) toolStarMayMatch(rules []Rule, name string) bool {
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
// reads in workspace ws (so the engine's allocation-free read path must
// not be taken): a tool rule for its tool, or a path rule with a clue in
// its paths. It allocates nothing, and a path none of whose segments
// passes the sieve costs no map lookup.
func (rs *RuleSet) mayMatchRead(call *Call, ws string) bool {
	return rs != nil && rs.reads && rs.readMayMatch(call, ws)
}

func (rs *RuleSet) readMayMatch(call *Call, ws string) bool {
	x := &rs.all
	// The tool rules, behind their sieve.
	if t := call.Tool; len(x.toolStar) > 0 || t == "" || x.sieve.toolAny.has(t[0]) {
		if x.toolMayMatch(rs.rules, t) {
			return true
		}
	}
	if len(x.pathAny) > 0 {
		return true
	}
	if !x.sieve.paths {
		return false
	}
	for j := range call.Effects {
		for _, p := range call.Effects[j].Paths {
			start := 0
			switch {
			case ws == "":
			case p == "" || p[0] != '/' && p[0] != '~':
				// The chain reads it as ws/p: an absolute glob sees
				// the workspace's folders too.
				if x.sieve.absolute && x.segsMayHold(ws, 0) {
					return true
				}
			case !x.sieve.absolute && len(p) > len(ws) && p[len(ws)] == '/' && p[:len(ws)] == ws:
				// Only an absolute glob can see the folders the
				// workspace lies in: a relative one matches the path
				// below it, every segment of which is a segment of
				// what follows ws+"/" in p (cleaning only drops and
				// pops segments). A path written any other way is
				// looked at whole.
				start = len(ws) + 1
			}
			if x.segsMayHold(p, start) {
				return true
			}
		}
	}
	return false
}

// segsMayHold reports whether a segment of p[start:] may be a path rule's
// clue. The slashes are found eight bytes at a time and each segment is
// put to the sieve written out in place: an IndexByte or a call per
// segment costs more than the sieve.
func (x *ruleIdx) segsMayHold(p string, start int) bool {
	i := start
	for ; i+8 <= len(p); i += 8 {
		for m := slashes(p[i : i+8]); m != 0; m &= m - 1 {
			end := i + bits.TrailingZeros64(m)>>3
			if s := p[start:end]; s != "" && x.sieve.mayHold(s) && x.segMayMatch(s) {
				return true
			}
			start = end + 1
		}
	}
	for ; i < len(p); i++ {
		if p[i] == '/' {
			if s := p[start:i]; s != "" && x.sieve.mayHold(s) && x.segMayMatch(s) {
				return true
			}
			start = i + 1
		}
	}
	s := p[start:]
	return s != "" && x.sieve.mayHold(s) && x.segMayMatch(s)
}

// slashes has the high bit set in byte k for each q[k] == '/', k < 8
// (the exact zero-byte test of "Bit Twiddling Hacks": no false marks).
func slashes(q string) uint64 {
	_ = q[7]
	w := uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
		uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
	const low7 = 0x7f7f7f7f7f7f7f7f
	v := w ^ 0x2f2f2f2f2f2f2f2f // '/' bytes become 0
	return ^((v&low7 + low7) | v | low7)
}

// segMayMatch reports whether a path rule's clue is the non-empty path
// segment s: the same lookups as each's, behind the sieve.
func (x *ruleIdx) segMayMatch(s string) bool {
	b := x.sieve.last[s[len(s)-1]]
	if b&segBits(len(s))&^(1<<tailBit) != 0 && len(x.seg[s]) > 0 {
		return true
	}
	if b&(1<<tailBit) == 0 {
		return false
	}
	if j := strings.LastIndexByte(s, '.'); j >= 0 && len(x.ext[s[j:]]) > 0 {
		return true
	}
	for _, sr := range x.suffix {
		if strings.HasSuffix(s, sr.suffix) {
			return true
		}
	}
	return false
}
