package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RestoreLocked makes the workspace, whose current snapshot is from, match
// tree to on every path that differs between them and that keep accepts
// (nil: all). It returns the paths it wrote or removed. The caller holds
// Lock and snapshots afterwards.
func (r *Repo) RestoreLocked(ctx context.Context, from, to string, keep func(path string) bool) ([]string, error) {
	if !r.HasTree(ctx, to) {
		return nil, fmt.Errorf("checkpoint: the snapshot %s is gone from the store %s (deleted or damaged); nothing was restored", short(to), r.dir)
	}
	raw, err := r.rawDiff(ctx, from, to)
	if err != nil {
		return nil, err
	}
	var remove, write []string
	for _, e := range raw {
		if keep != nil && !keep(e.path) {
			continue
		}
		switch {
		case !e.existsAfter():
			remove = append(remove, e.path)
		case isGitlink(e.newMode):
			// A nested repository: its files are not in the snapshot.
		default:
			if e.existedBefore() && isGitlink(e.oldMode) {
				continue
			}
			write = append(write, e.path)
		}
	}
	var done []string
	// Removals first: a file may have to give way to a folder, or the
	// other way round.
	for _, p := range remove {
		if err := r.removeFile(p); err != nil {
			return done, err
		}
		done = append(done, p)
	}
	for _, p := range write {
		// A file in the way of a folder to restore (or a folder in the way
		// of a file) must go; the snapshot says what belongs there.
		if err := r.clearWay(p); err != nil {
			return done, err
		}
	}
	if len(write) > 0 {
		var in bytes.Buffer
		for _, p := range write {
			in.WriteString(p)
			in.WriteByte(0)
		}
		if _, err := r.run(ctx, in.Bytes(), "checkout", "--no-overlay", to, "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return done, fmt.Errorf("checkpoint: restore %d files: %w", len(write), err)
		}
		done = append(done, write...)
	}
	return done, nil
}

// removeFile deletes one path of the workspace without following a
// symlink anywhere on the way, and prunes the folders it leaves empty.
func (r *Repo) removeFile(rel string) error {
	p, err := r.inside(rel)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checkpoint: remove %s: %w", rel, err)
	}
	r.pruneEmpty(filepath.Dir(p))
	return nil
}

// clearWay refuses a file or symlink where rel's parents must be folders,
// and removes an empty folder where rel must be a file.
func (r *Repo) clearWay(rel string) error {
	parts := strings.Split(rel, "/")
	cur := r.work
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("checkpoint: %s: %w", rel, err)
		}
		last := i == len(parts)-1
		switch {
		case !last && !st.IsDir():
			// A file or symlink where a folder must be, that the undo did
			// not put there: writing through a symlink could land outside
			// the workspace, and removing it would lose what someone made.
			rel, _ := filepath.Rel(r.work, cur)
			return fmt.Errorf("checkpoint: %s is not a folder now (a file or a symlink made after the call); move it away and undo again", filepath.ToSlash(rel))
		case last && st.IsDir():
			if err := os.Remove(cur); err != nil {
				return fmt.Errorf("checkpoint: %s is a folder that is not empty now; move it away and undo again: %w", rel, err)
			}
		}
	}
	return nil
}

// inside resolves rel under the workspace and refuses a path whose folders
// are not real folders of the workspace (a symlink out of it).
func (r *Repo) inside(rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.Contains("/"+rel+"/", "/../") {
		return "", fmt.Errorf("checkpoint: refusing the path %q", rel)
	}
	parts := strings.Split(rel, "/")
	cur := r.work
	for _, part := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if err != nil {
			return filepath.Join(r.work, filepath.FromSlash(rel)), nil // nothing there to remove
		}
		if !st.IsDir() {
			return "", fmt.Errorf("checkpoint: %s: %s is not a folder now (a symlink?); not removing through it", rel, cur)
		}
	}
	return filepath.Join(r.work, filepath.FromSlash(rel)), nil
}

func (r *Repo) pruneEmpty(dir string) {
	for within(dir, r.work) && dir != r.work {
		if os.Remove(dir) != nil { // not empty, or gone
			return
		}
		dir = filepath.Dir(dir)
	}
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
