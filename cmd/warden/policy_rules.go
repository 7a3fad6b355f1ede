//go:build !wardenslim

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
)

// `warden policy test [FILE...]`: every rule's examples and not_examples,
// through the matcher the engine uses. A file named policy.toml is read as
// an organisation bundle, any other as a rules file. With no file, every
// tier this machine applies: the organisation's bundle (verified as at
// start), the user's rules.toml and the workspace's.
func runPolicyTest(args []string, io stdio) int {
	fs := flag.NewFlagSet("warden policy test", flag.ContinueOnError)
	fs.SetOutput(io.err)
	workspace := fs.String("workspace", ".", "the workspace whose .warden/rules.toml is tested when no FILE is given")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	failed := false
	report := func(file string, rules []policy.Rule, err error) {
		if err != nil {
			failed = true
			fmt.Fprintf(io.out, "FAIL %s\n", file)
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(io.out, "  %s\n", line)
			}
			return
		}
		n := 0
		for _, r := range rules {
			n += len(r.Examples) + len(r.NotExamples)
		}
		fmt.Fprintf(io.out, "ok   %s: %d rules, %d examples\n", file, len(rules), n)
	}
	if fs.NArg() > 0 {
		for _, file := range fs.Args() {
			rules, err := testFile(file)
			report(file, rules, err)
		}
	} else {
		userPath, err := config.UserPath()
		if err != nil {
			fmt.Fprintf(io.err, "warden policy test: %v\n", err)
			return 2
		}
		p, err := orgpolicy.System().Load(time.Now())
		switch {
		case err != nil:
			report(filepath.Join(orgpolicy.Dir, orgpolicy.PolicyFile), nil, err)
		case p != nil:
			report(p.File, p.Rules, nil)
		default:
			fmt.Fprintf(io.out, "--   %s: no organisation policy\n", filepath.Join(orgpolicy.Dir, orgpolicy.PolicyFile))
		}
		for _, f := range []struct {
			path string
			tier policy.Tier
		}{{orgpolicy.UserRulesPath(userPath), policy.TierUser}, {orgpolicy.WorkspaceRulesPath(absDir(*workspace)), policy.TierWorkspace}} {
			if _, err := os.Stat(f.path); err != nil {
				fmt.Fprintf(io.out, "--   %s: no rules\n", f.path)
				continue
			}
			rules, err := orgpolicy.LoadRulesFile(f.path, f.tier)
			report(f.path, rules, err)
		}
	}
	if failed {
		return 1
	}
	return 0
}

// testFile parses one file: a bundle when it is named policy.toml.
func testFile(file string) ([]policy.Rule, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if filepath.Base(file) == orgpolicy.PolicyFile {
		b, err := orgpolicy.ParseBundle(data, file)
		if err != nil {
			return nil, err
		}
		return b.Rules, nil
	}
	return orgpolicy.ParseRules(data, file, policy.TierUser)
}

func absDir(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		if r, err := filepath.EvalSymlinks(a); err == nil {
			return r
		}
		return a
	}
	return p
}

// `warden policy show`: the effective policy of every tier and where each
// value came from.
func runPolicyShow(_ context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("warden policy show", flag.ContinueOnError)
	fs.SetOutput(io.err)
	workspace := fs.String("workspace", ".", "the workspace whose .warden/ tier is shown")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "warden policy show: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	ws, err := resolveDir(*workspace)
	if err != nil {
		fmt.Fprintf(io.err, "warden policy show: --workspace: %v\n", err)
		return 2
	}
	v, err := assemble.Policy(assemble.Options{Workspace: ws})
	if err != nil {
		fmt.Fprintf(io.err, "warden policy show: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return 1
		}
		return 0
	}
	writePolicy(io, v)
	return 0
}

func writePolicy(io stdio, v assemble.PolicyView) {
	w := tabwriter.NewWriter(io.out, 2, 4, 2, ' ', 0)
	defer w.Flush()
	if v.Org == nil {
		fmt.Fprintf(w, "Organisation policy: none (%s does not exist)\n", filepath.Join(orgpolicy.Dir, orgpolicy.PolicyFile))
	} else {
		o := v.Org
		how := "unsigned (root-owned; no allowed_signers)"
		if o.Signed {
			how = "signed by " + o.Signer
		}
		fmt.Fprintf(w, "Organisation policy: %s\n  %s\n  %s\n", o.File, o.Digest, how)
		if o.Expires != "" {
			fmt.Fprintf(w, "  expires %s\n", o.Expires)
		}
		fmt.Fprintln(w, "\nCeilings (no lower tier can widen them):")
		for _, s := range o.Ceilings {
			fmt.Fprintf(w, "  %s\t%s\t%s\n", s.Name, s.Value, s.Source)
		}
		for _, m := range o.MCPAllowed {
			fmt.Fprintf(w, "  MCP allowlist\t%s\t%s\n", m.Name, m.Hash)
		}
	}
	fmt.Fprintln(w, "\nDefaults of new sessions:")
	for _, s := range v.Defaults {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", s.Name, s.Value, s.Source)
	}
	fmt.Fprintln(w, "\nRules, in the order they apply (deny beats ask beats allow):")
	if len(v.Rules) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, r := range v.Rules {
		why := r.Why
		if r.Decision == policy.VerdictAllow && !v.Applies(r.Tier) {
			why = "(ignored: " + runtime.IgnoredAllow(r.Tier) + ") " + why
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\n", r.Tier, r.Decision, r.Match(), r.Where(), why)
	}
	for _, f := range v.RuleFiles {
		fmt.Fprintf(w, "  (%s rules file %s: %s)\n", f.Name, f.Value, f.Source)
	}
	if len(v.MCP) > 0 {
		fmt.Fprintln(w, "\nMCP servers configured (policy hash for [[mcp.server]]):")
		for _, m := range v.MCP {
			state := "allowed"
			if !m.Allowed {
				state = "not on the organisation's allowlist: ignored"
			}
			fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", m.Name, m.Hash, state, m.Source)
		}
	}
	fmt.Fprintln(w, "\nAudit export (OpenTelemetry):")
	for _, s := range v.Telemetry {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", s.Key, s.Value, s.Source)
	}
	if len(v.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, s := range v.Warnings {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}
