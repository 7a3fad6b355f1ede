package checkpoint

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// The checkpoint is a stage of the gate (backend/gate), around the invoke:
// the gate decides, then calls Begin, runs the call, and calls the
// checkpoint's Finish, which takes another checkpoint and records the
// change set; the gate's post-call checks read it. A call whose effects
// cannot change files (reads, searches, the browser) takes none.

// Begin implements gate.Checkpointer: the checkpoint before an allowed
// call, nil when the call cannot change files. It never fails the call: a
// checkpoint that cannot be taken is recorded by Finish as the call's
// Error. What changed since the last recorded call (a monitor, a human) is
// recorded first, as its own change set.
func (t *Tracker) Begin(ctx context.Context, info gate.CallInfo) gate.Checkpoint {
	if info.Workspace == "" || !mayChangeFiles(info.Effects) {
		return nil
	}
	c := t.begin(ctx, info.Tool, info.SessionID, info.CallID, info.Workspace)
	c.caged = info.Caged && hasKind(info.Effects, policy.EffectExec)
	if cg := info.Decision.Cage; cg != nil {
		c.caged = cg.Confines() // a human's yes under full access runs on the host
	}
	c.allowedBy = info.Decision.Source
	return c
}

// mayChangeFiles: a write, a deletion, a command, or an MCP tool that does
// not declare itself read-only (its server is a local process that can
// write the workspace).
func mayChangeFiles(effects []policy.Effect) bool {
	for _, e := range effects {
		switch e.Kind {
		case policy.EffectWrite, policy.EffectDestructive, policy.EffectExec:
			return true
		case policy.EffectMcp:
			if !e.ReadOnlyHint {
				return true
			}
		}
	}
	return false
}

func hasKind(effects []policy.Effect, k policy.EffectKind) bool {
	for _, e := range effects {
		if e.Kind == k {
			return true
		}
	}
	return false
}

// Call is one call between its two checkpoints (a gate.Checkpoint).
type Call struct {
	ID, Tool  string
	SessionID string
	t         *Tracker
	repo      *Repo
	before    string
	err       error
	caged     bool
	allowedBy string // the decision's source ("human:once", "sandbox+policy", ...)
}

func (t *Tracker) begin(ctx context.Context, tool, sessionID, callID, workspace string) *Call {
	c := &Call{ID: callID, Tool: tool, SessionID: sessionID, t: t}
	if c.ID == "" {
		c.ID = t.cfg.NewID()
	}
	c.repo, c.err = t.Repo(ctx, workspace)
	if c.err != nil {
		return c
	}
	unlock := c.repo.Lock()
	c.before, c.err = c.repo.SnapshotLocked(ctx)
	last := c.repo.Last()
	unlock()
	if c.err == nil && last != "" && last != c.before {
		if ev, _, err := t.changeEvent(ctx, c.repo, last, c.before); err == nil && len(ev.Files)+ev.Omitted > 0 {
			ev.CallID, ev.Cause = "outside-"+t.cfg.NewID(), store.CauseOutside
			_ = t.record(ctx, c.SessionID, ev)
		}
	}
	return c
}

// Finish implements gate.Checkpoint: the checkpoint after the call, and
// its change set recorded and returned. When a call that no human allowed
// deleted or truncated tracked files beyond the threshold, the event
// carries a warning and res tells the model which files are gone, so it
// can re-plan.
func (c *Call) Finish(ctx context.Context, res *tools.Result) gate.Changes {
	ev := c.finish(ctx, res)
	return gate.Changes{Event: ev, Checkpoint: c}
}

func (c *Call) finish(ctx context.Context, res *tools.Result) store.WorkspaceChanged {
	t := c.t
	ctx = context.WithoutCancel(ctx)
	ev := store.WorkspaceChanged{CallID: c.ID, Tool: c.Tool, Cause: store.CauseCall, Caged: c.caged}
	if c.repo != nil {
		ev.Workspace = c.repo.Workspace()
	}
	if c.err == nil {
		after, err := c.repo.Snapshot(ctx)
		if err != nil {
			c.err = err
		} else {
			_ = c.repo.SetLast(after)
			full, cs, err := t.changeEvent(ctx, c.repo, c.before, after)
			if err != nil {
				c.err = err
			} else {
				full.CallID, full.Tool, full.Cause, full.Caged = ev.CallID, ev.Tool, ev.Cause, ev.Caged
				ev = full
				if len(ev.Files)+ev.Omitted == 0 {
					return ev // nothing changed: nothing to show or undo
				}
				ev.AllowedBy = c.allowedBy
				if !strings.HasPrefix(ev.AllowedBy, "human:") {
					ev.Warning = t.destruction(cs)
				}
			}
		}
	}
	if c.err != nil {
		ev.Error = fmt.Sprintf("%v — this call ran without a checkpoint and cannot be undone", c.err)
		if ev.Workspace == "" {
			ev.Workspace = "(unknown)"
		}
	}
	if err := t.record(ctx, c.SessionID, ev); err != nil && ev.Error == "" {
		ev.Error = "recording the change set failed: " + err.Error()
	}
	if ev.Warning != nil && res != nil {
		res.Content = append(res.Content, tools.Content{Type: "text", Text: destructionNote(c.ID, ev.Warning)})
	}
	return ev
}

// destructionNote is what the model reads after a destructive call.
func destructionNote(callID string, d *store.Destruction) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n[warden] This call removed tracked files: %d deleted, %d truncated (threshold: %s). ", d.Deleted, d.Truncated, d.Threshold)
	b.WriteString("Files: " + strings.Join(d.Paths, ", "))
	if n := d.Deleted + d.Truncated; n > len(d.Paths) {
		fmt.Fprintf(&b, " and %d more", n-len(d.Paths))
	}
	fmt.Fprintf(&b, ". The user has been warned and can undo it (call %s). If this was not intended, stop and re-plan; do not recreate the files from memory.", callID)
	return b.String()
}
