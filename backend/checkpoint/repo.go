package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// DefaultExcludes are Warden's own excludes, added to the workspace's
// .gitignore files: folders that are large and regenerable. Anchored names
// (leading /) only count at the workspace root, where build output lives;
// the others count at any depth.
var DefaultExcludes = []string{
	"node_modules/", ".venv/", "__pycache__/", ".pytest_cache/", ".mypy_cache/", ".tox/",
	".gradle/", ".next/", ".nuxt/", ".cache/", ".terraform/",
	"/target/", "/dist/", "/build/", "/out/",
}

// emptyTree is git's id of the empty tree (sha1 object format).
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbd2fb9d"

// Repo is the shadow repository of one workspace. Its methods serialise on
// an in-process lock; across processes git's own index.lock serialises
// them, and a snapshot retries briefly when another process holds it.
type Repo struct {
	dir      string // the shadow folder: git/, last
	gitDir   string
	work     string
	excludes []string
	git      string
	mu       sync.Mutex

	hold     *incHold // the watcher and mirror
	mode     Mode     // how the last snapshot was taken
	noWatch  string   // why the watcher is never set up again ("" it may be)
	nestedAt int      // the scan that last met a nested repository
}

// RootFor is where the shadow repositories of a store at dbPath live: a
// checkpoints folder beside the database, or, when that would be inside
// the workspace, the user's cache folder — a checkpoint never lands in the
// workspace it protects.
func RootFor(dbPath, workspace string) string {
	root := filepath.Join(filepath.Dir(dbPath), "checkpoints")
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if workspace != "" && within(root, workspace) {
		if c, err := os.UserCacheDir(); err == nil {
			return filepath.Join(c, "warden", "checkpoints")
		}
		return filepath.Join(os.TempDir(), "warden-checkpoints")
	}
	return root
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Open opens (creating when needed) the shadow repository of workspace
// under root. excludes nil means DefaultExcludes. A repository git cannot
// use is moved aside (<dir>.damaged-<time>) and a fresh one created, so a
// damaged store costs its history, never the next call's checkpoint.
func Open(ctx context.Context, root, workspace string, excludes []string) (*Repo, error) {
	work, err := filepath.Abs(workspace)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(work); err == nil {
		work = real
	}
	if st, err := os.Stat(work); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("checkpoint: workspace %s is not a folder", work)
	}
	if within(root, work) {
		return nil, fmt.Errorf("checkpoint: the snapshot store %s is inside the workspace %s", root, work)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("checkpoint: git is not installed: %w", err)
	}
	if excludes == nil {
		excludes = DefaultExcludes
	}
	sum := sha256.Sum256([]byte(work))
	dir := filepath.Join(root, hex.EncodeToString(sum[:8]))
	r := &Repo{dir: dir, gitDir: filepath.Join(dir, "git"), work: work, excludes: excludes, git: git}
	if err := r.ensure(ctx); err != nil {
		return nil, err
	}
	// A Repo nobody closes must not keep its inotify instance (a user has
	// 128 of them by default).
	r.hold = &incHold{}
	runtime.AddCleanup(r, func(h *incHold) { h.inc.close() }, r.hold)
	return r, nil
}

// Workspace is the folder the repository tracks.
func (r *Repo) Workspace() string { return r.work }

// Dir is the shadow folder.
func (r *Repo) Dir() string { return r.dir }

// ensure creates the repository, or recreates one git cannot open.
func (r *Repo) ensure(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(r.gitDir, "HEAD")); err == nil {
		if isGitDir(r.gitDir) {
			_, err := r.writeInfo()
			return err
		}
		aside := fmt.Sprintf("%s.damaged-%s", r.dir, time.Now().UTC().Format("20060102T150405.000"))
		if err := os.Rename(r.dir, aside); err != nil {
			return fmt.Errorf("checkpoint: the snapshot store %s is damaged and cannot be moved aside: %w", r.dir, err)
		}
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint: create the snapshot store %s: %w", r.dir, err)
	}
	// --template= : no sample hooks, no description, nothing to run.
	if _, err := r.run(ctx, nil, "init", "-q", "--template="); err != nil {
		return fmt.Errorf("checkpoint: create the snapshot store %s: %w", r.dir, err)
	}
	_, err := r.writeInfo()
	return err
}

// shadowConfig is the whole configuration of a shadow repository. It is
// rewritten before every snapshot, so an edit to it (by a tool, if the store
// lies somewhere the policy does not protect) cannot turn on an fsmonitor
// command, a filter or a conversion.
const shadowConfig = `[core]
	repositoryformatversion = 0
	bare = false
	symlinks = true
	fileMode = true
	autocrlf = false
	safecrlf = false
	untrackedCache = true
	preloadIndex = true
	quotePath = false
	logAllRefUpdates = false
	hooksPath = /dev/null
	fsmonitor = false
[index]
	version = 4
[gc]
	auto = 0
	pruneExpire = never
[advice]
	addEmbeddedRepo = false
	addIgnoredFile = false
`

// writeInfo writes the configuration, Warden's excludes and the attributes
// that keep every path byte-exact, where they differ from what they must be.
func (r *Repo) writeInfo() (changed bool, err error) {
	info := filepath.Join(r.gitDir, "info")
	if err := os.MkdirAll(info, 0o700); err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	want := map[string]string{
		"info/exclude":    "# Warden's own excludes (the workspace's .gitignore files apply too)\n" + strings.Join(r.excludes, "\n") + "\n",
		"info/attributes": "* -text !eol -filter -ident -working-tree-encoding\n",
		"config":          shadowConfig,
	}
	for name, text := range want {
		p := filepath.Join(r.gitDir, name)
		if old, err := os.ReadFile(p); err == nil && string(old) == text {
			continue
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			return true, fmt.Errorf("checkpoint: %w", err)
		}
		changed = true
	}
	return changed, nil
}

// env is the whole environment of a git run: nothing of the caller's.
func (r *Repo) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.dir,
		"XDG_CONFIG_HOME=" + r.dir,
		"GIT_DIR=" + r.gitDir,
		"GIT_WORK_TREE=" + r.work,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		// `add -A` runs `git status` inside a nested repository to see if
		// it is dirty; without this that status refreshes and rewrites
		// the user's nested .git/index on every scan (a write into their
		// repository, and a change that spoils the stat record).
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_AUTHOR_NAME=warden", "GIT_AUTHOR_EMAIL=warden@localhost",
		"GIT_COMMITTER_NAME=warden", "GIT_COMMITTER_EMAIL=warden@localhost",
		"LC_ALL=C",
	}
}

// GitError is a git run that failed, with what git said.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", e.Args[0], msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// run runs git in the shadow repository. The -c flags repeat what must hold
// even if the shadow config were edited.
func (r *Repo) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.runEnv(ctx, r.env(), stdin, args...)
}

func (r *Repo) runEnv(ctx context.Context, env []string, stdin []byte, args ...string) ([]byte, error) {
	full := append([]string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
		"-c", "protocol.allow=never", "-c", "core.sshCommand=false"}, args...)
	cmd := exec.CommandContext(ctx, r.git, full...)
	cmd.Env = env
	cmd.Dir = r.work
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), &GitError{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.Bytes(), nil
}

// Snapshot records the workspace as it is now and returns the tree id.
func (r *Repo) Snapshot(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshot(ctx)
}

func (r *Repo) snapshot(ctx context.Context) (string, error) {
	if _, err := os.Stat(filepath.Join(r.gitDir, "HEAD")); err != nil {
		r.dropIncremental("the snapshot store was gone", false)
		if err := r.ensure(ctx); err != nil {
			return "", err
		}
	} else if changed, err := r.writeInfo(); err != nil {
		return "", err
	} else if changed {
		r.dropIncremental("the shadow configuration or excludes changed", false)
	}
	why := r.mode.Why
	if r.mode.Scans == 0 {
		why = "the first snapshot"
	}
	if r.hold.inc != nil {
		tree, err := r.incremental(ctx)
		if err == nil {
			r.mode = Mode{Incremental: true, Scans: r.mode.Scans, Increments: r.mode.Increments + 1}
			return tree, nil
		}
		why = err.Error()
		var se *scanError
		if errors.As(err, &se) && se.permanent {
			r.noWatch = se.why
		}
		if errors.As(err, &se) && se.nested {
			r.nestedAt = r.mode.Scans + 1
		}
	}
	if r.wantWatch() {
		return r.fullScan(ctx, why)
	}
	// A scan that sets no watcher up (a fresh process's first snapshot, a
	// one-shot process): an unchanged workspace is answered from the stat
	// record of the last full scan, with no git process (statcache.go).
	tree, entries, racy, same := r.unchangedTree()
	if same {
		r.mode = Mode{Why: "unchanged since the last full scan (stat data)", Scans: r.mode.Scans + 1, Increments: r.mode.Increments}
		return tree, nil
	}
	tree, err := r.fullScan(ctx, why)
	if err == nil {
		r.keepRecord(tree, entries, racy)
	}
	return tree, err
}

// gitScan is `git add -A && git write-tree` against the shadow index.
func (r *Repo) gitScan(ctx context.Context) (string, error) {
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		if _, err = r.run(ctx, nil, "add", "-A", "--ignore-errors"); err == nil {
			var out []byte
			if out, err = r.run(ctx, nil, "write-tree"); err == nil {
				return strings.TrimSpace(string(out)), nil
			}
		}
		var ge *GitError
		if !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "index.lock") {
			break
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
	r.dropTemp()
	return "", fmt.Errorf("checkpoint: snapshot of %s: %w", r.work, err)
}

// dropTemp removes the half-written objects a failed git run leaves (on a
// full disk they would keep it full and fail every later snapshot).
func (r *Repo) dropTemp() {
	for _, pat := range []string{"objects/*/tmp_obj_*", "objects/pack/tmp_*", "objects/incoming-*"} {
		ms, _ := filepath.Glob(filepath.Join(r.gitDir, pat))
		for _, m := range ms {
			_ = os.RemoveAll(m)
		}
	}
}

// HasTree reports whether the store still holds every tree of ids.
func (r *Repo) HasTree(ctx context.Context, ids ...string) bool {
	var in strings.Builder
	n := 0
	for _, id := range ids {
		if id == "" {
			return false
		}
		if id != emptyTree {
			in.WriteString(id + "\n")
			n++
		}
	}
	if n == 0 {
		return true
	}
	out, err := r.run(ctx, []byte(in.String()), "cat-file", "--batch-check=%(objecttype)")
	return err == nil && strings.Count(string(out), "tree\n") == n
}

// lastFile remembers the tree the last recorded call left, so a change made
// between calls (a monitor, a human) is seen at the next call.
func (r *Repo) lastFile() string { return filepath.Join(r.dir, "last") }

// Last is the tree the last recorded snapshot saw, or "".
func (r *Repo) Last() string {
	b, err := os.ReadFile(r.lastFile())
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// SetLast records tree as the last one seen.
func (r *Repo) SetLast(tree string) error {
	return os.WriteFile(r.lastFile(), []byte(tree+"\n"), 0o600)
}

// Lock holds the repository for a sequence of steps (check, restore,
// snapshot) that must not interleave with a call's snapshot.
func (r *Repo) Lock() func() {
	r.mu.Lock()
	return r.mu.Unlock
}

// SnapshotLocked is Snapshot for a caller that holds Lock.
func (r *Repo) SnapshotLocked(ctx context.Context) (string, error) { return r.snapshot(ctx) }

// isGitDir is git's own test of a repository folder (setup.c's
// is_git_directory), done here without starting git — the open of every
// fresh process would otherwise cost a `git rev-parse`: objects/ and refs/
// are folders, and HEAD is a symbolic ref into refs/ or an object id. What
// this passes and git still refuses fails the snapshot, which says so in
// the change set.
func isGitDir(dir string) bool {
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	head, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	if err != nil {
		return false
	}
	h := strings.TrimRight(string(head), "\n")
	if ref, ok := strings.CutPrefix(h, "ref:"); ok {
		return strings.HasPrefix(strings.TrimLeft(ref, " \t"), "refs/")
	}
	if len(h) != 40 && len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}
