package policy

import (
	"fmt"
	"path/filepath"
	"strings"
)

const (
	remedyWorkspaceWrite = "switch the sandbox to workspace-write"
	remedyNetwork        = "turn network access on"
	remedyOutside        = "add the folder as a writable root, or switch the sandbox to danger-full-access"
)

// sandbox is step 2 for one effect: deny what the sandbox does not admit,
// and raise the structural reasons of what it does.
func (ev *evaluation) sandbox(i int, ef *Effect, sig string) (Decision, bool) {
	s := ev.s
	kind := s.Sandbox.Kind
	denyf := func(remedy, format string, a ...any) (Decision, bool) {
		d := fmt.Sprintf(format, a...)
		ev.step("sandbox", kind.String()+sandboxOptions(s)+"; "+describe(ef), "deny: "+d)
		return ev.deny(ReasonSandboxRejected, d, remedy, sig), true
	}
	switch kindOf(ef) {
	case EffectRead:
		if ef.Kind == EffectMcp {
			ev.mcpNote = append(ev.mcpNote, ef.Server+" is trusted: read-only hint of "+ef.Tool+" honoured, adapted to read")
			ev.trusted = append(ev.trusted, ef.Server)
		}
		for _, p := range ef.Paths {
			if h, ok := ev.e.Secret(p, s.Workspace); ok {
				ev.raise(ReasonSecretRead, ev.call.Tool+" reads "+p+", which the cage hides ("+h+")")
			}
		}
	case EffectMeta:
	case EffectWrite, EffectDestructive:
		if len(ef.Paths) == 0 && kind != DangerFullAccess {
			return denyf(remedyWorkspaceWrite, "%s declares a %s without target paths", ev.call.Tool, ef.Kind)
		}
		for _, p := range ef.Paths {
			if !filepath.IsAbs(p) && kind != DangerFullAccess {
				return denyf(remedyOutside, "%s: path %q is not absolute and resolved", ev.call.Tool, p)
			}
			switch {
			case kind == ReadOnly:
				return denyf(remedyWorkspaceWrite, "read-only sandbox: %s would %s %s", ev.call.Tool, verb(ef.Kind), p)
			case kind == WorkspaceWrite && !ev.writable(p, false):
				return denyf(remedyOutside, "%s would %s %s, outside the workspace and writable roots", ev.call.Tool, verb(ef.Kind), p)
			}
			if _, edit := ev.e.ProtectedTier(p, s.Workspace); edit {
				ev.raise(ReasonProtectedPath, p+" is protected")
			}
			ev.outside(p, ev.call.Tool+" writes "+p)
		}
		if ef.Kind == EffectDestructive {
			ev.raise(ReasonDestructiveEffect, nonEmpty(ef.Why, "destroys "+strings.Join(ef.Paths, " ")))
		}
	case EffectNetwork:
		if allLoopback(ef.Hosts) && kind != ReadOnly {
			break
		}
		if d, denied := ev.network(ef, strings.Join(ef.Hosts, " "), denyf); denied {
			return d, true
		}
	case EffectExec:
		return ev.exec(i, ef, denyf)
	case EffectBrowser:
		if kind == ReadOnly {
			return denyf(remedyWorkspaceWrite, "read-only sandbox: browser actions are rejected")
		}
		host := originHost(ef.Origin)
		if isLoopback(host) {
			break
		}
		if isNavigate(ef.Action) || ef.Origin != "" && !browserReadVerbs[ef.Action] {
			if d, denied := ev.network(ef, nonEmpty(host, "an unknown origin"), denyf); denied {
				return d, true
			}
		}
	case EffectDesktop:
		if ef.Action == "screenshot" {
			break
		}
		if kind == ReadOnly {
			return denyf(remedyWorkspaceWrite, "read-only sandbox: desktop control is rejected")
		}
		ev.raise(ReasonDesktopControl, "computer.use "+nonEmpty(ef.Action, "control"))
	case EffectMcp:
		if kind == ReadOnly {
			return denyf("trust the server (its read-only tools then run), or "+remedyWorkspaceWrite,
				"read-only sandbox: only read-only tools of trusted MCP servers run, and %s/%s is not one", ef.Server, ef.Tool)
		}
		if ef.Trusted {
			ev.mcpNote = append(ev.mcpNote, ef.Server+" is trusted with its current launch config and "+ef.Tool+"'s hash")
			ev.trusted = append(ev.trusted, ef.Server)
		} else {
			ev.mcpNote = append(ev.mcpNote, ef.Server+" is not trusted for "+ef.Tool)
			ev.raise(ReasonUntrustedMcpServer, ef.Server+"/"+ef.Tool)
		}
	default:
		if kind == ReadOnly {
			return denyf(remedyWorkspaceWrite, "read-only sandbox: %s declares no known effect", ev.call.Tool)
		}
		ev.raise(ReasonUnknownCommand, ev.call.Tool+" declares no known effect")
	}
	return Decision{}, false
}

type denyFunc func(remedy, format string, a ...any) (Decision, bool)

// network admits a network effect only where the sandbox has network.
func (ev *evaluation) network(ef *Effect, hosts string, denyf denyFunc) (Decision, bool) {
	switch {
	case ev.s.Sandbox.Kind == ReadOnly:
		return denyf(remedyWorkspaceWrite+" with network access", "read-only sandbox: %s would reach the network (%s)", ev.call.Tool, nonEmpty(hosts, "hosts unknown"))
	case ev.s.Sandbox.Kind == WorkspaceWrite && !ev.s.Sandbox.NetworkAccess:
		return denyf(remedyNetwork, "network access is off: %s would reach %s", ev.call.Tool, nonEmpty(hosts, "the network"))
	}
	ev.raise(ReasonNetworkRequest, nonEmpty(hosts, "hosts unknown"))
	return Decision{}, false
}

// exec is the sandbox step for a shell command, on its classification.
func (ev *evaluation) exec(i int, ef *Effect, denyf denyFunc) (Decision, bool) {
	s := ev.s
	kind := s.Sandbox.Kind
	c := ev.classify(i)
	unconfined := kind == DangerFullAccess || !s.Caged
	switch kind {
	case ReadOnly:
		if len(c.Destructive) > 0 {
			return denyf(remedyWorkspaceWrite, "read-only sandbox: `%s` is destructive (%s)", ef.Command, c.Destructive[0])
		}
		for _, p := range c.Writes {
			// The cage's private /tmp is scratch, but a workspace or a
			// writable root that lies under /tmp is the real folder.
			if !(s.Caged && within(p, "/tmp") && !ev.inRoots(p)) {
				return denyf(remedyWorkspaceWrite, "read-only sandbox: `%s` would write %s", ef.Command, p)
			}
		}
		if c.Unresolved {
			return denyf(remedyWorkspaceWrite, "read-only sandbox: `%s` writes to a target computed at run time", ef.Command)
		}
		if c.Network && !allLoopback(c.Hosts) {
			return denyf(remedyWorkspaceWrite+" with network access", "read-only sandbox: `%s` would reach the network", ef.Command)
		}
		if c.Class != ClassReadOnly && !s.Caged {
			return denyf("install bubblewrap so commands run in a read-only OS cage, or "+remedyWorkspaceWrite,
				"read-only sandbox: `%s` is not proven read-only (%s) and there is no OS cage", ef.Command, firstOf(c.Unknown))
		}
	case WorkspaceWrite:
		for _, p := range c.Writes {
			if !ev.writable(p, s.Caged) {
				return denyf(remedyOutside, "`%s` would write %s, outside the workspace and writable roots", ef.Command, p)
			}
		}
		for _, m := range c.Moves {
			// A move out of the workspace into the cage's /tmp loses the
			// file with the cage: the /tmp admission does not cover it.
			if m.Dest != "" && ev.inRoots(m.Dest) {
				continue
			}
			dest := nonEmpty(m.Dest, "a place computed at run time")
			for _, src := range m.Sources {
				if ev.inRoots(src) {
					return denyf(remedyOutside, "`%s` would move %s out of the workspace to %s, which vanishes with the cage's private /tmp", ef.Command, src, dest)
				}
			}
			if m.Unresolved || m.Dest == "" && ev.rootUnderTmp() {
				return denyf(remedyOutside, "`%s` moves files named at run time to %s, outside the workspace and writable roots", ef.Command, dest)
			}
		}
		if c.Network && !allLoopback(c.Hosts) && !s.Sandbox.NetworkAccess {
			return denyf(remedyNetwork, "network access is off: `%s` would reach %s", ef.Command, nonEmpty(strings.Join(c.Hosts, " "), "the network"))
		}
	}
	for _, p := range c.Writes {
		if _, edit := ev.e.ProtectedTier(p, s.Workspace); edit {
			ev.raise(ReasonProtectedPath, "`"+ef.Command+"` writes "+p)
		}
		ev.outside(p, "`"+ef.Command+"` writes "+p)
	}
	for _, p := range c.Links {
		// A link to a protected file is a way to write it, and a link to a
		// file outside is a way to write outside: a later write through it
		// lands there.
		if _, edit := ev.e.ProtectedTier(p, s.Workspace); edit {
			ev.raise(ReasonProtectedPath, "`"+ef.Command+"` links to "+p)
		}
		ev.outside(p, "`"+ef.Command+"` links to "+p+", so a later write through the link lands there")
	}
	if len(c.Destructive) > 0 {
		ev.raise(ReasonDestructiveEffect, strings.Join(c.Destructive, "; "))
	}
	if c.Network && !allLoopback(c.Hosts) {
		reaches := "`" + ef.Command + "` reaches " + nonEmpty(strings.Join(c.Hosts, " "), "the network")
		if ev.proxied() {
			ev.step("network", reaches+"; the cage's only way out is Warden's proxy",
				"no ask for the command: the proxy decides each destination host:port")
		} else {
			ev.raise(ReasonNetworkRequest, reaches)
		}
	}
	if ef.Escalate {
		ev.raise(ReasonEscalation, "`"+ef.Command+"` asks to run beyond the "+ev.claimCage().String())
	}
	if len(c.Unknown) > 0 && unconfined {
		where := "no OS cage on this machine"
		if kind == DangerFullAccess {
			where = "danger-full-access runs it unconfined"
		}
		ev.raise(ReasonUnknownCommand, c.Unknown[0]+"; "+where)
	}
	return Decision{}, false
}

// proxied reports that a shell command's connections are decided one
// destination at a time by Warden's proxy: it runs in the cage, whose own
// network namespace has no way out but the proxy, under workspace-write
// with network admitted.
func (ev *evaluation) proxied() bool {
	s := ev.s
	return s.Caged && s.NetworkProxied && s.Sandbox.Kind == WorkspaceWrite && s.Sandbox.NetworkAccess
}

// outside raises OutsideWorkspace for a write under DangerFullAccess that
// lands outside the workspace, its writable roots and /tmp.
func (ev *evaluation) outside(p, why string) {
	if ev.s.Sandbox.Kind != DangerFullAccess || ev.inRoots(p) {
		return
	}
	if filepath.IsAbs(p) && within(filepath.Clean(p), "/tmp") {
		return
	}
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
		return // relative to the workspace
	}
	ev.raise(ReasonOutsideWorkspace, why+", outside the workspace and writable roots")
}

// rootUnderTmp reports a workspace or writable root inside /tmp, where the
// cage's private /tmp admission would otherwise reach.
func (ev *evaluation) rootUnderTmp() bool {
	if ev.s.Workspace != "" && within(filepath.Clean(ev.s.Workspace), "/tmp") {
		return true
	}
	for _, r := range ev.s.Sandbox.WritableRoots {
		if filepath.IsAbs(r) && within(filepath.Clean(r), "/tmp") {
			return true
		}
	}
	return false
}

// inRoots reports whether p lies in the workspace or a writable root.
func (ev *evaluation) inRoots(p string) bool {
	if strings.HasPrefix(p, "~") || !filepath.IsAbs(p) {
		return false
	}
	p = filepath.Clean(p)
	if ev.s.Workspace != "" && within(p, filepath.Clean(ev.s.Workspace)) {
		return true
	}
	for _, r := range ev.s.Sandbox.WritableRoots {
		if filepath.IsAbs(r) && within(p, filepath.Clean(r)) {
			return true
		}
	}
	return false
}

// writable reports whether a write to p is admitted under WorkspaceWrite.
// The cage's /tmp is private scratch, so shell writes there never reach the
// host; file tools write the host's /tmp and get no such pass.
func (ev *evaluation) writable(p string, shellInCage bool) bool {
	if strings.HasPrefix(p, "~") || !filepath.IsAbs(p) {
		return false
	}
	p = filepath.Clean(p)
	if within(p, filepath.Clean(ev.s.Workspace)) && ev.s.Workspace != "" {
		return true
	}
	for _, r := range ev.s.Sandbox.WritableRoots {
		if filepath.IsAbs(r) && within(p, filepath.Clean(r)) {
			return true
		}
	}
	return shellInCage && within(p, "/tmp")
}

// browserReadVerbs only look at the page already open (its origin was
// admitted when it was navigated to), so they are not network requests.
// browser.action's own read verbs are get_text and wait_for.
var browserReadVerbs = map[string]bool{"get_text": true, "wait_for": true, "screenshot": true, "snapshot": true, "text": true, "content": true,
	"html": true, "title": true, "url": true, "wait": true, "scroll": true, "hover": true, "console": true,
	"extract": true, "find": true, "get": true, "read": true, "close": true, "back": true, "forward": true}

func isNavigate(a string) bool { return a == "navigate" || a == "goto" || a == "open" }

func verb(k EffectKind) string {
	if k == EffectDestructive {
		return "destroy"
	}
	return "write"
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return "unproven"
	}
	return s[0]
}
