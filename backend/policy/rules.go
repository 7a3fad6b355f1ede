package policy

import (
	"errors"
	"fmt"
	"strings"

	classifier "github.com/warden-dev/warden/backend/policy/shell"
)

// Rules as code: [[rule]] entries of the organisation bundle and of the
// user's and the workspace's rules.toml (backend/orgpolicy reads the
// files). A rule names a tool and, at most, one match:
//
//   - command: a program and its leading words ("git push"). Options and
//     their values are looked through with the classifier's option tables,
//     and every program the script runs is a part, wrappers and nested
//     scripts included: `git -C sub push --force`, `command git push`,
//     `bash -c 'git push'`, `sudo git push` are all git push.
//   - paths: globs of the files a call reads, writes or removes (glob.go).
//   - hosts: host patterns of the network destinations, browser origins
//     and hosts a command names.
//
// With no match, the rule is about the tool alone. A compiled RuleSet is
// immutable; matching does no I/O.

// Rule is one [[rule]], parsed.
type Rule struct {
	Tier Tier   `json:"tier"`
	File string `json:"file"`
	Line int    `json:"line"`
	// Tool names the tool ("shell.exec", "fs.write", "mcp-tool:srv/tool");
	// '*' matches any run of characters; "" is every tool.
	Tool     string        `json:"tool,omitempty"`
	Command  []string      `json:"command,omitempty"`
	Paths    []string      `json:"paths,omitempty"`
	Hosts    []HostPattern `json:"hosts,omitempty"`
	Decision Verdict       `json:"decision"`
	Why      string        `json:"why"`
	// Examples must match the rule and NotExamples must not: commands for
	// a command rule, paths relative to the workspace for a paths rule,
	// host[:port] for a hosts rule, tool names for a tool rule.
	Examples    []string `json:"examples,omitempty"`
	NotExamples []string `json:"not_examples,omitempty"`

	globs []glob
	tool  toolPattern
}

// toolPattern is a compiled tool name pattern: the literal parts between
// its '*'s.
type toolPattern struct {
	parts []string // len 1: an exact name
}

func compileTool(p string) toolPattern {
	if p == "" {
		return toolPattern{}
	}
	return toolPattern{parts: strings.Split(p, "*")}
}

// match reports whether the pattern covers name; the empty pattern covers
// every name. It allocates nothing.
func (t toolPattern) match(name string) bool {
	switch len(t.parts) {
	case 0:
		return true
	case 1:
		return t.parts[0] == name
	}
	if !strings.HasPrefix(name, t.parts[0]) {
		return false
	}
	name = name[len(t.parts[0]):]
	last := len(t.parts) - 1
	for _, p := range t.parts[1:last] {
		j := strings.Index(name, p)
		if j < 0 {
			return false
		}
		name = name[j+len(p):]
	}
	return strings.HasSuffix(name, t.parts[last])
}

// Where is the rule's file:line.
func (r *Rule) Where() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// Match describes what the rule matches, in words.
func (r *Rule) Match() string {
	var m string
	switch {
	case len(r.Command) > 0:
		m = "command `" + strings.Join(r.Command, " ") + "`"
	case len(r.Paths) > 0:
		m = "paths " + strings.Join(r.Paths, ", ")
	case len(r.Hosts) > 0:
		hs := make([]string, len(r.Hosts))
		for i, h := range r.Hosts {
			hs[i] = h.String()
		}
		m = "hosts " + strings.Join(hs, ", ")
	}
	if r.Tool != "" {
		if m == "" {
			return "tool " + r.Tool
		}
		return "tool " + r.Tool + ", " + m
	}
	return m
}

// exampleWorkspace is where a rule's examples pretend to run.
const exampleWorkspace = "/workspace"

// compile validates the rule and readies its globs.
func (r *Rule) compile() error {
	switch r.Decision {
	case VerdictAllow, VerdictAsk, VerdictDeny:
	default:
		return fmt.Errorf("decision %q is not allow, ask or deny", r.Decision)
	}
	switch r.Tier {
	case TierOrg, TierUser, TierWorkspace:
	default:
		return fmt.Errorf("tier %q is not org, user or workspace", r.Tier)
	}
	if strings.TrimSpace(r.Why) == "" {
		return errors.New(`"why" is empty: say why, the human and the model read it`)
	}
	n := 0
	for _, set := range []bool{len(r.Command) > 0, len(r.Paths) > 0, len(r.Hosts) > 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return errors.New("a rule has one match: command, paths or hosts")
	}
	if n == 0 && r.Tool == "" {
		return errors.New("a rule names a tool or a match (command, paths, hosts)")
	}
	if strings.ContainsAny(r.Tool, " \t\n") {
		return fmt.Errorf("tool %q has white space", r.Tool)
	}
	for i, w := range r.Command {
		switch {
		case w == "":
			return errors.New("command has an empty word")
		case strings.HasPrefix(w, "-"):
			return fmt.Errorf("command word %q is an option: a rule matches a program and its leading words, and options are looked through", w)
		case i == 0 && strings.Contains(w, "/"):
			return fmt.Errorf("command program %q is a path: name the program (%s)", w, w[strings.LastIndex(w, "/")+1:])
		case strings.ContainsAny(w, " \t\n"):
			return fmt.Errorf("command word %q has white space", w)
		}
	}
	r.tool = compileTool(r.Tool)
	r.globs = r.globs[:0]
	for _, p := range r.Paths {
		g, err := compileGlob(p)
		if err != nil {
			return err
		}
		r.globs = append(r.globs, g)
	}
	if len(r.Examples) == 0 {
		return errors.New("a rule carries at least one example that it must match")
	}
	return nil
}

// toolMatch matches a tool pattern ('*' is any run) against a name.
func toolMatch(pat, name string) bool { return compileTool(pat).match(name) }

// matchCommand reports whether the rule's command covers one program of a
// script. loose is for deny and ask: what is computed at run time (the
// program's name, a word, arguments from xargs) may be the rule's, so it
// matches; and where an option could have hidden an operand (a program
// without an option table, an unknown option), the rule's words need only
// appear in order. An allow rule covers only a program it can read: named
// as itself, with its leading words written out, and no variable set
// before it that changes what runs.
func (r *Rule) matchCommand(c *classifier.Command, loose bool) bool {
	if c.Program == "" {
		return loose
	}
	if c.Program != r.Command[0] || !loose && (c.Path || c.SetsEnv) {
		return false
	}
	want := r.Command[1:]
	if !loose {
		if len(c.Words) < len(want) || c.Sure < len(want) {
			return false
		}
		for i, w := range want {
			if c.Words[i].Dynamic || c.Words[i].Text != w {
				return false
			}
		}
		return true
	}
	// Words surely at their place match position by position (a word
	// computed at run time matches anything); past them the rule's words
	// need only appear in order.
	i := 0
	for ; i < len(want) && i < c.Sure; i++ {
		if i >= len(c.Words) {
			return c.Tail
		}
		if !c.Words[i].Dynamic && c.Words[i].Text != want[i] {
			return false
		}
	}
	for _, cw := range c.Words[min(i, len(c.Words)):] {
		if i == len(want) {
			break
		}
		if cw.Dynamic || cw.Text == want[i] {
			i++
		}
	}
	return i == len(want) || c.Tail
}

// matchPath reports whether a path glob of the rule covers p.
func (r *Rule) matchPath(p, ws string) bool {
	for _, g := range r.globs {
		if g.pathMatch(p, ws) {
			return true
		}
	}
	return false
}

// matchHost reports whether a host pattern covers host (canonical) and
// port (0: unknown). An unknown port matches a pattern with one
// only for deny and ask (loose): it may be that port.
func (r *Rule) matchHost(host string, port int, loose bool) bool {
	if host == "" {
		return false
	}
	for _, p := range r.Hosts {
		if p.Matches(host, port) || loose && port == 0 && (HostPattern{Host: p.Host}).Matches(host, 0) {
			return true
		}
	}
	return false
}

// transparent are wrappers that only run the command after them, which is
// a part of its own: an allow rule for that command covers them.
var transparent = map[string]bool{
	"command": true, "builtin": true, "exec": true, "nohup": true, "nice": true, "time": true,
	"timeout": true, "stdbuf": true, "ionice": true,
}
