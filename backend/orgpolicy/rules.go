package orgpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/warden-dev/warden/backend/policy"
)

// RulesFile is the rules file of the user's and the workspace's tier.
const RulesFile = "rules.toml"

// ruleEntry is one [[rule]] as written.
type ruleEntry struct {
	Tool        string   `toml:"tool"`
	Command     string   `toml:"command"`
	Paths       []string `toml:"paths"`
	Hosts       []string `toml:"hosts"`
	Decision    string   `toml:"decision"`
	Why         string   `toml:"why"`
	Examples    []string `toml:"examples"`
	NotExamples []string `toml:"not_examples"`
}

const ruleKeys = "tool, command, paths, hosts, decision, why, examples, not_examples"

// rulesFile is a rules.toml.
type rulesFile struct {
	Rule []ruleEntry `toml:"rule"`
}

// ParseRules reads a rules.toml of a tier: [[rule]] tables only. Every
// rule is validated and its examples are run; a rule whose examples fail
// is an error, so a broken rule never ships silently.
func ParseRules(data []byte, file string, tier policy.Tier) ([]policy.Rule, error) {
	var f rulesFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("%s: unknown keys %s (a rules file holds [[rule]] tables with %s)", file, keyList(u), ruleKeys)
	}
	rules, err := convertRules(f.Rule, data, file, tier)
	if err != nil {
		return nil, err
	}
	if err := CheckRules(rules); err != nil {
		return nil, err
	}
	return rules, nil
}

// CheckRules compiles rules and runs their examples; the error lists
// every problem with its file:line.
func CheckRules(rules []policy.Rule) error {
	rs, err := policy.CompileRules(rules)
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range rs.CheckExamples() {
		errs = append(errs, f)
	}
	return errors.Join(errs...)
}

func keyList(keys []toml.Key) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = k.String()
	}
	return strings.Join(s, ", ")
}

// convertRules turns entries into rules with their file:line.
func convertRules(entries []ruleEntry, data []byte, file string, tier policy.Tier) ([]policy.Rule, error) {
	lines := ruleLines(data)
	var out []policy.Rule
	var errs []error
	for i, e := range entries {
		line := 0
		if i < len(lines) && len(lines) == len(entries) {
			line = lines[i]
		}
		r := policy.Rule{Tier: tier, File: file, Line: line, Tool: strings.TrimSpace(e.Tool),
			Paths: e.Paths, Why: strings.TrimSpace(e.Why), Examples: e.Examples, NotExamples: e.NotExamples,
			Decision: policy.Verdict(strings.ToLower(strings.TrimSpace(e.Decision)))}
		if e.Command != "" {
			r.Command = strings.Fields(e.Command)
			if len(r.Command) == 0 {
				errs = append(errs, fmt.Errorf("%s: command is blank", r.Where()))
				continue
			}
		}
		bad := false
		for _, h := range e.Hosts {
			p, err := policy.ParseHostPattern(h)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: hosts: %w", r.Where(), err))
				bad = true
				continue
			}
			r.Hosts = append(r.Hosts, p)
		}
		if e.Hosts != nil && len(e.Hosts) == 0 {
			errs = append(errs, fmt.Errorf("%s: hosts is empty", r.Where()))
			bad = true
		}
		if e.Paths != nil && len(e.Paths) == 0 {
			errs = append(errs, fmt.Errorf("%s: paths is empty", r.Where()))
			bad = true
		}
		if !bad {
			out = append(out, r)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Compiled on first use: every `warden tool` process links this package;
// few of its calls need the expression.
var ruleHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[\[\s*(rule|"rule"|'rule')\s*\]\]\s*(#.*)?$`) })

// ruleLines finds the line of each [[rule]] header, outside multi-line
// strings. A file the scan cannot follow gets no line numbers (the caller
// compares the count with the decoded rules).
func ruleLines(data []byte) []int {
	var out []int
	delim := ""
	for n, line := range strings.Split(string(data), "\n") {
		if delim == "" && ruleHeader().MatchString(strings.TrimSpace(line)) {
			out = append(out, n+1)
			continue
		}
		for rest := line; ; {
			if delim == "" {
				i := strings.Index(rest, `"""`)
				j := strings.Index(rest, `'''`)
				if i < 0 && j < 0 {
					break
				}
				if i < 0 || j >= 0 && j < i {
					delim, rest = `'''`, rest[j+3:]
				} else {
					delim, rest = `"""`, rest[i+3:]
				}
				continue
			}
			i := strings.Index(rest, delim)
			if i < 0 {
				break
			}
			delim, rest = "", rest[i+3:]
		}
	}
	return out
}

// LoadRulesFile reads a tier's rules file; a missing file is no rules.
func LoadRulesFile(path string, tier policy.Tier) ([]policy.Rule, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	rules, err := ParseRules(data, path, tier)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	return rules, nil
}

// UserRulesPath is the user's rules file, beside config.toml.
func UserRulesPath(userConfig string) string {
	return filepath.Join(filepath.Dir(userConfig), RulesFile)
}

// WorkspaceRulesPath is a workspace's rules file.
func WorkspaceRulesPath(workspace string) string {
	return filepath.Join(workspace, ".warden", RulesFile)
}
