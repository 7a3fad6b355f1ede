package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Revert puts back what this call changed at the given workspace-relative
// paths (slash-separated; a folder covers everything below it), from the
// checkpoint taken before the call: a file the call made is removed, one it
// changed or removed comes back as it was. It is the post-call check's
// undo (backend/postcall): it runs before the call returns, and the next
// call's change set starts from the reverted workspace. It returns the
// paths it wrote or removed.
func (c *Call) Revert(ctx context.Context, paths []string) ([]string, error) {
	if c.err != nil || c.repo == nil {
		return nil, fmt.Errorf("checkpoint: this call has no checkpoint to revert from: %v", c.err)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	unlock := c.repo.Lock()
	defer unlock()
	now, err := c.repo.SnapshotLocked(ctx)
	if err != nil {
		return nil, err
	}
	keep := func(p string) bool {
		for _, want := range paths {
			if p == want || strings.HasPrefix(p, strings.TrimSuffix(want, "/")+"/") {
				return true
			}
		}
		return false
	}
	done, rerr := c.repo.RestoreLocked(ctx, now, c.before, keep)
	after, err := c.repo.SnapshotLocked(ctx)
	if err != nil {
		return done, errors.Join(rerr, err)
	}
	_ = c.repo.SetLast(after)
	return done, rerr
}

// Workspace is the folder the call's checkpoints cover ("" without one).
func (c *Call) Workspace() string {
	if c.repo == nil {
		return ""
	}
	return c.repo.Workspace()
}
