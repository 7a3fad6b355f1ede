package store

import "context"

// API is the store as the rest of Warden uses it. *Store implements it; the
// conformance suite in storetest is written against it.
type API interface {
	Path() string
	Close() error

	EnsureWorkspace(ctx context.Context, path string) (Workspace, error)
	Workspace(ctx context.Context, idOrPath string) (Workspace, error)
	Workspaces(ctx context.Context) ([]Workspace, error)

	CreateSession(ctx context.Context, n NewSession) (Session, error)
	ReserveSession(ctx context.Context, n NewSession) (Session, error)
	Session(ctx context.Context, id string) (Session, error)
	Sessions(ctx context.Context, workspaceID string) ([]Session, error)
	RenameSession(ctx context.Context, id, title string) (Session, error)
	UpdateSessionPolicy(ctx context.Context, id string, u PolicyUpdate) (Session, error)
	SetArchived(ctx context.Context, id string, archived bool, by string) (Session, error)
	DeleteSession(ctx context.Context, id string) error

	Append(ctx context.Context, sessionID string, expectedVersion int64, events ...Event) (int64, error)
	Events(ctx context.Context, q EventQuery) ([]StoredEvent, error)
	PermissionAudit(ctx context.Context, sessionID string) ([]StoredEvent, error)
	PendingRequests(ctx context.Context, sessionID string) ([]StoredEvent, error)
	Subscribe(ctx context.Context, f SubscribeFilter) (*Subscription, error)
	Verify(ctx context.Context) (VerifyReport, error)

	AddGrant(ctx context.Context, n NewGrant) (GrantRecord, error)
	Grant(ctx context.Context, id string) (GrantRecord, error)
	Grants(ctx context.Context, f GrantFilter) ([]GrantRecord, error)
	RevokeGrant(ctx context.Context, id, bySessionID string) error
	IncrementGrantUse(ctx context.Context, id string) error

	SetMemory(ctx context.Context, m Memory) error
	GetMemory(ctx context.Context, workspaceID, namespace, key string) (Memory, error)
	Memories(ctx context.Context, workspaceID, namespace string) ([]Memory, error)
	DeleteMemory(ctx context.Context, workspaceID, namespace, key string) error

	TrustMcp(ctx context.Context, sessionID string, t TrustRecord) error
	UntrustMcp(ctx context.Context, sessionID, workspaceID, server string) error
	McpTrust(ctx context.Context, workspaceID, server string) (TrustRecord, error)
	McpTrusts(ctx context.Context, workspaceID string) ([]TrustRecord, error)
}

var _ API = (*Store)(nil)
