package readers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// Git's discovery rules, as setup.c applies them: from the folder a git
// command runs in, each folder up to the root is asked, in order, whether
// it holds a .git (a folder git takes for a gitdir, or a file saying
// "gitdir: <path>"), and then whether it is a gitdir itself (a bare
// repository: no name needed). So any folder holding a valid HEAD, objects/
// and refs/ is a repository to git, and so is the workspace root itself.

// IsGitDir reports whether git would take dir for a gitdir
// (is_git_directory): a HEAD that names a ref under refs/ or holds an
// object id, and objects/ and refs/ folders in dir, or in the common
// folder its commondir file names (a linked worktree's gitdir).
func IsGitDir(dir string) bool {
	if !validHead(filepath.Join(dir, "HEAD")) {
		return false
	}
	common := dir
	if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimRight(string(b), "\r\n")
		if c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(dir, c)
			}
			common = c
		}
	}
	return isDir(filepath.Join(common, "objects")) && isDir(filepath.Join(common, "refs"))
}

// LooksLikeGitDir is IsGitDir's cheap first test on a folder's listing:
// it names a HEAD, and objects and refs folders or a commondir file.
func LooksLikeGitDir(ents []os.DirEntry) bool {
	var head, objects, refs, common bool
	for _, e := range ents {
		// A link may lead to a folder: only IsGitDir can tell.
		dirish := e.IsDir() || e.Type()&os.ModeSymlink != 0
		switch e.Name() {
		case "HEAD":
			head = true
		case "objects":
			objects = dirish
		case "refs":
			refs = dirish
		case "commondir":
			common = true
		}
	}
	return head && (objects && refs || common)
}

// validHead is validate_headref: a symlink into refs/, "ref: refs/…", or
// an object id.
func validHead(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		t, err := os.Readlink(p)
		return err == nil && strings.HasPrefix(t, "refs/")
	}
	if !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	b := buf[:n]
	if rest, ok := bytes.CutPrefix(b, []byte("ref:")); ok {
		return bytes.HasPrefix(bytes.TrimLeft(rest, " \t"), []byte("refs/"))
	}
	return isHexID(b)
}

// isHexID: an object id at the start of b. Like git's get_oid_hex_any,
// only the first 40 (SHA-1) or 64 (SHA-256) characters are read: what
// follows them does not matter.
func isHexID(b []byte) bool {
	n := 0
	for n < len(b) && n < 40 && (b[n] >= '0' && b[n] <= '9' || b[n] >= 'a' && b[n] <= 'f' || b[n] >= 'A' && b[n] <= 'F') {
		n++
	}
	return n == 40
}

// GitFileTarget reads a .git file: the gitdir it points at, resolved
// against the file's folder, and whether it is one ("gitdir: <path>").
func GitFileTarget(p string) (string, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 64<<10 {
		return "", false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir:")
	if !ok {
		return "", false
	}
	t := strings.TrimSpace(rest)
	if t == "" {
		return "", false
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(p), t)
	}
	return filepath.Clean(t), true
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// DiscoverUp lists the gitdirs git would find from dir, going up as git
// does: for each folder from dir to the root, its .git (folder or file)
// and the folder itself as a bare repository. The first one is the one git
// uses; the rest are where it would look were that one gone. Each comes
// with the folder it was found in (the worktree top for a .git).
func DiscoverUp(dir string) []Repo {
	var out []Repo
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dot); err == nil {
			switch {
			case fi.IsDir() && IsGitDir(dot):
				out = append(out, Repo{Gitdir: dot, Worktree: d})
			case fi.Mode().IsRegular():
				if t, ok := GitFileTarget(dot); ok && IsGitDir(t) {
					out = append(out, Repo{Gitdir: t, Worktree: d, Via: dot})
				}
			}
		}
		if IsGitDir(d) {
			out = append(out, Repo{Gitdir: d})
		}
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// Repo is one repository git may use: its gitdir, the top of its worktree
// ("" for a bare one; relative hook paths and commands then start in the
// gitdir), and the .git file that pointed at it, if any.
type Repo struct {
	Gitdir   string
	Worktree string
	Via      string
}
