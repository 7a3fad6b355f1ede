package policy

import (
	"errors"
	"fmt"
	"strings"

	classifier "github.com/warden-dev/warden/backend/policy/shell"
)

// RuleSet is compiled rules, immutable: the engine holds the organisation's
// and the user's, a session carries its workspace's.
type RuleSet struct {
	rules []Rule
	// by decision, in tier then file order
	deny, ask, allow []int
	// idx finds, per decision, the rules an item may match (rules_index.go)
	idx      [3]ruleIdx
	all      ruleIdx // every decision's rules, for the read path's question
	commands bool    // some rule matches commands
	// reads: some rule may match a call that only reads (paths or tool
	// rules), so the engine's read fast path is off.
	reads bool
}

// CompileRules validates rules (in tier order: org, user, workspace) and
// builds a set. Every bad rule is reported with its file:line.
func CompileRules(rules []Rule) (*RuleSet, error) {
	rs := &RuleSet{rules: make([]Rule, len(rules))}
	copy(rs.rules, rules)
	var errs []error
	for i := range rs.rules {
		r := &rs.rules[i]
		r.globs = nil
		if err := r.compile(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Where(), err))
			continue
		}
		switch r.Decision {
		case VerdictDeny:
			rs.deny = append(rs.deny, i)
		case VerdictAsk:
			rs.ask = append(rs.ask, i)
		case VerdictAllow:
			rs.allow = append(rs.allow, i)
		}
		rs.idx[decisionIndex(r.Decision)].index(r, i)
		rs.all.index(r, i)
		if len(r.Command) > 0 {
			rs.commands = true
		} else if len(r.Hosts) == 0 {
			rs.reads = true
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return rs, nil
}

// Rules returns the rules, in order.
func (rs *RuleSet) Rules() []Rule {
	if rs == nil {
		return nil
	}
	return append([]Rule(nil), rs.rules...)
}

// Len is the number of rules.
func (rs *RuleSet) Len() int {
	if rs == nil {
		return 0
	}
	return len(rs.rules)
}

// itemKind is what part of a call a rule can match.
type itemKind uint8

const (
	itemTool    itemKind = iota // the call as a whole (tool rules only)
	itemCommand                 // one program of a shell script
	itemPath                    // a file read, written or removed
	itemHost                    // a network destination or browser origin
)

// item is one part of a call. required parts must each be covered for
// allow rules to allow the call; the others (the files and hosts a
// command names) count for deny and ask only: an allow rule for the
// command vouches for them.
type item struct {
	kind     itemKind
	cmd      *classifier.Command
	text     string // path or host[:port]
	required bool
	// host items: the canonical host and the port (0: unknown)
	host string
	port int
}

// hostItem is an item for "host", "host:port" or "[v6]:port".
func hostItem(hostport string, required bool) item {
	h, p := splitHostPort(hostport)
	return item{kind: itemHost, text: hostport, required: required, host: h, port: p}
}

// ruleMatch is a rule that matched an item.
type ruleMatch struct {
	rule *Rule
	on   string // what it matched, for the trace
}

// matches reports whether rule r matches item it of a call whose tools are
// named names. loose: deny/ask matching.
func (r *Rule) matches(it *item, names []string, ws string, loose bool) bool {
	if r.Tool != "" && !r.toolMatches(names) {
		return false
	}
	switch {
	case len(r.Command) > 0:
		return it.kind == itemCommand && r.matchCommand(it.cmd, loose)
	case len(r.Paths) > 0:
		return it.kind == itemPath && r.matchPath(it.text, ws)
	case len(r.Hosts) > 0:
		return it.kind == itemHost && r.matchHost(it.host, it.port, loose)
	}
	return true // a tool rule covers every part of the tool's call
}

// toolMatches reports whether the rule's tool covers one of the names.
func (r *Rule) toolMatches(names []string) bool {
	for _, n := range names {
		if r.tool.match(n) {
			return true
		}
	}
	return false
}

func (it *item) describe() string {
	switch it.kind {
	case itemCommand:
		if it.cmd.Program == "" {
			return "a program computed at run time"
		}
		words := make([]string, 0, len(it.cmd.Words)+1)
		words = append(words, it.cmd.Program)
		for _, w := range it.cmd.Words {
			words = append(words, w.Text)
		}
		return "`" + strings.Join(words, " ") + "`"
	case itemPath:
		return it.text
	case itemHost:
		return it.text
	}
	return "the call"
}

// Example is one example of a rule checked: what it is, whether it had to
// match, and whether it did.
type ExampleFailure struct {
	Rule    *Rule
	Example string
	Want    bool // true: it should have matched
}

func (f ExampleFailure) Error() string {
	if f.Want {
		return fmt.Sprintf("%s: rule (%s %s) does not match its example %q", f.Rule.Where(), f.Rule.Decision, f.Rule.Match(), f.Example)
	}
	return fmt.Sprintf("%s: rule (%s %s) matches %q, which it lists under not_examples", f.Rule.Where(), f.Rule.Decision, f.Rule.Match(), f.Example)
}

// CheckExamples runs every rule's examples and not_examples through the
// same matcher the engine uses, and returns what failed.
func (rs *RuleSet) CheckExamples() []ExampleFailure {
	if rs == nil {
		return nil
	}
	var out []ExampleFailure
	for i := range rs.rules {
		r := &rs.rules[i]
		for _, ex := range r.Examples {
			if !r.exampleMatches(ex) {
				out = append(out, ExampleFailure{Rule: r, Example: ex, Want: true})
			}
		}
		for _, ex := range r.NotExamples {
			if r.exampleMatches(ex) {
				out = append(out, ExampleFailure{Rule: r, Example: ex, Want: false})
			}
		}
	}
	return out
}

// ExampleMatches reports whether the rule matches one example, as the
// engine would match the call the example stands for.
func (r *Rule) exampleMatches(ex string) bool {
	loose := r.Decision != VerdictAllow
	names := []string{r.exampleTool()}
	var items []item
	switch {
	case len(r.Command) > 0:
		_, cmds := classifier.ClassifyCommands(ex, exampleWorkspace, nil)
		items = commandItems(cmds, !loose)
	case len(r.Paths) > 0:
		p := ex
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
			p = exampleWorkspace + "/" + strings.TrimPrefix(p, "./")
		}
		items = []item{{kind: itemPath, text: p, required: true}}
	case len(r.Hosts) > 0:
		items = []item{hostItem(ex, true)}
	default:
		names = []string{ex}
		items = []item{{kind: itemTool, required: true}}
	}
	return r.covers(items, names, exampleWorkspace, loose)
}

// covers is the rule's verdict on a call's items alone: for deny and ask,
// one item matching; for allow, every required item matching.
func (r *Rule) covers(items []item, names []string, ws string, loose bool) bool {
	if loose {
		for i := range items {
			if r.matches(&items[i], names, ws, true) {
				return true
			}
		}
		return false
	}
	n := 0
	for i := range items {
		if !items[i].required {
			continue
		}
		if !r.matches(&items[i], names, ws, false) {
			return false
		}
		n++
	}
	return n > 0
}

// exampleTool is the tool an example call is made with: the rule's tool
// when it names one exactly, else the usual tool of its match.
func (r *Rule) exampleTool() string {
	if r.Tool != "" && !strings.Contains(r.Tool, "*") {
		return r.Tool
	}
	if r.Tool != "" {
		// A pattern: an example is made with a name the pattern covers.
		return strings.ReplaceAll(r.Tool, "*", "x")
	}
	switch {
	case len(r.Command) > 0:
		return "shell.exec"
	case len(r.Paths) > 0:
		return "fs.write"
	}
	return "net"
}

// commandItems are a script's programs as items; forAllow leaves out the
// transparent wrappers, whose command is a part of its own.
func commandItems(cmds []classifier.Command, forAllow bool) []item {
	out := make([]item, 0, len(cmds))
	for i := range cmds {
		c := &cmds[i]
		if forAllow && transparent[c.Program] && !c.Path && !c.SetsEnv {
			continue
		}
		out = append(out, item{kind: itemCommand, cmd: c, required: true})
	}
	return out
}

// commandRules reports whether some rule matches commands.
func (rs *RuleSet) commandRules() bool { return rs != nil && rs.commands }

// readRules reports whether some rule may match a call that only reads.
func (rs *RuleSet) readRules() bool { return rs != nil && rs.reads }
