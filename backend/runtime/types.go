package runtime

import (
	"encoding/json"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Info describes the running service.
type Info struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	Demo       bool   `json:"demo"`
	Model      string `json:"model"`
	Caged      bool   `json:"caged"`
	CageReason string `json:"cage_reason"`
	DataPath   string `json:"data_path"`
}

// Session is a session as a window shows it.
type Session struct {
	ID        string                `json:"id"`
	ParentID  string                `json:"parent_id,omitempty"`
	Workspace string                `json:"workspace"`
	Title     string                `json:"title"`
	Approval  policy.ApprovalPolicy `json:"approval"`
	Sandbox   Sandbox               `json:"sandbox"`
	Planning  bool                  `json:"planning"`
	Archived  bool                  `json:"archived,omitempty"`
	CreatedAt int64                 `json:"created_at"`
	UpdatedAt int64                 `json:"updated_at"`
	Busy      bool                  `json:"busy"`
	Pending   int                   `json:"pending"`
}

// Sandbox is policy.SandboxPolicy with its lists always present on the wire.
type Sandbox struct {
	Kind          policy.SandboxKind `json:"kind"`
	NetworkAccess bool               `json:"network_access"`
	WritableRoots []string           `json:"writable_roots"`
}

func sandboxView(p policy.SandboxPolicy) Sandbox {
	roots := p.WritableRoots
	if roots == nil {
		roots = []string{}
	}
	return Sandbox{Kind: p.Kind, NetworkAccess: p.NetworkAccess, WritableRoots: roots}
}

// Policy converts the wire form back.
func (s Sandbox) Policy() policy.SandboxPolicy {
	return policy.SandboxPolicy{Kind: s.Kind, NetworkAccess: s.NetworkAccess, WritableRoots: s.WritableRoots}
}

// Event is one stored event on the wire.
type Event struct {
	Seq       int64           `json:"seq"`
	SessionID string          `json:"session_id"`
	Version   int64           `json:"version"`
	Kind      store.Kind      `json:"kind"`
	At        int64           `json:"at"`
	Data      json.RawMessage `json:"data" ts:"Record<string, unknown>"`
}

func eventView(e store.StoredEvent) Event {
	return Event{Seq: e.Seq, SessionID: e.SessionID, Version: e.Version, Kind: e.Kind, At: e.Time.UnixMilli(), Data: e.Payload}
}

func eventViews(es []store.StoredEvent) []Event {
	out := make([]Event, 0, len(es))
	for _, e := range es {
		out = append(out, eventView(e))
	}
	return out
}

// Approval is an ask waiting for a human (the gate's Pending, with its
// MCP part filled by the service).
type Approval = gate.Pending

// McpInfo is the MCP part of an approval.
type McpInfo = gate.McpInfo

// GrantView is a grant, workspace rule or MCP trust as a window lists it.
type GrantView struct {
	ID        string          `json:"id"`
	Kind      string          `json:"kind" ts:"'grant' | 'rule' | 'mcp-server' | 'mcp-trust'"`
	Signature string          `json:"signature"`
	Scope     string          `json:"scope" ts:"'session' | 'workspace' | 'persistent'"`
	Reasons   []policy.Reason `json:"reasons"`
	CreatedAt int64           `json:"created_at"`
	ExpiresAt int64           `json:"expires_at,omitempty"`
	Uses      int64           `json:"uses"`
	Server    string          `json:"server,omitempty"`
}

// Push is one item of the live stream a window renders.
type Push struct {
	Type      string    `json:"type"` // event | delta | session | session-deleted | approval | approval-resolved
	Event     *Event    `json:"event,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Text      string    `json:"text,omitempty"`
	Session   *Session  `json:"session,omitempty"`
	Approval  *Approval `json:"approval,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
}

// Push types.
const (
	PushEvent            = "event"
	PushDelta            = "delta"
	PushSession          = "session"
	PushSessionDeleted   = "session-deleted"
	PushApproval         = "approval"
	PushApprovalResolved = "approval-resolved"
)
