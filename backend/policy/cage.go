package policy

import (
	"path/filepath"
	"sort"
	"strings"
)

// The claim is enforced (permission-model.md, "The claim is enforced"): a
// shell command that runs without a human having answered that very call
// runs in an OS cage shaped by what the engine claimed it does, in every
// sandbox mode, Full access included. A classifier mistake then costs a
// failed command ("read-only file system"), never an unconfined effect.
// Only a human's answer to the call (or a grant whose signature is the
// exact command the human saw) gives it the whole of the sandbox axis.

// CageShape names how far a shell command's OS cage lets it reach.
type CageShape string

const (
	// CageReadOnly binds nothing writable; the cage's /tmp is private.
	CageReadOnly CageShape = "read-only"
	// CageWorkspaceWrite makes the workspace and writable roots writable,
	// the cage-protected set excepted; /tmp is private.
	CageWorkspaceWrite CageShape = "workspace-write"
	// CageFullAccess makes everything writable but the cage-protected set
	// and the edit-protected system folders; secrets stay hidden and the
	// network goes through the proxy.
	CageFullAccess CageShape = "full-access"
	// CageHost is a human-approved call under danger-full-access: the
	// host as it is (network, secrets, sockets), with only the
	// cage-protected set held read-only.
	CageHost CageShape = "host"
	// CageNone runs unconfined: there is no OS cage on this machine (or an
	// outer container is the boundary).
	CageNone CageShape = "none"
)

// Cage is the OS cage one shell call runs in.
type Cage struct {
	Shape CageShape `json:"shape"`
	// Network: the cage reaches the network through Warden's proxy, which
	// decides each destination (CageHost and CageNone use the host's).
	Network bool `json:"network,omitempty"`
	// Approved are protected paths a human approved writing in this call:
	// the cage does not hold them.
	Approved []string `json:"approved,omitempty"`
	// Claimed: the shape comes from what the engine claimed the command
	// does, not from a human's answer to the call; a blocked write may be
	// the claim's mistake, which "escalate" takes to a human.
	Claimed bool `json:"claimed,omitempty"`
	// Why says, in words, what chose the shape ("classified read-only").
	Why string `json:"why"`
}

// Confines reports a cage proper (own namespaces, secrets hidden, only
// what the shape admits writable): not the host, not none.
func (c *Cage) Confines() bool {
	if c == nil {
		return false
	}
	switch c.Shape {
	case CageReadOnly, CageWorkspaceWrite, CageFullAccess:
		return true
	}
	return false
}

// Escalates reports whether a human's answer would give the command more
// than this cage under the sandbox sb: a claimed cage narrower than the
// sandbox's own reach.
func (c *Cage) Escalates(sb SandboxPolicy) bool {
	if c == nil || !c.Claimed {
		return false
	}
	switch sb.Kind {
	case ReadOnly:
		return false
	case WorkspaceWrite:
		return c.Shape == CageReadOnly
	}
	return c.Shape == CageReadOnly || c.Shape == CageWorkspaceWrite || c.Shape == CageFullAccess
}

// String is the cage in words: "read-only cage: classified read-only".
func (c *Cage) String() string {
	if c == nil {
		return "no cage: the call runs no command"
	}
	return c.Shape.Words() + ": " + c.Why
}

// Words names a shape for people.
func (s CageShape) Words() string {
	switch s {
	case CageReadOnly:
		return "read-only cage"
	case CageWorkspaceWrite:
		return "workspace-write cage"
	case CageFullAccess:
		return "full-access cage"
	case CageHost:
		return "host, cage-protected set read-only"
	case CageNone:
		return "unconfined"
	}
	return "unknown cage " + string(s)
}

// wider orders the confining shapes; CageHost and CageNone are never a
// claim's.
func (s CageShape) rank() int {
	switch s {
	case CageReadOnly:
		return 0
	case CageWorkspaceWrite:
		return 1
	}
	return 2
}

// claim is the shape of what the classifier proved, before the sandbox
// axis bounds it, why, and whether it reaches the network.
func (ev *evaluation) claim() (CageShape, string, bool) {
	shape, why, network := CageReadOnly, "classified read-only", false
	for i := range ev.call.Effects {
		ef := &ev.call.Effects[i]
		if ef.Kind != EffectExec {
			continue
		}
		c := ev.classify(i)
		s, w := ev.claimOf(&c)
		if s.rank() > shape.rank() {
			shape, why = s, w
		}
		network = network || c.Network
	}
	return shape, why, network || shape == CageFullAccess
}

func (ev *evaluation) claimOf(c *Classification) (CageShape, string) {
	if len(c.Unknown) > 0 || c.Unresolved {
		return CageFullAccess, "not classified (" + firstOf(c.Unknown) + ")"
	}
	for _, m := range c.Moves {
		if m.Unresolved || m.Dest == "" {
			return CageFullAccess, "moves files named at run time"
		}
		if p, out := ev.outsideClaim(m.Dest); out {
			return CageFullAccess, "writes outside the workspace (" + p + ")"
		}
	}
	for _, list := range [2][]string{c.Writes, c.Links} {
		for _, p := range list {
			if _, out := ev.outsideClaim(p); out {
				return CageFullAccess, "writes outside the workspace (" + p + ")"
			}
		}
	}
	if len(c.Writes) > 0 || len(c.Links) > 0 || len(c.Moves) > 0 || len(c.Destructive) > 0 {
		return CageWorkspaceWrite, "writes in the workspace"
	}
	if c.Network {
		return CageReadOnly, "classified read-only, with network"
	}
	return CageReadOnly, "classified read-only"
}

// outsideClaim reports a claimed write that no workspace-write cage holds:
// outside the workspace and writable roots, where the private /tmp of a
// workspace-write cage does not take it either (under danger-full-access
// the host's /tmp is what the command means: a later call reads it).
func (ev *evaluation) outsideClaim(p string) (string, bool) {
	if ev.inRoots(p) {
		return p, false
	}
	if ev.s.Sandbox.Kind != DangerFullAccess && filepath.IsAbs(p) && within(filepath.Clean(p), "/tmp") {
		return p, false
	}
	return p, true
}

// axisCage is the widest cage the sandbox axis gives a command.
func (ev *evaluation) axisCage() (CageShape, bool) {
	sb := ev.s.Sandbox
	switch sb.Kind {
	case ReadOnly:
		return CageReadOnly, false
	case WorkspaceWrite:
		return CageWorkspaceWrite, sb.NetworkAccess
	}
	return CageFullAccess, true
}

// claimCage is the cage of a call no human answers: the claim, bounded by
// the sandbox axis.
func (ev *evaluation) claimCage() *Cage {
	if !ev.s.Caged {
		return &Cage{Shape: CageNone, Why: "no OS cage on this machine"}
	}
	shape, why, claimsNetwork := ev.claim()
	axis, network := ev.axisCage()
	if axis.rank() < shape.rank() {
		why = ev.s.Sandbox.Kind.String() + " sandbox; " + why
		shape = axis
	}
	if ev.s.Sandbox.Kind == DangerFullAccess {
		// Full access admits every host, but only to a command that
		// claims the network (or one the engine cannot read): a command
		// proven read-only gets none. Under workspace-write with network
		// on, every caged command has the proxy, which asks host by host.
		network = claimsNetwork
	}
	return &Cage{Shape: shape, Network: network, Claimed: true, Why: why}
}

// humanCage is the cage of a call a human approved: the whole sandbox
// axis. Under danger-full-access that is the host, where the
// cage-protected set stays read-only but for the protected paths the
// human saw the command write.
func (ev *evaluation) humanCage(reasons reasonSet) *Cage {
	if !ev.s.Caged {
		return &Cage{Shape: CageNone, Why: "no OS cage on this machine"}
	}
	var approved []string
	if reasons.has(ReasonProtectedPath) {
		approved = ev.protectedTargets()
	}
	why := "a human approved this call"
	axis, network := ev.axisCage()
	if ev.s.Sandbox.Kind == DangerFullAccess {
		return &Cage{Shape: CageHost, Approved: approved, Why: why + " under danger-full-access"}
	}
	return &Cage{Shape: axis, Network: network, Approved: approved, Why: why + "; the sandbox is " + ev.s.Sandbox.Kind.String()}
}

// protectedTargets are the protected paths the commands visibly write or
// link: what a human approving the ask saw and approved.
func (ev *evaluation) protectedTargets() []string {
	var out []string
	for i := range ev.call.Effects {
		if ev.call.Effects[i].Kind != EffectExec {
			continue
		}
		c := ev.classify(i)
		for _, p := range append(append([]string(nil), c.Writes...), c.Links...) {
			if _, edit := ev.e.ProtectedTier(p, ev.s.Workspace); edit && filepath.IsAbs(p) {
				out = append(out, filepath.Clean(p))
			}
		}
	}
	return out
}

// runsCommand reports a call with a shell command in it.
func (ev *evaluation) runsCommand() bool {
	for i := range ev.call.Effects {
		if ev.call.Effects[i].Kind == EffectExec {
			return true
		}
	}
	return false
}

// exactGrant reports a grant source whose signature is the exact command
// the human saw (shell=...): it stands for the human's answer. A head
// signature (shell:npm test) covers a family, so what it allows runs in
// the claim's cage.
func exactGrant(source string) bool {
	for _, p := range []string{"session-grant:", "workspace-rule:"} {
		if sig, ok := strings.CutPrefix(source, p); ok {
			return strings.HasPrefix(sig, "shell=")
		}
	}
	return false
}

// withCage sets the cage of a shell call on its decision and records it
// in the trace.
func (ev *evaluation) withCage(d Decision) Decision {
	if !ev.runsCommand() || d.Verdict == VerdictDeny {
		return d
	}
	switch {
	case d.Verdict == VerdictAsk:
		d.Cage, d.HumanCage = ev.claimCage(), ev.humanCage(ev.reasons)
		ev.step("cage", "asked; "+d.Cage.Why, "if a human approves: "+d.HumanCage.String()+"; if allowed otherwise: "+d.Cage.String())
	case exactGrant(d.Source):
		d.Cage = ev.humanCage(0)
		d.Cage.Why = "a grant for the exact command a human approved"
		ev.step("cage", d.Source, d.Cage.String())
	default:
		d.Cage = ev.claimCage()
		ev.step("cage", "allowed by "+d.Source+" without a human's answer to this call", d.Cage.String())
	}
	d.Trace = ev.trace
	return d
}

// ApprovedByHuman is the decision once a human approved the ask d: the
// cage becomes the one a human's answer gives.
func ApprovedByHuman(d Decision) Decision {
	if d.HumanCage != nil {
		d.Cage, d.HumanCage = d.HumanCage, nil
	}
	return d
}

// EditSystemFolders are the absolute folders every write into which is
// edit-protected (the one table's MatchSystem entries): a full-access cage
// holds them read-only.
func EditSystemFolders() []string {
	var out []string
	for _, e := range protectedTable {
		if e.Match == MatchSystem {
			out = append(out, e.Name)
		}
	}
	return out
}

// HomeProtected lists, relative to a home folder, the entries of the one
// table (protected_table.go) the cage holds read-only that name a place in
// a home: shell rc files and the agent's own folders, keys and credential
// configs, git's user config, ~/.config folders whose files run code,
// ~/.local/bin, editors' and other version control's files. A full-access
// cage holds those that exist read-only. Sorted.
func HomeProtected() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range protectedTable {
		if e.Cage != HeldReadOnly {
			continue
		}
		var p string
		switch e.Match {
		case MatchName:
			p = e.Name
		case MatchUnder:
			p = filepath.Join(e.Parent, e.Name)
		default:
			continue
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
