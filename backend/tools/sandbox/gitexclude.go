package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// gitExcludeInCage is where the cage sees the exclude file made for a run.
const gitExcludeInCage = "/run/warden/git-exclude"

// hidePlaceholdersFromGit keeps the empty placeholders bound over missing
// protected paths out of git's view inside the cage: without it `git status`
// lists them as untracked and `git add -A && git commit` commits empty
// .bashrc, .envrc... files that vanish again when the run ends. It points
// core.excludesFile (through GIT_CONFIG_* variables, which outrank config
// files) at a file listing each placeholder relative to its repository, plus
// the user's own global ignore file, which the override would otherwise hide.
func (c *Cage) hidePlaceholdersFromGit(p *Prepared) ([]string, error) {
	var lines []string
	for _, m := range p.mount {
		root := gitRoot(m.Path)
		if root == "" {
			continue
		}
		rel, err := filepath.Rel(root, m.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		lines = append(lines, "/"+filepath.ToSlash(rel))
	}
	if len(lines) == 0 {
		return nil, nil
	}
	if user, err := os.ReadFile(userGitIgnore()); err == nil {
		lines = append([]string{strings.TrimRight(string(user), "\n")}, lines...)
	}
	c.mu.Lock()
	dir := c.phDir
	c.mu.Unlock()
	f, err := os.CreateTemp(dir, "git-exclude-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: git exclude: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		return nil, fmt.Errorf("sandbox: git exclude: %w", err)
	}
	p.temp = append(p.temp, f.Name())
	p.env = map[string]string{
		"GIT_CONFIG_COUNT":   "1",
		"GIT_CONFIG_KEY_0":   "core.excludesFile",
		"GIT_CONFIG_VALUE_0": gitExcludeInCage,
	}
	return []string{"--ro-bind", f.Name(), gitExcludeInCage}, nil
}

// gitRoot is the nearest folder above path holding .git (a folder, or a file
// in a worktree), or "".
func gitRoot(path string) string {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// userGitIgnore is git's default global ignore file.
func userGitIgnore() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "git", "ignore")
}
