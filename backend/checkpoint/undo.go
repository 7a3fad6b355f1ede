package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/store"
)

// Change is one recorded change set with where it sits in the log.
type Change struct {
	Seq       int64     `json:"seq"`
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`
	store.WorkspaceChanged
	// UndoneBy is the undo that reverted this change, if any.
	UndoneBy string `json:"undone_by,omitempty"`
}

// NotFoundError: there is no change set for that call.
type NotFoundError struct{ What, ID, Why string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %s: %s", e.What, e.ID, e.Why) }

// ConflictError: files the undo would overwrite changed after the call.
type ConflictError struct {
	CallID string
	Paths  []string
	// Later are the recorded changes that touched those files since; a
	// path no later change lists was changed outside any call.
	Later []Change
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d file(s) changed again after %s, and undoing would overwrite that: %s", len(e.Paths), e.CallID, list(e.Paths, 10))
	seen := map[string]bool{}
	for _, c := range e.Later {
		seen[c.CallID] = true
		b.WriteString(fmt.Sprintf("; changed by %s %s", describeCause(c.WorkspaceChanged), c.CallID))
	}
	if len(e.Later) == 0 {
		b.WriteString("; changed outside any recorded call (by you or another program)")
	}
	b.WriteString(". Undo those first, or undo with --force to overwrite them")
	return b.String()
}

func describeCause(ev store.WorkspaceChanged) string {
	switch ev.Cause {
	case store.CauseUndo:
		return "the undo"
	case store.CauseRestore:
		return "the restore"
	case store.CauseOutside:
		return "a change between calls"
	}
	if ev.Tool != "" {
		return "the " + ev.Tool + " call"
	}
	return "the call"
}

func list(ps []string, n int) string {
	if len(ps) <= n {
		return strings.Join(ps, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ps[:n], ", "), len(ps)-n)
}

// Changes lists the change sets of a session ("" for every session), oldest
// first, each marked with the undo that reverted it.
func (t *Tracker) Changes(ctx context.Context, sessionID string) ([]Change, error) {
	evs, err := t.cfg.Store.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindWorkspaceChanged}})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read change sets: %w", err)
	}
	out := make([]Change, 0, len(evs))
	idx := map[string]int{}
	for _, e := range evs {
		w, ok := e.Event.(store.WorkspaceChanged)
		if !ok {
			continue
		}
		if w.UndoOf != "" {
			if i, ok := idx[w.UndoOf]; ok {
				out[i].UndoneBy = w.CallID
			}
		}
		idx[w.CallID] = len(out)
		out = append(out, Change{Seq: e.Seq, SessionID: e.SessionID, Time: e.Time, WorkspaceChanged: w})
	}
	return out, nil
}

// find returns the change set recorded for a call id.
func (t *Tracker) find(ctx context.Context, callID string) (Change, error) {
	all, err := t.Changes(ctx, "")
	if err != nil {
		return Change{}, err
	}
	for _, c := range all {
		if c.CallID == callID {
			return c, nil
		}
	}
	started, _ := t.cfg.Store.Events(ctx, store.EventQuery{Kinds: []store.Kind{store.KindToolInvocationStarted}})
	for _, e := range started {
		if s, ok := e.Event.(store.ToolInvocationStarted); ok && s.CallID == callID {
			return Change{}, &NotFoundError{What: "call", ID: callID, Why: "it changed no file of the workspace (" + s.Tool + "), so there is nothing to undo"}
		}
	}
	return Change{}, &NotFoundError{What: "call", ID: callID, Why: "no such call in this store (see `warden changes --session ID`)"}
}

// Outcome is what an undo or a restore did.
type Outcome struct {
	ID       string                 `json:"id"` // the undo's own id: undo it to redo
	Restored []string               `json:"restored"`
	Event    store.WorkspaceChanged `json:"event"`
	Forced   []string               `json:"forced,omitempty"` // conflicting files overwritten
}

// Undo restores the files call callID changed to their state before it.
// Files changed again since are a *ConflictError unless force. The undo is
// recorded as its own change set (cause undo), which can be undone in turn.
func (t *Tracker) Undo(ctx context.Context, callID string, force bool) (Outcome, error) {
	c, err := t.find(ctx, callID)
	if err != nil {
		return Outcome{}, err
	}
	if c.Error != "" && c.Before == "" {
		return Outcome{}, &NotFoundError{What: "call", ID: callID, Why: "it has no checkpoint: " + c.Error}
	}
	r, err := t.Repo(ctx, c.Workspace)
	if err != nil {
		return Outcome{}, err
	}
	if !r.HasTree(ctx, c.Before, c.After) {
		return Outcome{}, fmt.Errorf("checkpoint: the checkpoint of %s is gone: the snapshot store %s was deleted or damaged since; nothing was restored", callID, r.Dir())
	}
	paths, err := r.ChangedPaths(ctx, c.Before, c.After)
	if err != nil {
		return Outcome{}, err
	}
	ev := store.WorkspaceChanged{CallID: "undo-" + t.cfg.NewID(), Cause: store.CauseUndo, UndoOf: callID}
	return t.apply(ctx, r, c.SessionID, c.Seq, c.After, c.Before, paths, force, ev)
}

// RestoreTo restores the workspace to its state when message messageID of
// the session was appended: every file the session's later change sets
// touched goes back to how it was then. Files changed outside the session
// since its last change set are a *ConflictError unless force.
func (t *Tracker) RestoreTo(ctx context.Context, sessionID, messageID string, force bool) (Outcome, error) {
	msgs, err := t.cfg.Store.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindMessageAppended}})
	if err != nil {
		return Outcome{}, fmt.Errorf("checkpoint: read messages: %w", err)
	}
	var at int64 = -1
	for _, e := range msgs {
		if m, ok := e.Event.(store.MessageAppended); ok && m.MessageID == messageID {
			at = e.Seq
			break
		}
	}
	if at < 0 {
		return Outcome{}, &NotFoundError{What: "message", ID: messageID, Why: "no such message in session " + sessionID}
	}
	all, err := t.Changes(ctx, sessionID)
	if err != nil {
		return Outcome{}, err
	}
	var later []Change
	for _, c := range all {
		if c.Seq > at && c.Before != "" && c.After != "" {
			later = append(later, c)
		}
	}
	if len(later) == 0 {
		return Outcome{}, &NotFoundError{What: "message", ID: messageID, Why: "nothing in the workspace changed after it"}
	}
	r, err := t.Repo(ctx, later[0].Workspace)
	if err != nil {
		return Outcome{}, err
	}
	target, last := later[0].Before, later[len(later)-1].After
	seen := map[string]bool{}
	var paths []string
	for _, c := range later {
		if c.Workspace != r.Workspace() {
			continue
		}
		ps, err := r.ChangedPaths(ctx, c.Before, c.After)
		if err != nil {
			return Outcome{}, fmt.Errorf("checkpoint: the checkpoint of %s is gone (%w); nothing was restored", c.CallID, err)
		}
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	ev := store.WorkspaceChanged{CallID: "restore-" + t.cfg.NewID(), Cause: store.CauseRestore, RestoreTo: messageID}
	return t.apply(ctx, r, sessionID, later[len(later)-1].Seq, last, target, paths, force, ev)
}

// apply moves paths from expected (the state the last change left) to
// target, after checking that the workspace still matches expected on them.
func (t *Tracker) apply(ctx context.Context, r *Repo, sessionID string, seq int64, expected, target string, paths []string, force bool, ev store.WorkspaceChanged) (Outcome, error) {
	unlock := r.Lock()
	defer unlock()
	now, err := r.SnapshotLocked(ctx)
	if err != nil {
		return Outcome{}, err
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	var conflicts []string
	if now != expected { // the usual case, nothing changed since, needs no comparison
		moved, err := r.ChangedPaths(ctx, expected, now)
		if err != nil {
			return Outcome{}, err
		}
		// A path already back at its target is no conflict: there is
		// nothing to overwrite.
		pending, err := r.ChangedPaths(ctx, target, now)
		if err != nil {
			return Outcome{}, err
		}
		differs := map[string]bool{}
		for _, p := range pending {
			differs[p] = true
		}
		for _, p := range moved {
			if want[p] && differs[p] {
				conflicts = append(conflicts, p)
			}
		}
	}
	sort.Strings(conflicts)
	if len(conflicts) > 0 && !force {
		return Outcome{}, &ConflictError{CallID: undoneName(ev), Paths: conflicts, Later: t.laterTouching(ctx, seq, r.Workspace(), conflicts)}
	}
	restored, rerr := r.RestoreLocked(ctx, now, target, func(p string) bool { return want[p] })
	after, err := r.SnapshotLocked(ctx)
	if err != nil {
		return Outcome{}, errors.Join(rerr, err)
	}
	_ = r.SetLast(after)
	full, _, err := t.changeEvent(ctx, r, now, after)
	if err != nil {
		return Outcome{}, errors.Join(rerr, err)
	}
	full.CallID, full.Cause, full.UndoOf, full.RestoreTo = ev.CallID, ev.Cause, ev.UndoOf, ev.RestoreTo
	if len(full.Files)+full.Omitted > 0 {
		if err := t.record(ctx, sessionID, full); err != nil {
			rerr = errors.Join(rerr, fmt.Errorf("checkpoint: the files were restored but recording it failed: %w", err))
		}
	}
	out := Outcome{ID: full.CallID, Restored: restored, Event: full}
	if len(full.Files)+full.Omitted == 0 {
		out.ID = "" // nothing changed, nothing recorded
	}
	if force {
		out.Forced = conflicts
	}
	return out, rerr
}

func undoneName(ev store.WorkspaceChanged) string {
	if ev.UndoOf != "" {
		return ev.UndoOf
	}
	return "message " + ev.RestoreTo
}

// laterTouching lists the change sets after seq that touched any of paths.
func (t *Tracker) laterTouching(ctx context.Context, seq int64, workspace string, paths []string) []Change {
	all, err := t.Changes(ctx, "")
	if err != nil {
		return nil
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	var out []Change
	for _, c := range all {
		if c.Seq <= seq || c.Workspace != workspace {
			continue
		}
		for _, f := range c.Files {
			if want[f.Path] {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
