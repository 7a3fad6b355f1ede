package api

import (
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
)

// The request and response types of methods whose service counterparts take
// plain arguments (or that only the window implements). A field with
// omitempty is optional on the wire, in both directions; a `ts` tag gives a
// field's TypeScript type where Go's is wider (a string with a fixed set of
// values).

// SessionArgs names a session.
type SessionArgs struct {
	SessionID string `json:"session_id"`
}

// PendingArgs names a session, or none for the asks of every session.
type PendingArgs struct {
	SessionID string `json:"session_id,omitempty"`
}

// RenameSessionArgs renames a session.
type RenameSessionArgs struct {
	SessionID string `json:"session_id"`
	Title     string `json:"title"`
}

// SessionEventsArgs pages a session's events: forward after AfterSeq, or,
// with Tail or a BeforeSeq, the Limit events before BeforeSeq (the newest
// when it is 0), oldest first either way.
type SessionEventsArgs struct {
	SessionID string `json:"session_id"`
	AfterSeq  int64  `json:"after_seq,omitempty"`
	BeforeSeq int64  `json:"before_seq,omitempty"`
	Tail      bool   `json:"tail,omitempty"`
	Limit     int    `json:"limit,omitempty"`
}

// SendMessageArgs is one chat line.
type SendMessageArgs struct {
	SessionID string `json:"session_id"`
	Text      string `json:"text"`
}

// SetApprovalArgs changes the approval axis.
type SetApprovalArgs struct {
	SessionID string                `json:"session_id"`
	Approval  policy.ApprovalPolicy `json:"approval"`
}

// SetSandboxArgs changes the sandbox axis.
type SetSandboxArgs struct {
	SessionID string          `json:"session_id"`
	Sandbox   runtime.Sandbox `json:"sandbox"`
}

// SetPlanningArgs toggles the planning freeze.
type SetPlanningArgs struct {
	SessionID string `json:"session_id"`
	Planning  bool   `json:"planning"`
}

// AuditLogArgs filters a session's audit.
type AuditLogArgs struct {
	SessionID string   `json:"session_id"`
	Kinds     []string `json:"kinds,omitempty"`
	Limit     int      `json:"limit,omitempty"`
	BeforeSeq int64    `json:"before_seq,omitempty"`
}

// ExportAuditArgs picks a session and a format.
type ExportAuditArgs struct {
	SessionID string `json:"session_id"`
	Format    string `json:"format" ts:"'jsonl' | 'csv'"`
}

// KillAgentArgs names a subagent or monitor.
type KillAgentArgs struct {
	SessionID string `json:"session_id"`
	AgentID   string `json:"agent_id"`
}

// PickFolderArgs configures the folder picker.
type PickFolderArgs struct {
	Title            string `json:"title,omitempty"`
	DefaultDirectory string `json:"default_directory,omitempty"`
}

// SavedFile is where SaveAuditExport wrote. An empty Path means the human
// cancelled the dialog and nothing was written.
type SavedFile struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// CageStatus says whether the OS sandbox works here, and if not, why.
type CageStatus struct {
	// Available is true when a trial run inside the sandbox succeeded.
	Available bool `json:"available"`
	// Mechanism names the sandbox, e.g. "bubblewrap".
	Mechanism string `json:"mechanism"`
	// Version is what the sandbox binary reports about itself, if it ran.
	Version string `json:"version"`
	// Detail is the reason when unavailable, or what was checked when available.
	Detail string `json:"detail"`
}
