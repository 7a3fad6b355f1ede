package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
)

// axisFlags are the session flags of every command that decides a call
// (`policy check`, `tool`): the workspace and the two axes.
type axisFlags struct {
	workspace, approval, sandbox, caged string
	network, planning                   bool
	roots                               multiFlag
	fs                                  *flag.FlagSet
}

func (a *axisFlags) register(fs *flag.FlagSet, planningHelp string) {
	a.fs = fs
	fs.StringVar(&a.workspace, "workspace", ".", "workspace `dir` (resolved through symlinks)")
	fs.StringVar(&a.approval, "approval", "on-request", "approval policy: never|on-request|always")
	fs.StringVar(&a.sandbox, "sandbox", "workspace-write", "sandbox: read-only|workspace-write|danger-full-access")
	fs.BoolVar(&a.network, "network", false, "network access under workspace-write")
	fs.Var(&a.roots, "writable-root", "extra writable `dir` under workspace-write (repeatable)")
	fs.BoolVar(&a.planning, "planning", false, planningHelp)
	fs.StringVar(&a.caged, "caged", "auto", "whether shell commands run in the OS cage: auto|true|false")
}

// session builds the policy session the flags describe; Caged is left to
// the command, which knows whether it will really run anything.
func (a *axisFlags) session() (policy.Session, error) {
	var s policy.Session
	var err error
	if s.Approval, err = policy.ParseApprovalPolicy(a.approval); err != nil {
		return s, err
	}
	if s.Sandbox.Kind, err = policy.ParseSandboxKind(a.sandbox); err != nil {
		return s, err
	}
	if s.Workspace, err = resolveDir(a.workspace); err != nil {
		return s, fmt.Errorf("--workspace: %w", err)
	}
	for _, r := range a.roots {
		d, err := resolveDir(r)
		if err != nil {
			return s, fmt.Errorf("--writable-root: %w", err)
		}
		s.Sandbox.WritableRoots = append(s.Sandbox.WritableRoots, d)
	}
	s.Sandbox.NetworkAccess = a.network
	s.Planning = a.planning
	s.Now = time.Now()
	return s, nil
}

// caged settles the session's caged fact from --caged against the graph's
// cage, the same for `policy check` and `tool`: auto is what the cage will
// really do; true is refused when the cage does not work here (a decision
// must not stand on a cage that is not there); false can only make the
// engine more careful.
func (a *axisFlags) settleCaged(s *policy.Session, g *assemble.Graph) error {
	switch a.caged {
	case "auto":
		s.Caged, s.NetworkProxied = g.Cage.Caged(s.Sandbox), g.Cage.Proxied(s.Sandbox)
	case "true", "yes", "1":
		if !g.CageStatus.Available {
			return fmt.Errorf("--caged=true, but the cage does not work here: %s", g.CageStatus.Reason)
		}
		s.Caged, s.NetworkProxied = g.Cage.Caged(s.Sandbox), g.Cage.Proxied(s.Sandbox)
	case "false", "no", "0":
		s.Caged, s.NetworkProxied = false, false
	default:
		return fmt.Errorf("--caged: unknown value %q (valid: auto, true, false)", a.caged)
	}
	return nil
}

// checkCaged rejects a bad --caged before anything is opened.
func (a *axisFlags) checkCaged() error {
	switch a.caged {
	case "auto", "true", "yes", "1", "false", "no", "0":
		return nil
	}
	return fmt.Errorf("--caged: unknown value %q (valid: auto, true, false)", a.caged)
}

// resolveDir resolves a directory flag, which must exist.
func resolveDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return r, nil
}

// settleOrg puts the session under the organisation's ceilings: an axis
// the command line asked for above a ceiling is refused with a message
// naming the policy (like every front end); an axis left at its default
// is lowered to the widest value the policy permits.
func (a *axisFlags) settleOrg(s *policy.Session, org *policy.Org) error {
	set := map[string]bool{}
	if a.fs != nil {
		a.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	}
	if set["approval"] {
		if err := org.CheckApproval(s.Approval); err != nil {
			return err
		}
	}
	if set["sandbox"] || set["network"] {
		if err := org.CheckSandbox(s.Sandbox); err != nil {
			return err
		}
	}
	s.Approval, _ = org.ClampApproval(s.Approval)
	s.Sandbox, _ = org.ClampSandbox(s.Sandbox)
	return nil
}
