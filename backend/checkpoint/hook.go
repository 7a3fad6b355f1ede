package checkpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// The hook is a decorator around a tool, installed under the gate: the gate
// decides, then calls the hooked tool's Invoke, which takes a checkpoint,
// runs the tool, takes another and records the change set. A tool whose
// effects cannot change files (reads, searches, the browser) passes
// straight through. The gate and the runtime are untouched apart from
// installing it.

// Wrap returns tool with the checkpoint hook around its Invoke. A tool that
// can preview keeps its preview.
func (t *Tracker) Wrap(tool tools.Tool) tools.Tool {
	h := &hooked{Tool: tool, t: t}
	if _, ok := tool.(tools.Previewer); ok {
		return &hookedPreviewer{h}
	}
	return h
}

// WrapAll returns a registry holding every tool of r behind the hook.
func (t *Tracker) WrapAll(r *tools.Registry) (*tools.Registry, error) { return r.Wrapped(t.Wrap) }

type hooked struct {
	tools.Tool
	t *Tracker
}

// Unwrap returns the tool behind the hook.
func (h *hooked) Unwrap() tools.Tool { return h.Tool }

type hookedPreviewer struct{ *hooked }

func (h *hookedPreviewer) Preview(args json.RawMessage, env tools.Env) (string, error) {
	return h.Tool.(tools.Previewer).Preview(args, env)
}

func (h *hooked) Invoke(ctx context.Context, args json.RawMessage, env tools.Env) (tools.Result, error) {
	effects, err := h.Tool.Effects(args, env)
	if err != nil || env.Workspace == "" || !mayChangeFiles(effects) {
		return h.Tool.Invoke(ctx, args, env)
	}
	c := h.t.Begin(ctx, h.Tool.Name(), env)
	res, ierr := h.Tool.Invoke(ctx, args, env)
	c.caged = h.t.cfg.Caged(env.Sandbox) && hasKind(effects, policy.EffectExec)
	h.t.Finish(ctx, c, &res)
	return res, ierr
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

// Call is one call between its two checkpoints.
type Call struct {
	ID, Tool  string
	SessionID string
	repo      *Repo
	before    string
	err       error
	caged     bool
}

// Begin takes the checkpoint before a call. It never fails the call: a
// checkpoint that cannot be taken is recorded by Finish as the call's
// Error. What changed since the last recorded call (a monitor, a human) is
// recorded first, as its own change set.
func (t *Tracker) Begin(ctx context.Context, tool string, env tools.Env) *Call {
	c := &Call{ID: env.CallID, Tool: tool, SessionID: env.SessionID}
	if c.ID == "" {
		c.ID = t.cfg.NewID()
	}
	c.repo, c.err = t.Repo(ctx, env.Workspace)
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

// Finish takes the checkpoint after a call and records its change set.
// When a call that no human allowed deleted or truncated tracked files
// beyond the threshold, the event carries a warning and res tells the
// model which files are gone, so it can re-plan.
func (t *Tracker) Finish(ctx context.Context, c *Call, res *tools.Result) {
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
					return // nothing changed: nothing to show or undo
				}
				ev.AllowedBy = t.allowedBy(ctx, c.SessionID, c.ID)
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

// allowedBy is the Source of the call's PermissionGranted ("human:once",
// "sandbox+policy", ...), or "" when none is found.
func (t *Tracker) allowedBy(ctx context.Context, sessionID, callID string) string {
	if sessionID == "" {
		return ""
	}
	evs, err := t.cfg.Store.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindPermissionGranted}, Desc: true, Limit: 200})
	if err != nil {
		return ""
	}
	for _, e := range evs {
		if g, ok := e.Event.(store.PermissionGranted); ok && g.CallID == callID {
			return g.Source
		}
	}
	return ""
}
