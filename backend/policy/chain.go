package policy

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
)

// onlyReadOrMeta is the fast path's condition on the effects: plain reads
// and meta tools that change nothing while planning.
func onlyReadOrMeta(effects []Effect, planning bool) bool {
	for i := range effects {
		ef := &effects[i]
		switch {
		case ef.Kind == EffectRead:
		case ef.Kind == EffectMeta && !(ef.Mutates && planning):
		default:
			return false
		}
	}
	return len(effects) > 0
}

// reasonSet is a set of Reasons by their index in allReasons.
type reasonSet uint32

func reasonBit(r Reason) reasonSet {
	for i, a := range allReasons {
		if a == r {
			return 1 << i
		}
	}
	return 0
}

func (rs reasonSet) list() []Reason {
	var out []Reason
	for i, r := range allReasons {
		if rs&(1<<i) != 0 {
			out = append(out, r)
		}
	}
	return out
}

func (rs reasonSet) has(r Reason) bool { return rs&reasonBit(r) != 0 }

// evaluation is one run of the chain.
type evaluation struct {
	e       *Engine
	call    *Call
	s       *Session
	trace   []Step
	reasons reasonSet
	// why records, per reason, what raised it (for the trace).
	why     []string
	classes map[int]Classification
	trusted []string // MCP servers whose trust silenced a reason
	mcpNote []string
}

func (ev *evaluation) step(name, saw, concluded string) {
	ev.trace = append(ev.trace, Step{Step: name, Saw: saw, Concluded: concluded})
}

func (ev *evaluation) raise(r Reason, why string) {
	ev.reasons |= reasonBit(r)
	ev.why = append(ev.why, string(r)+": "+why)
}

func (ev *evaluation) deny(r Reason, detail, remedy, sig string) Decision {
	return Decision{Verdict: VerdictDeny, Reason: r, Detail: detail, Remedy: remedy, Signature: sig, Trace: ev.trace}
}

// kindOf adapts a trusted server's read-only MCP tool to Read: the hint is
// server-controlled, so it only counts while the server is trusted.
func kindOf(ef *Effect) EffectKind {
	if ef.Kind == EffectMcp && ef.Trusted && ef.ReadOnlyHint {
		return EffectRead
	}
	return ef.Kind
}

func (ev *evaluation) classify(i int) Classification {
	if c, ok := ev.classes[i]; ok {
		return c
	}
	ef := &ev.call.Effects[i]
	cwd := ef.Cwd
	if cwd == "" {
		cwd = ev.s.Workspace
	} else if !filepath.IsAbs(cwd) && ev.s.Workspace != "" {
		cwd = filepath.Join(ev.s.Workspace, cwd)
	}
	c := ClassifyShellWith(ef.Command, cwd, ef.Links)
	if ev.classes == nil {
		ev.classes = map[int]Classification{}
	}
	ev.classes[i] = c
	return c
}

func (ev *evaluation) signature() string {
	for i := range ev.call.Effects {
		if ev.call.Effects[i].Kind == EffectMcp {
			return mcpSignature(*ev.call, &ev.call.Effects[i])
		}
	}
	for i := range ev.call.Effects {
		switch ev.call.Effects[i].Kind {
		case EffectExec:
			return ev.classify(i).Signature
		case EffectBrowser:
			return browserSignature(&ev.call.Effects[i])
		}
	}
	return ev.call.Tool
}

func (ev *evaluation) run() Decision {
	s := ev.s
	ev.trace = make([]Step, 0, 6)
	sig := ev.signature()
	if s.Sandbox.Kind < 0 || int(s.Sandbox.Kind) >= len(sandboxNames) || s.Approval < 0 || int(s.Approval) >= len(approvalNames) {
		ev.step("session", fmt.Sprintf("sandbox %d, approval %d", s.Sandbox.Kind, s.Approval), "invalid axes: deny")
		return ev.deny(ReasonSandboxRejected, "the session's sandbox or approval policy is not a known value",
			"set the session's axes to valid values", sig)
	}
	effects := ev.call.Effects
	unknownEffect := Effect{Kind: "unknown"}
	if len(effects) == 0 {
		effects = []Effect{unknownEffect}
	}

	// 1. Planning freeze.
	if s.Planning {
		for i := range effects {
			ef := &effects[i]
			k := kindOf(ef)
			if k == EffectRead || k == EffectMeta && !ef.Mutates {
				continue
			}
			d := fmt.Sprintf("planning freeze: %s would %s", ev.call.Tool, describe(ef))
			ev.step("planning", "planning on; "+describe(ef), "deny")
			return ev.deny(ReasonPlanningFreeze, d, "a human approves the plan (leaving planning) before anything but reading runs", sig)
		}
		ev.step("planning", "planning on; every effect is read or meta", "no veto")
	} else {
		ev.step("planning", "planning off", "no veto")
	}

	// 2. Sandbox, collecting the structural reasons for step 3.
	for i := range effects {
		if d, denied := ev.sandbox(i, &effects[i], sig); denied {
			return d
		}
	}
	if onlyReadOrMeta(effects, s.Planning) {
		// The same words as the fast path's trace (engine.go), which a test
		// holds them to.
		ev.step("sandbox", s.Sandbox.Kind.String()+"; every effect is read or meta", "admissible")
	} else {
		ev.step("sandbox", s.Sandbox.Kind.String()+sandboxOptions(s)+"; "+describeAll(effects), "admissible")
	}

	// 3. Approval policy.
	allMeta := true
	for i := range effects {
		if kindOf(&effects[i]) != EffectMeta {
			allMeta = false
		}
	}
	saw := s.Approval.String() + "; " + reasonText(ev.why)
	switch s.Approval {
	case Never:
		for _, r := range humanOnly {
			if ev.reasons.has(r) {
				ev.step("approval", saw, "deny: needs a human and none is asked")
				return ev.deny(r, fmt.Sprintf("approval is never, and %s needs a human: %s", r, reasonText(ev.why)),
					neverRemedy(r), sig)
			}
		}
		ev.reasons = 0
	case Always:
		if !allMeta {
			ev.raise(ReasonPolicyAlways, "approval is always")
		}
	}
	if ev.reasons == 0 {
		ev.step("approval", saw, "allow")
		ev.step("grants", "nothing asked", "not needed")
		src := ev.mcpStep()
		return ev.withCage(Decision{Verdict: VerdictAllow, Source: src, Signature: sig, Trace: ev.trace})
	}
	ev.step("approval", s.Approval.String()+"; "+reasonText(ev.why), "ask")

	// 4. Grants turn Ask into Allow, reason by reason.
	if src, ok := ev.grants(sig); ok {
		ev.mcpStep()
		return ev.withCage(Decision{Verdict: VerdictAllow, Source: src, Signature: sig, Trace: ev.trace})
	}
	// 5. MCP trust is folded into the reasons above; the step records it.
	ev.mcpStep()
	d := Decision{Verdict: VerdictAsk, Reasons: ev.reasons.list(), Signature: sig, Trace: ev.trace}
	for _, r := range oneAtATime {
		if ev.reasons.has(r.reason) {
			d.AlwaysRefused = r.why
			break
		}
	}
	return ev.withCage(d)
}

// humanOnly are the reasons only a human answers: under Never, where no
// human is asked, they fail closed.
var humanOnly = []Reason{ReasonUntrustedMcpServer, ReasonProtectedPath, ReasonEscalation, ReasonSecretRead}

func neverRemedy(r Reason) string {
	switch r {
	case ReasonEscalation:
		return "run the command without escalate (in the cage its classification gives it), or switch approval to on-request so a human is asked"
	case ReasonSecretRead:
		return "leave the file out, or switch approval to on-request so a human is asked to let this one read through"
	}
	return "switch approval to on-request so a human is asked"
}

// oneAtATime are the reasons no grant ever covers, each approved for one
// call: a protected path's write, an escalation, a secret's read (the file
// tools' signature is their bare name, so a grant would cover every later
// one).
var oneAtATime = []struct {
	reason Reason
	why    string
}{
	{ReasonProtectedPath, "a protected path is approved one write at a time: a standing grant would never apply to it"},
	{ReasonEscalation, "an escalation is approved one call at a time: a standing grant would never apply to it"},
	{ReasonSecretRead, "a secret is approved one read at a time: a standing grant would never apply to it"},
}

func (ev *evaluation) grants(sig string) (string, bool) {
	var covered reasonSet
	src := ""
	var notes []string
	for _, g := range ev.s.Grants {
		if g.Signature != sig {
			continue
		}
		if !g.ExpiresAt.IsZero() && (ev.s.Now.IsZero() || !ev.s.Now.Before(g.ExpiresAt)) {
			notes = append(notes, "grant "+g.ID+" expired")
			continue
		}
		var prefix string
		switch g.Scope {
		case ScopeSession:
			prefix = "session-grant:"
		case ScopeWorkspace:
			prefix = "workspace-rule:"
		default:
			notes = append(notes, "grant "+g.ID+" has unknown scope "+string(g.Scope))
			continue
		}
		var m reasonSet
		for _, r := range g.Reasons {
			m |= reasonBit(r)
		}
		// A protected path is approved one write at a time
		// (permission-model.md: "a human may approve that one write"): the
		// signature of fs.write or patch.apply is the bare tool name, so a
		// standing grant would cover every later protected file.
		for _, r := range oneAtATime {
			m &^= reasonBit(r.reason)
		}
		if m&ev.reasons == 0 {
			notes = append(notes, "grant "+g.ID+" covers other reasons")
			continue
		}
		covered |= m
		src = prefix + sig
		notes = append(notes, "grant "+g.ID+" ("+string(g.Scope)+") covers "+reasonList(m&ev.reasons))
	}
	saw := "signature " + sig
	if len(notes) > 0 {
		saw += "; " + strings.Join(notes, "; ")
	}
	if src != "" && ev.reasons&^covered == 0 {
		ev.step("grants", saw, "allow")
		return src, true
	}
	concluded := "ask"
	if left := ev.reasons &^ covered; covered != 0 {
		concluded = "ask: no grant covers " + reasonList(left)
	}
	ev.step("grants", saw, concluded)
	return "", false
}

// mcpStep records what MCP trust did and returns the allow source.
func (ev *evaluation) mcpStep() string {
	if len(ev.mcpNote) == 0 {
		ev.step("mcp-trust", "no MCP effect", "not needed")
		return sourcePolicy
	}
	ev.step("mcp-trust", strings.Join(ev.mcpNote, "; "), "applied")
	if len(ev.trusted) > 0 {
		return "trusted-mcp:" + ev.trusted[0]
	}
	return sourcePolicy
}

func reasonList(m reasonSet) string {
	rs := m.list()
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = string(r)
	}
	return strings.Join(parts, ", ")
}

func reasonText(why []string) string {
	if len(why) == 0 {
		return "no structural reason"
	}
	return strings.Join(why, "; ")
}

func sandboxOptions(s *Session) string {
	if s.Sandbox.Kind != WorkspaceWrite {
		return ""
	}
	o := " (network off"
	if s.Sandbox.NetworkAccess {
		o = " (network on"
	}
	if n := len(s.Sandbox.WritableRoots); n > 0 {
		o += fmt.Sprintf(", %d writable roots", n)
	}
	if s.Caged {
		o += ", caged)"
	} else {
		o += ", no OS cage)"
	}
	return o
}

func describeAll(effects []Effect) string {
	parts := make([]string, len(effects))
	for i := range effects {
		parts[i] = describe(&effects[i])
	}
	return strings.Join(parts, ", ")
}

func describe(ef *Effect) string {
	switch ef.Kind {
	case EffectRead, EffectMeta:
		if ef.Mutates {
			return "change settings (meta)"
		}
		return string(ef.Kind)
	case EffectWrite, EffectDestructive:
		return string(ef.Kind) + " " + strings.Join(ef.Paths, " ")
	case EffectNetwork:
		return "reach the network " + strings.Join(ef.Hosts, " ")
	case EffectExec:
		return "run `" + ef.Command + "`"
	case EffectBrowser:
		return "browser " + ef.Action + " " + ef.Origin
	case EffectDesktop:
		return "desktop " + ef.Action
	case EffectMcp:
		return "call MCP tool " + ef.Server + "/" + ef.Tool
	}
	return "do something undeclared (" + string(ef.Kind) + ")"
}

// isLoopback reports hosts that are not "network": 127.0.0.0/8, ::1 and
// localhost names.
func isLoopback(host string) bool {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func allLoopback(hosts []string) bool {
	if len(hosts) == 0 {
		return false
	}
	for _, h := range hosts {
		if !isLoopback(h) {
			return false
		}
	}
	return true
}

func originHost(origin string) string {
	if !strings.Contains(origin, "://") {
		origin = "http://" + origin
	}
	u, err := url.Parse(origin)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
