package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools/diff"
)

// Limits bound what a change set carries into the log. Undo never depends
// on them: it works from the two trees.
type Limits struct {
	Files     int   // files listed (default 1000); the rest are counted
	TextBytes int64 // a side larger than this gets no text diff (default 256 KiB)
	FileDiff  int   // bytes of diff kept per file (default 16 KiB)
	TotalDiff int   // bytes of diff kept per change set (default 256 KiB)
}

func (l Limits) withDefaults() Limits {
	if l.Files <= 0 {
		l.Files = 1000
	}
	if l.TextBytes <= 0 {
		l.TextBytes = 256 << 10
	}
	if l.FileDiff <= 0 {
		l.FileDiff = 16 << 10
	}
	if l.TotalDiff <= 0 {
		l.TotalDiff = 256 << 10
	}
	return l
}

// rawEntry is one line of `git diff-tree --raw`.
type rawEntry struct {
	oldMode, newMode string
	oldID, newID     string
	status           byte
	path             string
}

const zeroID = "0000000000000000000000000000000000000000"

func (e rawEntry) existedBefore() bool { return e.oldMode != "000000" }
func (e rawEntry) existsAfter() bool   { return e.newMode != "000000" }

// rawDiff lists the paths that differ between two trees.
func (r *Repo) rawDiff(ctx context.Context, from, to string) ([]rawEntry, error) {
	if from == to {
		return nil, nil
	}
	if raw, err := r.objects().looseDiff(from, to); err == nil {
		return raw, nil
	}
	out, err := r.run(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", "--full-index", from, to)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: compare snapshots: %w", err)
	}
	return parseRaw(out)
}

// parseRaw reads `git diff-tree -z --raw` output: ":om nm oid oid S\0path\0".
func parseRaw(out []byte) ([]rawEntry, error) {
	var list []rawEntry
	parts := bytes.Split(out, []byte{0})
	for i := 0; i < len(parts); i++ {
		head := string(parts[i])
		if head == "" {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(head, ":"))
		if !strings.HasPrefix(head, ":") || len(f) != 5 || len(f[4]) == 0 || i+1 >= len(parts) {
			return nil, fmt.Errorf("checkpoint: unreadable diff-tree line %q", head)
		}
		i++
		list = append(list, rawEntry{oldMode: f[0], newMode: f[1], oldID: f[2], newID: f[3], status: f[4][0], path: string(parts[i])})
	}
	return list, nil
}

// ChangedPaths lists the paths that differ between two trees.
func (r *Repo) ChangedPaths(ctx context.Context, from, to string) ([]string, error) {
	raw, err := r.rawDiff(ctx, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(raw))
	for i, e := range raw {
		out[i] = e.path
	}
	return out, nil
}

// ChangeSet is what changed between two trees, in the log's form.
type ChangeSet struct {
	Files     []store.FileChange
	Omitted   int // files beyond Limits.Files, counted only
	Destroyed []store.FileChange
}

// Diff computes the change set between two trees.
func (r *Repo) Diff(ctx context.Context, from, to string, lim Limits) (ChangeSet, error) {
	lim = lim.withDefaults()
	raw, err := r.rawDiff(ctx, from, to)
	if err != nil || len(raw) == 0 {
		return ChangeSet{}, err
	}
	var cs ChangeSet
	ids := map[string]bool{}
	for _, e := range raw {
		for _, id := range []string{e.oldID, e.newID} {
			if id != zeroID {
				ids[id] = true
			}
		}
	}
	// Every size, then the bodies of the listed files whose sides are
	// small enough to diff: from the loose objects, else one git process.
	listed := map[string]bool{}
	for i, e := range raw {
		if i >= lim.Files {
			break
		}
		listed[e.oldID], listed[e.newID] = true, true
	}
	want := func(id string, size int64) bool { return listed[id] && size <= lim.TextBytes }
	sizes, bodies, err := r.objects().looseBlobs(ctx, ids, want)
	if errors.Is(err, errNotLoose) {
		sizes, bodies, err = r.blobs(ctx, ids, want)
	}
	if err != nil {
		return cs, err
	}
	budget := lim.TotalDiff
	for i, e := range raw {
		fc := store.FileChange{Path: e.path}
		switch {
		case !e.existedBefore():
			fc.Change = store.ChangeCreated
		case !e.existsAfter():
			fc.Change = store.ChangeDeleted
		default:
			fc.Change = store.ChangeModified
		}
		if e.existedBefore() {
			fc.OldMode, fc.OldHash, fc.OldSize = e.oldMode, e.oldID, sizes[e.oldID]
		}
		if e.existsAfter() {
			fc.Mode, fc.Hash, fc.Size = e.newMode, e.newID, sizes[e.newID]
		}
		if destroyed(fc) {
			cs.Destroyed = append(cs.Destroyed, fc)
		}
		if i >= lim.Files {
			cs.Omitted++
			continue
		}
		textDiff(&fc, e, bodies, &budget, lim)
		cs.Files = append(cs.Files, fc)
	}
	return cs, nil
}

// destroyed: a tracked file deleted, or cut to less than half its size.
func destroyed(fc store.FileChange) bool {
	switch fc.Change {
	case store.ChangeDeleted:
		return true
	case store.ChangeModified:
		return fc.OldSize > 0 && fc.Size*2 < fc.OldSize
	}
	return false
}

func isGitlink(mode string) bool { return mode == "160000" }
func isSymlink(mode string) bool { return mode == "120000" }

func textDiff(fc *store.FileChange, e rawEntry, bodies map[string][]byte, budget *int, lim Limits) {
	side := func(exists bool, mode, id string) ([]byte, bool) {
		if !exists {
			return nil, true
		}
		if isGitlink(mode) {
			return nil, false
		}
		b, ok := bodies[id]
		return b, ok
	}
	a, okA := side(e.existedBefore(), e.oldMode, e.oldID)
	b, okB := side(e.existsAfter(), e.newMode, e.newID)
	if !okA || !okB {
		fc.DiffOmitted = "too large for a text diff"
		return
	}
	if bytes.IndexByte(head(a), 0) >= 0 || bytes.IndexByte(head(b), 0) >= 0 {
		fc.Binary = true
		return
	}
	var d string
	switch {
	case a == nil:
		fc.Added = lines(b)
		d = diff.Unified("/dev/null", "b/"+e.path, "", string(b))
	case b == nil:
		fc.Removed = lines(a)
		d = diff.Unified("a/"+e.path, "/dev/null", string(a), "")
	default:
		d = diff.Unified("a/"+e.path, "b/"+e.path, string(a), string(b))
		fc.Added, fc.Removed = countLines(d)
	}
	if len(d) > lim.FileDiff {
		d, fc.DiffOmitted = cutLines(d, lim.FileDiff), "diff cut to "+strconv.Itoa(lim.FileDiff)+" bytes"
	}
	if len(d) > *budget {
		fc.DiffOmitted = "the change set's diff budget is spent"
		return
	}
	*budget -= len(d)
	fc.Diff = d
}

func head(b []byte) []byte {
	if len(b) > 8000 {
		return b[:8000]
	}
	return b
}

func lines(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// countLines counts a unified diff's added and removed lines.
func countLines(d string) (add, del int) {
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}

func cutLines(d string, n int) string {
	if len(d) <= n {
		return d
	}
	d = d[:n]
	if i := strings.LastIndexByte(d, '\n'); i > 0 {
		d = d[:i+1]
	}
	return d
}

// blobs reads, through one `git cat-file --batch-command`, the size of
// every blob in ids and the contents of those want accepts. A goroutine
// feeds git while this one reads, so neither side waits on a full pipe.
func (r *Repo) blobs(ctx context.Context, ids map[string]bool, want func(id string, size int64) bool) (map[string]int64, map[string][]byte, error) {
	sizes, bodies := map[string]int64{}, map[string][]byte{}
	if len(ids) == 0 {
		return sizes, bodies, nil
	}
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	sort.Strings(list)
	cmd := exec.CommandContext(ctx, r.git, "-c", "core.hooksPath=/dev/null", "cat-file", "--batch-command")
	cmd.Env, cmd.Dir = r.env(), r.work
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	second := make(chan []string, 1)
	go func() {
		defer stdin.Close()
		w := bufio.NewWriter(stdin)
		for _, id := range list {
			fmt.Fprintf(w, "info %s\n", id)
		}
		if w.Flush() != nil {
			return
		}
		for _, id := range <-second {
			fmt.Fprintf(w, "contents %s\n", id)
		}
		_ = w.Flush()
	}()
	br := bufio.NewReaderSize(stdout, 64<<10)
	fail := func(err error) (map[string]int64, map[string][]byte, error) {
		select {
		case second <- nil:
		default:
		}
		_, _ = io.Copy(io.Discard, br)
		_ = cmd.Wait()
		return nil, nil, fmt.Errorf("checkpoint: read the snapshot's files: %w (%s)", err, strings.TrimSpace(errb.String()))
	}
	var fetch []string
	for range list {
		hdr, err := br.ReadString('\n')
		if err != nil {
			return fail(err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 {
			continue // "<id> missing"
		}
		n, _ := strconv.ParseInt(f[2], 10, 64)
		sizes[f[0]] = n
		if want(f[0], n) {
			fetch = append(fetch, f[0])
		}
	}
	second <- fetch
	for range fetch {
		hdr, err := br.ReadString('\n')
		if err != nil {
			return fail(err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 {
			continue
		}
		n, _ := strconv.ParseInt(f[2], 10, 64)
		body := make([]byte, n+1) // the content and its trailing newline
		if _, err := io.ReadFull(br, body); err != nil {
			return fail(err)
		}
		bodies[f[0]] = body[:n]
	}
	_, _ = io.Copy(io.Discard, br)
	if err := cmd.Wait(); err != nil {
		return nil, nil, &GitError{Args: []string{"cat-file"}, Stderr: errb.String(), Err: err}
	}
	return sizes, bodies, nil
}

// Skipped lists the excluded folders present at the workspace root, so a
// change set can say what it does not cover.
func (r *Repo) Skipped() []string {
	var out []string
	for _, ex := range r.excludes {
		name := strings.Trim(ex, "/")
		if name == "" || strings.ContainsAny(name, "*?[/") {
			continue
		}
		if st, err := os.Lstat(filepath.Join(r.work, name)); err == nil && st.IsDir() {
			out = append(out, name+"/")
		}
	}
	return out
}
