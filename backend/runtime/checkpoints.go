package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/checkpoint"
	"github.com/warden-dev/warden/backend/store"
)

// Checkpoints undoes what calls changed in the workspace;
// *checkpoint.Tracker has it. The hook that records the change sets sits
// under the gate (assemble installs it around the tools); the runtime only
// offers the undo to the windows.
type Checkpoints interface {
	Changes(ctx context.Context, sessionID string) ([]checkpoint.Change, error)
	Undo(ctx context.Context, callID string, force bool) (checkpoint.Outcome, error)
	RestoreTo(ctx context.Context, sessionID, messageID string, force bool) (checkpoint.Outcome, error)
}

// ErrNoCheckpoints is returned when the service runs without checkpoints.
var ErrNoCheckpoints = errors.New("checkpoints are not available in this window")

// UndoCallArgs names the call whose changes to restore.
type UndoCallArgs struct {
	SessionID string `json:"session_id"`
	CallID    string `json:"call_id"`
	// Force overwrites files changed again after the call; without it such
	// a conflict is returned for the human to confirm.
	Force bool `json:"force,omitempty"`
}

// RestoreToArgs names the message whose workspace state to restore.
type RestoreToArgs struct {
	SessionID string `json:"session_id"`
	MessageID string `json:"message_id"`
	Force     bool   `json:"force,omitempty"`
}

// UndoResult is what an undo or a restore did, or the conflict that needs
// a human's yes (Done false, Conflict set).
type UndoResult struct {
	Done     bool          `json:"done"`
	ID       string        `json:"id,omitempty"` // the undo's own change set: undo it to redo
	Restored []string      `json:"restored"`
	Forced   []string      `json:"forced,omitempty"`
	Conflict *UndoConflict `json:"conflict,omitempty"`
}

// UndoConflict: files changed again after the point being restored.
type UndoConflict struct {
	Message string   `json:"message"`
	Paths   []string `json:"paths"`
	Later   []string `json:"later"` // call ids of the later changes
}

// UndoCall restores the files one call of the session changed.
func (s *Service) UndoCall(ctx context.Context, a UndoCallArgs) (UndoResult, error) {
	cp, err := s.checkpoints(a.SessionID)
	if err != nil {
		return UndoResult{}, err
	}
	list, err := cp.Changes(ctx, a.SessionID)
	if err != nil {
		return UndoResult{}, err
	}
	found := false
	for _, c := range list {
		found = found || c.CallID == a.CallID
	}
	if !found {
		return UndoResult{}, errors.New("call " + a.CallID + " changed no file of this session's workspace: nothing to undo")
	}
	r, err := undoResult(cp.Undo(ctx, a.CallID, a.Force))
	s.tellModel(ctx, a.SessionID, r, "The user undid call "+a.CallID)
	return r, err
}

// RestoreTo restores the workspace to its state at a message.
func (s *Service) RestoreTo(ctx context.Context, a RestoreToArgs) (UndoResult, error) {
	cp, err := s.checkpoints(a.SessionID)
	if err != nil {
		return UndoResult{}, err
	}
	r, err := undoResult(cp.RestoreTo(ctx, a.SessionID, a.MessageID, a.Force))
	s.tellModel(ctx, a.SessionID, r, "The user restored the workspace to its state at an earlier message")
	return r, err
}

// tellModel records what an undo or restore did as the output of a command
// the user ran, which is how the model's history reads it: the files it
// edited are not what it last saw, and it should re-read before going on.
func (s *Service) tellModel(ctx context.Context, sessionID string, r UndoResult, what string) {
	if !r.Done || r.ID == "" {
		return
	}
	files := r.Restored
	more := ""
	if len(files) > 50 {
		files, more = files[:50], fmt.Sprintf(" and %d more", len(r.Restored)-50)
	}
	text := what + "; these files are back to how they were then: " + strings.Join(files, ", ") + more +
		". Re-read them before relying on what you last saw."
	_, _ = s.st.Append(context.WithoutCancel(ctx), sessionID, store.AnyVersion, store.MessageAppended{
		MessageID: s.newID(), Role: "tool", ToolCallID: r.ID, Text: text})
}

// ChangeSets lists the session's change sets, oldest first.
func (s *Service) ChangeSets(ctx context.Context, sessionID string) ([]checkpoint.Change, error) {
	if s.cfg.Checkpoints == nil {
		return nil, ErrNoCheckpoints
	}
	list, err := s.cfg.Checkpoints.Changes(ctx, sessionID)
	if list == nil {
		list = []checkpoint.Change{}
	}
	return list, err
}

// checkpoints refuses while a turn runs: its calls would race the restore.
func (s *Service) checkpoints(sessionID string) (Checkpoints, error) {
	if s.cfg.Checkpoints == nil {
		return nil, ErrNoCheckpoints
	}
	s.mu.Lock()
	_, busy := s.turns[sessionID]
	s.mu.Unlock()
	if busy {
		return nil, errors.New("a turn is running in this session: stop it or wait, then undo")
	}
	return s.cfg.Checkpoints, nil
}

func undoResult(out checkpoint.Outcome, err error) (UndoResult, error) {
	var ce *checkpoint.ConflictError
	if errors.As(err, &ce) {
		c := &UndoConflict{Message: ce.Error(), Paths: ce.Paths, Later: []string{}}
		for _, l := range ce.Later {
			c.Later = append(c.Later, l.CallID)
		}
		return UndoResult{Conflict: c, Restored: []string{}}, nil
	}
	if err != nil {
		return UndoResult{}, err
	}
	r := UndoResult{Done: true, ID: out.ID, Restored: out.Restored, Forced: out.Forced}
	if r.Restored == nil {
		r.Restored = []string{}
	}
	return r, nil
}
