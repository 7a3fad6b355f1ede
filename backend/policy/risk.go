package policy

import (
	"net"
	"path/filepath"
	"strings"
)

// Risk is what a prompt's badge says about a call: how much the call's
// computed effects could cost the human if the answer is wrong. It is read
// from the effects (and, for a shell command, from its classification) with
// the session's sandbox, never declared per tool: `ls -la` and `rm -rf ~` are
// both shell.exec, and a badge that is always red trains people to ignore it.
// The engine never reads it (permission-model.md, "Risk").
//
//   - Low: reads, meta tools, proven read-only commands, a screenshot, a
//     trusted server's read-only tool, a look at an open page.
//   - Medium: writes inside the workspace, its writable roots or /tmp; a
//     command the classifier cannot prove but that runs in the OS cage; a
//     loopback connection; a trusted MCP tool; a click on a local page.
//   - High: anything destructive; the network beyond loopback; a write
//     outside the workspace and its roots, or to a protected path (it runs
//     later, outside any cage); an unknown command that runs unconfined;
//     desktop control; an untrusted MCP server; an effect Warden does not
//     know; a call that declares none.
//
// The window's badge and the terminal's risk line both show this value (it
// travels on the ask), so the two front ends always agree.
func RiskOf(call Call, s Session) Risk {
	if len(call.Effects) == 0 {
		return RiskHigh
	}
	worst := RiskLow
	for i := range call.Effects {
		if r := effectRisk(&call.Effects[i], &s); riskRank(r) > riskRank(worst) {
			worst = r
		}
	}
	return worst
}

func riskRank(r Risk) int {
	switch r {
	case RiskLow:
		return 0
	case RiskMedium:
		return 1
	}
	return 2
}

func effectRisk(ef *Effect, s *Session) Risk {
	switch kindOf(ef) {
	case EffectRead, EffectMeta:
		return RiskLow
	case EffectWrite:
		return writesRisk(ef.Paths, s)
	case EffectDestructive:
		return RiskHigh
	case EffectNetwork:
		if len(ef.Hosts) > 0 && allLoopback(hostsOnly(ef.Hosts)) {
			return RiskMedium
		}
		return RiskHigh
	case EffectExec:
		return execRisk(ef, s)
	case EffectBrowser:
		if host := originHost(ef.Origin); ef.Origin != "" && isLoopback(host) {
			if browserReadVerbs[ef.Action] {
				return RiskLow
			}
			return RiskMedium
		}
		if browserReadVerbs[ef.Action] && ef.Origin != "" {
			return RiskLow // looks at a page whose origin was admitted when it opened
		}
		return RiskHigh
	case EffectDesktop:
		if ef.Action == "screenshot" {
			return RiskLow
		}
		return RiskHigh
	case EffectMcp:
		if ef.Trusted {
			return RiskMedium
		}
		return RiskHigh
	}
	return RiskHigh
}

// execRisk reads a shell command's classification. What the cage bounds
// (an unproven command inside it) is Medium; the same command unconfined
// (Full access, or no cage on this machine) is High.
func execRisk(ef *Effect, s *Session) Risk {
	cwd := ef.Cwd
	if cwd == "" {
		cwd = s.Workspace
	} else if !filepath.IsAbs(cwd) && s.Workspace != "" {
		cwd = filepath.Join(s.Workspace, cwd)
	}
	c := ClassifyShell(ef.Command, cwd)
	unconfined := s.Sandbox.Kind == DangerFullAccess || !s.Caged
	if len(c.Destructive) > 0 || c.Network && !allLoopback(hostsOnly(c.Hosts)) {
		return RiskHigh
	}
	r := RiskLow
	raise := func(to Risk) {
		if riskRank(to) > riskRank(r) {
			r = to
		}
	}
	if c.Class != ClassReadOnly {
		raise(RiskMedium)
	}
	if len(c.Unknown) > 0 && unconfined {
		return RiskHigh
	}
	if c.Unresolved && unconfined {
		return RiskHigh
	}
	raise(writesRisk(c.Writes, s))
	raise(writesRisk(c.Links, s))
	for _, m := range c.Moves {
		if m.Unresolved && unconfined {
			return RiskHigh
		}
		if m.Dest != "" {
			raise(writesRisk([]string{m.Dest}, s))
		}
		raise(writesRisk(m.Sources, s))
	}
	return r
}

// writesRisk is Medium for writes that stay inside the workspace, its
// writable roots or /tmp (scratch: a caged command's own, or the host's), and High for
// any outside them or to a protected path. No paths: Low.
func writesRisk(paths []string, s *Session) Risk {
	r := RiskLow
	for _, p := range paths {
		if strings.HasPrefix(p, "~") {
			return RiskHigh
		}
		if !filepath.IsAbs(p) {
			if s.Workspace == "" {
				return RiskHigh
			}
			p = filepath.Join(s.Workspace, p)
		}
		p = filepath.Clean(p)
		if _, edit := ProtectedTier(p, s.Workspace); edit {
			return RiskHigh
		}
		if !inWorkspaceOrRoots(p, s) && !within(p, "/tmp") {
			return RiskHigh
		}
		r = RiskMedium
	}
	return r
}

func inWorkspaceOrRoots(p string, s *Session) bool {
	if s.Workspace != "" && within(p, filepath.Clean(s.Workspace)) {
		return true
	}
	for _, r := range s.Sandbox.WritableRoots {
		if filepath.IsAbs(r) && within(p, filepath.Clean(r)) {
			return true
		}
	}
	return false
}

// hostsOnly drops the ports of host:port entries ("127.0.0.1:5432",
// "[::1]:8080"); a bare host stays as it is.
func hostsOnly(hosts []string) []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		if host, _, err := net.SplitHostPort(h); err == nil {
			h = host
		}
		out[i] = h
	}
	return out
}
