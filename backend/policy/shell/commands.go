package shell

import (
	"path/filepath"
	"strings"
)

// Commands: what a script runs, program by program, for rules that match a
// program and its leading words (backend/policy rules.go). The list comes
// from the same walk as the classification, so every spelling the
// classifier looks through is seen here too: wrappers (command, env, sudo,
// nice, timeout, xargs, find -exec...), bash -c/sh -c/eval scripts,
// substitutions, absolute paths of system programs, quoted or escaped
// names.

// Word is one operand of a command as written; Dynamic marks a word
// computed at run time (a variable, a substitution, a glob), whose Text is
// then only its static spelling.
type Word struct {
	Text    string
	Dynamic bool
}

// Command is one program the script runs.
type Command struct {
	// Program is the program's name (/usr/bin/git is git); "" when the
	// name is computed at run time.
	Program string
	// Path is set when the program was named by a path outside the
	// system program directories (./git): a file of the workspace, not
	// the program of that name.
	Path bool
	// Words are the operands in order, options and their values left out
	// through the program's option tables (git -C x push: push), following
	// subcommand tables (git push's own options).
	Words []Word
	// Options counts the option words.
	Options int
	// Sure is how many leading Words are surely at their place: an
	// unknown option (or a program without an option table) may take the
	// next word as its value and shift the operands after it, and a word
	// computed at run time may be several. All of them when every option
	// was resolved through a table.
	Sure int
	// Tail says more arguments arrive at run time (xargs, find -exec).
	Tail bool
	// SetsEnv says the script has by then set a variable that can change
	// what a program runs (PATH, LD_PRELOAD, GIT_*...: VAR=x cmd, export,
	// env VAR=x).
	SetsEnv bool
}

// ClassifyCommands is Classify that also lists every program the script
// runs, in the order the walk meets them: a wrapper comes before the
// command it runs.
// links are the symbolic links on disk, as for ClassifyWith.
func ClassifyCommands(command, cwd string, links map[string]string) (Classification, []Command) {
	var cmds []Command
	w := &walker{diskLinks: links, cmds: &cmds}
	c := classifyInto(w, command, cwd)
	return c, cmds
}

// recordCommand records one program about to run (walker.invoke).
func (w *walker) recordCommand(args []arg, tail bool) {
	if w.cmds == nil || len(args) == 0 {
		return
	}
	c := Command{Tail: tail, SetsEnv: w.envSet}
	p := args[0]
	switch {
	case !p.static || p.glob || p.val == "":
	case strings.Contains(p.val, "/"):
		clean := filepath.Clean(p.val)
		c.Program = filepath.Base(clean)
		c.Path = !filepath.IsAbs(clean) || !systemBin[filepath.Dir(clean)]
	default:
		c.Program = p.val
	}
	c.Words, c.Options, c.Sure = operands(c.Program, args[1:])
	*w.cmds = append(*w.cmds, c)
}

// operands splits a program's arguments into its operands, through the
// program's option table and then its subcommand's (git, then git push);
// a program without a table has its dash words taken for options, and its
// first operand may name a subcommand table (npm test, go build). sure is
// how many leading words are surely at their place: before the first word
// an unknown option (or a program without a table) could have shifted.
func operands(program string, args []arg) (words []Word, options, sure int) {
	sure = -1
	unsure := func() {
		if sure < 0 {
			sure = len(words)
		}
	}
	table, subDone := tableFor(program), false
walk:
	for len(args) > 0 {
		if table == nil {
			// Without a table a dash word may take the next word as its
			// value: words after the first option are unsure.
			i := 0
			for ; i < len(args); i++ {
				a := args[i]
				if a.static && !a.glob && a.val == "--" {
					for _, b := range args[i+1:] {
						words = append(words, wordOf(b))
					}
					break walk
				}
				if !a.static || a.glob || strings.HasPrefix(a.val, "-") && a.val != "-" {
					unsure()
				}
				if a.static && !a.glob && strings.HasPrefix(a.val, "-") && a.val != "-" {
					options++
					continue
				}
				words = append(words, wordOf(a))
				if !subDone && len(words) == 1 && a.static && !a.glob {
					subDone = true
					if t := tableFor(program + " " + a.val); t != nil {
						table = t
						break
					}
				}
			}
			if table == nil || i >= len(args) {
				break walk
			}
			args = args[i+1:]
			continue
		}
		opts, ops, bad := table.parse(args)
		options += len(opts)
		if bad != "" {
			unsure()
		}
		if !table.stop || len(ops) == 0 {
			for _, a := range ops {
				words = append(words, wordOf(a))
			}
			break
		}
		// Options ended at the first operand; the words after it are
		// its own (a subcommand and its options).
		first := ops[0]
		words = append(words, wordOf(first))
		args, table = ops[1:], nil
		if !subDone && first.static && !first.glob {
			table = tableFor(program + " " + first.val)
		}
		subDone = true
	}
	if sure < 0 {
		sure = len(words)
	}
	for i, w := range words {
		if w.Dynamic && i+1 < sure {
			// A word computed at run time may be options that shift
			// the rest.
			sure = i + 1
		}
	}
	return words, options, sure
}

func wordOf(a arg) Word { return Word{Text: a.val, Dynamic: !a.static || a.glob} }
