// Package readme runs the commands of README.md, so a command a new user
// copies from it is one a test ran. Commands lines in ```sh blocks and the
// inline `code` spans that start like a command are extracted (Commands, a
// plain function tested on every `go test ./...`); the test itself, behind
// the `readme` build tag, runs each of them (`make readme-check`, part of
// `make test`).
package readme

import (
	"bufio"
	"regexp"
	"strings"
)

// Command is one command the README tells a reader to run.
type Command struct {
	Line int    // 1-based line of README.md
	Text string // as written, without a trailing `# comment`
	// Inline is set for a command in running text (`…`), not a code block.
	Inline bool
}

// commandStart is what makes an inline code span a command: it starts with
// a program a reader runs from the repository or the package, with an
// optional VAR=value prefix (`ANTHROPIC_API_KEY=sk-ant-… make run`).
// Programs the text only names as examples of what an agent runs (`npm
// install`, `git push --force`) are not instructions and do not count.
var commandStart = regexp.MustCompile(`^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:make|bin/warden|warden|xvfb-run|sudo)(?:\s|$)`)

var inlineCode = regexp.MustCompile("`([^`\n]+)`")

// Commands lists the commands of a README: every line of a ```sh (or
// ```bash, ```shell) block that is not blank or a comment, and every inline
// code span that starts like a command. Indented fences (inside a list item)
// count too.
func Commands(readme string) []Command {
	var out []Command
	sc := bufio.NewScanner(strings.NewReader(readme))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inBlock, shell := false, false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			if inBlock {
				inBlock = false
				continue
			}
			inBlock = true
			lang := strings.TrimSpace(strings.TrimPrefix(t, "```"))
			shell = lang == "sh" || lang == "bash" || lang == "shell" || lang == "console"
			continue
		}
		if inBlock {
			if !shell || t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			out = append(out, Command{Line: n, Text: stripComment(strings.TrimPrefix(t, "$ "))})
			continue
		}
		for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
			// A bare program name (`sudo`, `warden`) names a tool in running
			// text; an instruction has a subcommand or arguments.
			if c := strings.TrimSpace(m[1]); commandStart.MatchString(c) && strings.ContainsAny(c, " \t") {
				out = append(out, Command{Line: n, Text: c, Inline: true})
			}
		}
	}
	return out
}

// stripComment drops a trailing ` # comment` outside quotes.
func stripComment(s string) string {
	inS, inD := false, false
	for i, r := range s {
		switch {
		case r == '\'' && !inD:
			inS = !inS
		case r == '"' && !inS:
			inD = !inD
		case r == '#' && !inS && !inD && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}
