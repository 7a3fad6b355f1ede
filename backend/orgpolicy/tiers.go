package orgpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// Tiers are the three tiers a process decides under: the organisation's
// policy and rules (fixed at start), the user's rules (read at start), and
// each workspace's rules (read when a session of it decides, again when
// the file changes).
type Tiers struct {
	// Org is the organisation tier; nil when none applies.
	Org *Policy
	// UserRulesFile is the user's rules.toml; UserRules what it holds.
	UserRulesFile string
	UserRules     []policy.Rule

	engine *policy.RuleSet

	mu sync.Mutex
	ws map[string]wsEntry
}

type wsEntry struct {
	mtime time.Time
	size  int64
	ino   uint64
	rules *policy.RuleSet
	warn  []string
	err   error
}

// LoadTiers reads the organisation tier through loader and the user's
// rules beside userConfig. An organisation policy that cannot apply is an
// *Error: the caller must not start anything.
func LoadTiers(loader Loader, userConfig string, now time.Time) (*Tiers, error) {
	org, err := loader.Load(now)
	if err != nil {
		return nil, err
	}
	t := &Tiers{Org: org, ws: map[string]wsEntry{}}
	if userConfig != "" {
		t.UserRulesFile = UserRulesPath(userConfig)
		if t.UserRules, err = LoadRulesFile(t.UserRulesFile, policy.TierUser); err != nil {
			return nil, err
		}
	}
	var all []policy.Rule
	if org != nil {
		all = append(all, org.Rules...)
	}
	all = append(all, t.UserRules...)
	if len(all) > 0 {
		if t.engine, err = policy.CompileRules(all); err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
	}
	return t, nil
}

// PolicyOrg is the organisation's ceilings for the engine (nil: none).
func (t *Tiers) PolicyOrg() *policy.Org {
	if t == nil || t.Org == nil {
		return nil
	}
	o := t.Org.Org
	return &o
}

// EngineRules are the organisation's and the user's rules, compiled.
func (t *Tiers) EngineRules() *policy.RuleSet {
	if t == nil {
		return nil
	}
	return t.engine
}

// Bundle is the organisation bundle (nil: none).
func (t *Tiers) Bundle() *Bundle {
	if t == nil || t.Org == nil {
		return nil
	}
	return t.Org.Bundle
}

// Workspace returns a workspace's compiled rules (nil when it has none),
// re-reading the file when it changed. warnings name what is ignored
// (allow rules the organisation does not permit there). A rules file that
// does not parse, or whose examples fail, is an error: no call of that
// workspace is decided until it is fixed.
func (t *Tiers) Workspace(workspace string) (*policy.RuleSet, []string, error) {
	if t == nil || workspace == "" {
		return nil, nil, nil
	}
	path := WorkspaceRulesPath(workspace)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("rules: %w", err)
	}
	var ino uint64
	if st, ok := statIno(fi); ok {
		ino = st
	}
	t.mu.Lock()
	e, ok := t.ws[workspace]
	t.mu.Unlock()
	if ok && e.mtime.Equal(fi.ModTime()) && e.size == fi.Size() && e.ino == ino {
		return e.rules, e.warn, e.err
	}
	e = wsEntry{mtime: fi.ModTime(), size: fi.Size(), ino: ino}
	rules, err := LoadRulesFile(path, policy.TierWorkspace)
	if err != nil {
		e.err = err
	} else {
		org := t.PolicyOrg()
		if !org.Active() || !org.WorkspaceAllow {
			n := 0
			for _, r := range rules {
				if r.Decision == policy.VerdictAllow {
					n++
				}
			}
			if n > 0 {
				why := "no organisation policy permits them"
				if org.Active() {
					why = org.Name() + " does not permit them ([rules] workspace_allow)"
				}
				e.warn = append(e.warn, fmt.Sprintf("%s: %d allow rules are ignored: a workspace's rules come with the repository and may only deny or ask; %s", path, n, why))
			}
		}
		if len(rules) > 0 {
			e.rules, e.err = policy.CompileRules(rules)
		}
	}
	t.mu.Lock()
	t.ws[workspace] = e
	t.mu.Unlock()
	return e.rules, e.warn, e.err
}

// Warnings name the user's allow rules the organisation does not permit.
func (t *Tiers) Warnings() []string {
	if t == nil {
		return nil
	}
	org := t.PolicyOrg()
	if !org.Active() || org.UserAllow {
		return nil
	}
	n := 0
	for _, r := range t.UserRules {
		if r.Decision == policy.VerdictAllow {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: %d allow rules are ignored: %s does not permit user allow rules ([rules] user_allow)", t.UserRulesFile, n, org.Name())}
}
