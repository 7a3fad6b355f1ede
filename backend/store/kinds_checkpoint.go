package store

import "errors"

// FileChange kinds.
const (
	ChangeCreated  = "created"
	ChangeModified = "modified"
	ChangeDeleted  = "deleted"
)

// WorkspaceChanged causes.
const (
	CauseCall    = "call"    // a tool call changed the workspace
	CauseOutside = "outside" // changed between calls: a running monitor, a human, another program
	CauseUndo    = "undo"    // an undo of one call
	CauseRestore = "restore" // a restore to a point of the session
)

// FileChange is one file of a change set. Hashes are git blob ids of the
// content; modes are git's (100644, 100755, 120000 for a symlink).
type FileChange struct {
	Path        string `json:"path"` // relative to the workspace, slash-separated
	Change      string `json:"change" ts:"'created' | 'modified' | 'deleted'"`
	Mode        string `json:"mode,omitempty"`
	OldMode     string `json:"old_mode,omitempty"`
	Size        int64  `json:"size"`
	OldSize     int64  `json:"old_size"`
	Hash        string `json:"hash,omitempty"`
	OldHash     string `json:"old_hash,omitempty"`
	Added       int    `json:"added"`
	Removed     int    `json:"removed"`
	Binary      bool   `json:"binary,omitempty"`
	Diff        string `json:"diff,omitempty"`         // unified, up to a cap
	DiffOmitted string `json:"diff_omitted,omitempty"` // why the diff is missing or cut
}

// Destruction is the warning of a call allowed without a human that deleted
// or truncated tracked files beyond the threshold.
type Destruction struct {
	Deleted   int      `json:"deleted"`
	Truncated int      `json:"truncated"`
	Paths     []string `json:"paths"` // the first ones
	Threshold string   `json:"threshold"`
}

// WorkspaceChanged is the change set of one call (or of an undo, a restore,
// or what changed between calls), computed from two checkpoints of the
// workspace in the shadow repository. Error says why a checkpoint could not
// be taken; the call ran regardless.
type WorkspaceChanged struct {
	event
	CallID    string       `json:"call_id"`
	Tool      string       `json:"tool,omitempty"`
	Cause     string       `json:"cause" ts:"'call' | 'outside' | 'undo' | 'restore'"`
	UndoOf    string       `json:"undo_of,omitempty"`    // undo: the call undone
	RestoreTo string       `json:"restore_to,omitempty"` // restore: the message restored to
	Workspace string       `json:"workspace"`
	Before    string       `json:"before,omitempty"` // checkpoint tree ids
	After     string       `json:"after,omitempty"`
	Files     []FileChange `json:"files,omitempty"`
	Omitted   int          `json:"omitted,omitempty"` // files beyond the listing cap
	Skipped   []string     `json:"skipped,omitempty"` // excluded folders present, not covered
	AllowedBy string       `json:"allowed_by,omitempty"`
	Caged     bool         `json:"caged,omitempty"`
	Warning   *Destruction `json:"warning,omitempty"`
	Error     string       `json:"error,omitempty"`
}

func (w WorkspaceChanged) validate() error {
	switch {
	case w.CallID == "":
		return errors.New("call_id is empty")
	case w.Workspace == "":
		return errors.New("workspace is empty")
	}
	switch w.Cause {
	case CauseCall, CauseOutside, CauseUndo, CauseRestore:
		return nil
	}
	return errors.New("cause is not call, outside, undo or restore")
}
