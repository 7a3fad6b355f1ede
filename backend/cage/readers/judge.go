package readers

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// Judging what a call newly made. A repository that did not exist before
// the call cannot be known at set-up; after the call, a folder that git's
// discovery rules now take for a gitdir (IsGitDir) is judged here: git
// init and git clone make ones that run nothing (sample hooks, a config
// with only the keys they write), so those stay; one whose config names
// anything else, whose hooks folder holds a real hook, or that points git
// at another gitdir (commondir) is reverted by the caller. The same goes
// for sequencer state a call left behind: a todo list with an exec line
// runs its command at the user's next `git rebase --continue`.

// NewGitdirDanger says why git, run later outside the cage, would run
// something from dir, a gitdir a call made; "" when nothing.
func (g *Git) NewGitdirDanger(dir string) string {
	for _, name := range []string{"commondir", "gitdir"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return name + " points git at another repository's configuration and hooks"
		}
	}
	if why := g.configDanger(filepath.Join(dir, "config")); why != "" {
		return why
	}
	if why := g.configDanger(filepath.Join(dir, "config.worktree")); why != "" {
		return why
	}
	if why := hooksDanger(filepath.Join(dir, "hooks")); why != "" {
		return why
	}
	return ""
}

// configDanger: a config file holding a key git init and clone do not
// write (every such key is something a later git might act on), or one
// that is not a plain file git can read.
func (g *Git) configDanger(p string) string {
	fi, err := os.Lstat(p)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil || !fi.Mode().IsRegular() {
		return "its config is not a plain file"
	}
	entries, err := g.parse(p)
	if err != nil {
		return "its config cannot be read by git"
	}
	var bad []string
	for _, e := range entries {
		if !policy.GitInitConfigKey(e.key) {
			bad = append(bad, e.key)
		}
	}
	if len(bad) > 0 {
		return "its config sets " + strings.Join(bad, ", ")
	}
	return ""
}

// hooksDanger: anything in a hooks folder but git's sample hooks.
func hooksDanger(dir string) string {
	fi, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil || !fi.IsDir() {
		return "its hooks folder is not a folder"
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "its hooks folder cannot be read"
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".sample") {
			return "it holds the hook " + e.Name()
		}
	}
	return ""
}

// SequencerDirs are the folders in a gitdir holding an operation in
// progress; git acts on them at --continue.
var SequencerDirs = []string{"rebase-merge", "rebase-apply", "sequencer"}

// SequencerDanger says why the sequencer state in gitdir would run a
// command at the user's next --continue: an exec line in a todo list.
func SequencerDanger(gitdir string) string {
	for _, f := range []string{"rebase-merge/git-rebase-todo", "rebase-merge/git-rebase-todo.backup", "sequencer/todo", "rebase-apply/git-rebase-todo"} {
		p := filepath.Join(gitdir, f)
		fi, err := os.Lstat(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil || !fi.Mode().IsRegular() {
			return f + " is not a plain file"
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return f + " cannot be read"
		}
		if line, ok := execLine(b); ok {
			return fmt.Sprintf("%s runs a command at --continue: %q", f, line)
		}
	}
	return ""
}

// execLine finds a todo line that runs a command (exec, x) — however it
// is spelt and indented.
func execLine(b []byte) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, _, _ := strings.Cut(strings.ReplaceAll(line, "\t", " "), " ")
		switch strings.ToLower(word) {
		case "exec", "x":
			return line, true
		}
	}
	return "", false
}
