package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
)

// The methods below bind runtime.Service for the window, one each, with the
// argument objects of the HTTP transport (backend/server): the frontend's
// bridge sends the same object to either.

// PushEvent is the Wails event name of the live stream.
const PushEvent = "warden:push"

// ErrNotConnected is returned when the app runs without a runtime.
var ErrNotConnected = errors.New("the agent runtime is not connected")

// SessionArgs names a session.
type SessionArgs struct {
	SessionID string `json:"session_id"`
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
	AfterSeq  int64  `json:"after_seq"`
	BeforeSeq int64  `json:"before_seq,omitempty"`
	Tail      bool   `json:"tail,omitempty"`
	Limit     int    `json:"limit"`
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
	Kinds     []string `json:"kinds"`
	Limit     int      `json:"limit"`
	BeforeSeq int64    `json:"before_seq"`
}

// ExportAuditArgs picks a session and a format.
type ExportAuditArgs struct {
	SessionID string `json:"session_id"`
	Format    string `json:"format"`
}

// KillAgentArgs names a subagent or monitor.
type KillAgentArgs struct {
	SessionID string `json:"session_id"`
	AgentID   string `json:"agent_id"`
}

func (a *App) service() (*runtime.Service, error) {
	if a.svc == nil {
		if a.connErr != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotConnected, a.connErr)
		}
		return nil, ErrNotConnected
	}
	return a.svc, nil
}

func (a *App) ctx() context.Context {
	if a.wailsCtx != nil {
		return a.wailsCtx
	}
	return context.Background()
}

// Attach is main.go's OnStartup hook: it keeps the window's context and
// forwards the runtime's live stream to the window. It is a function, not a
// method, so Wails does not bind it.
func Attach(ctx context.Context, a *App) {
	a.wailsCtx = ctx
	if a.svc == nil {
		return
	}
	pushes := a.svc.Subscribe(ctx)
	go func() {
		for p := range pushes {
			a.emit(ctx, PushEvent, p)
		}
	}()
}

// ListSessions lists every session.
func (a *App) ListSessions() ([]runtime.Session, error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	return svc.ListSessions(a.ctx())
}

// CreateSession starts a session in a workspace.
func (a *App) CreateSession(args runtime.CreateSessionArgs) (runtime.Session, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.Session{}, err
	}
	return svc.CreateSession(a.ctx(), args)
}

// RenameSession renames a session.
func (a *App) RenameSession(args RenameSessionArgs) (runtime.Session, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.Session{}, err
	}
	return svc.RenameSession(a.ctx(), args.SessionID, args.Title)
}

// ArchiveSession is the window's Delete: the session leaves the list and
// its events (the audit trail) are kept.
func (a *App) ArchiveSession(args SessionArgs) (runtime.Session, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.Session{}, err
	}
	return svc.ArchiveSession(a.ctx(), args.SessionID)
}

// RestoreSession brings an archived session back.
func (a *App) RestoreSession(args SessionArgs) (runtime.Session, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.Session{}, err
	}
	return svc.RestoreSession(a.ctx(), args.SessionID)
}

// DeleteSession purges a session for good: its events, monitors and
// browser (the window asks first and says what it destroys).
func (a *App) DeleteSession(args SessionArgs) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	return svc.DeleteSession(a.ctx(), args.SessionID)
}

// SessionEvents pages a session's events, oldest first (forward, or a tail
// page before a seq).
func (a *App) SessionEvents(args SessionEventsArgs) ([]runtime.Event, error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	if args.Tail || args.BeforeSeq != 0 {
		return svc.SessionEventsBefore(a.ctx(), args.SessionID, args.BeforeSeq, args.Limit)
	}
	return svc.SessionEvents(a.ctx(), args.SessionID, args.AfterSeq, args.Limit)
}

// SendMessage starts a turn (or runs a `!` command, or toggles /plan).
func (a *App) SendMessage(args SendMessageArgs) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	return svc.SendMessage(a.ctx(), args.SessionID, args.Text)
}

// Retry runs the model again on the conversation as it stands (after a
// model error), without a new message.
func (a *App) Retry(args SessionArgs) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	return svc.Retry(a.ctx(), args.SessionID)
}

// Cancel stops a session's turn.
func (a *App) Cancel(args SessionArgs) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	return svc.Cancel(a.ctx(), args.SessionID)
}

// PendingApprovals lists the asks waiting for a human.
func (a *App) PendingApprovals(args SessionArgs) ([]runtime.Approval, error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	return svc.PendingApprovals(a.ctx(), args.SessionID)
}

// Answer answers one ask.
func (a *App) Answer(args runtime.AnswerArgs) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	return svc.Answer(a.ctx(), args)
}

// SetApprovalPolicy changes a session's approval axis.
func (a *App) SetApprovalPolicy(args SetApprovalArgs) (runtime.Session, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.Session{}, err
	}
	return svc.SetApprovalPolicy(a.ctx(), args.SessionID, args.Approval)
}

// SetSandboxPolicy changes a session's sandbox axis.
func (a *App) SetSandboxPolicy(args SetSandboxArgs) (runtime.Session, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.Session{}, err
	}
	return svc.SetSandboxPolicy(a.ctx(), args.SessionID, args.Sandbox)
}

// SetPlanning enters or lifts the planning freeze.
func (a *App) SetPlanning(args SetPlanningArgs) (runtime.Session, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.Session{}, err
	}
	return svc.SetPlanning(a.ctx(), args.SessionID, args.Planning)
}

// ListGrants lists a session's grants, its workspace's rules and trusts.
func (a *App) ListGrants(args SessionArgs) ([]runtime.GrantView, error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	return svc.ListGrants(a.ctx(), args.SessionID)
}

// RevokeGrant revokes a grant, rule or MCP trust.
func (a *App) RevokeGrant(args runtime.RevokeGrantArgs) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	return svc.RevokeGrant(a.ctx(), args)
}

// TrustMcpServer trusts an MCP server of a session's workspace, for the
// session or the workspace, and starts it (the trust card, the prompt).
func (a *App) TrustMcpServer(args runtime.TrustMcpArgs) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	return svc.TrustMcpServer(a.ctx(), args)
}

// McpPending lists the servers of a session's workspace it has not trusted:
// the trust card.
func (a *App) McpPending(args SessionArgs) ([]runtime.McpPendingServer, error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	return svc.McpPending(a.ctx(), args.SessionID)
}

// AuditLog lists a session's permission and tool events.
func (a *App) AuditLog(args AuditLogArgs) ([]runtime.Event, error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	return svc.AuditLog(a.ctx(), args.SessionID, args.Kinds, args.Limit, args.BeforeSeq)
}

// ExportAudit renders a session's audit as JSONL or CSV.
func (a *App) ExportAudit(args ExportAuditArgs) (runtime.Export, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.Export{}, err
	}
	return svc.ExportAudit(a.ctx(), args.SessionID, args.Format)
}

// KillAgent stops a subagent or monitor (human only).
func (a *App) KillAgent(args KillAgentArgs) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	return svc.KillAgent(a.ctx(), args.SessionID, args.AgentID)
}

// emitter sends a Wails event; tests replace it.
type emitter func(ctx context.Context, name string, data ...interface{})

// UndoCall restores the files one call changed; a conflict with later
// changes comes back for the human to confirm (then again with Force).
func (a *App) UndoCall(args runtime.UndoCallArgs) (runtime.UndoResult, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.UndoResult{}, err
	}
	return svc.UndoCall(a.ctx(), args)
}

// RestoreTo restores the workspace to its state at a message.
func (a *App) RestoreTo(args runtime.RestoreToArgs) (runtime.UndoResult, error) {
	svc, err := a.service()
	if err != nil {
		return runtime.UndoResult{}, err
	}
	return svc.RestoreTo(a.ctx(), args)
}
