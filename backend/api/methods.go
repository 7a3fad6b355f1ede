package api

import (
	"context"

	"github.com/warden-dev/warden/backend/checkpoint"
	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
	"github.com/warden-dev/warden/backend/telemetry"
)

// The API. Each variable is one method; Methods lists them in this order.
var (
	Info = byHand(define("Info", "describes the build and, when connected, the runtime (model, demo, cage).", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, _ None) (runtime.Info, error) { return svc.Info(ctx) })))
	FrontendReady = byHand(define("FrontendReady", "is called by the frontend once its shell has mounted.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, _ None) (None, error) {
			return noErr(svc.FrontendReady(ctx))
		})))

	ListSessions = define("ListSessions", "lists every session.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, _ None) ([]runtime.Session, error) {
			return svc.ListSessions(ctx)
		}))
	CreateSession = define("CreateSession", "starts a session in a workspace.", Both,
		onRuntime((*runtime.Service).CreateSession))
	RenameSession = define("RenameSession", "renames a session.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a RenameSessionArgs) (runtime.Session, error) {
			return svc.RenameSession(ctx, a.SessionID, a.Title)
		}))
	ArchiveSession = define("ArchiveSession", "is the window's Delete: the session leaves the list and its events (the audit trail) are kept.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionArgs) (runtime.Session, error) {
			return svc.ArchiveSession(ctx, a.SessionID)
		}))
	RestoreSession = define("RestoreSession", "brings an archived session back.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionArgs) (runtime.Session, error) {
			return svc.RestoreSession(ctx, a.SessionID)
		}))
	DeleteSession = define("DeleteSession", "purges a session for good: its events, monitors and browser.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionArgs) (None, error) {
			return noErr(svc.DeleteSession(ctx, a.SessionID))
		}))
	SessionEvents = define("SessionEvents", "pages a session's events, oldest first (forward, or a tail page before a seq).", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionEventsArgs) ([]runtime.Event, error) {
			if a.Tail || a.BeforeSeq != 0 {
				return svc.SessionEventsBefore(ctx, a.SessionID, a.BeforeSeq, a.Limit)
			}
			return svc.SessionEvents(ctx, a.SessionID, a.AfterSeq, a.Limit)
		}))
	SendMessage = define("SendMessage", "starts a turn (or runs a `!` command, or toggles /plan).", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SendMessageArgs) (None, error) {
			return noErr(svc.SendMessage(ctx, a.SessionID, a.Text))
		}))
	Retry = define("Retry", "runs the model again on the conversation as it stands (after a model error).", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionArgs) (None, error) {
			return noErr(svc.Retry(ctx, a.SessionID))
		}))
	Cancel = define("Cancel", "stops a session's turn.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionArgs) (None, error) {
			return noErr(svc.Cancel(ctx, a.SessionID))
		}))
	PendingApprovals = define("PendingApprovals", "lists the asks waiting for a human.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a PendingArgs) ([]runtime.Approval, error) {
			return svc.PendingApprovals(ctx, a.SessionID)
		}))
	Answer = define("Answer", "answers one ask.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a runtime.AnswerArgs) (None, error) {
			return noErr(svc.Answer(ctx, answerVia(ctx, a)))
		}))
	SetApprovalPolicy = define("SetApprovalPolicy", "changes a session's approval axis.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SetApprovalArgs) (runtime.Session, error) {
			return svc.SetApprovalPolicy(ctx, a.SessionID, a.Approval)
		}))
	SetSandboxPolicy = define("SetSandboxPolicy", "changes a session's sandbox axis.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SetSandboxArgs) (runtime.Session, error) {
			return svc.SetSandboxPolicy(ctx, a.SessionID, a.Sandbox)
		}))
	SetPlanning = define("SetPlanning", "enters or lifts the planning freeze.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SetPlanningArgs) (runtime.Session, error) {
			return svc.SetPlanning(ctx, a.SessionID, a.Planning)
		}))
	ListGrants = define("ListGrants", "lists a session's grants, its workspace's rules and trusts.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionArgs) ([]runtime.GrantView, error) {
			return svc.ListGrants(ctx, a.SessionID)
		}))
	RevokeGrant = define("RevokeGrant", "revokes a grant, rule or MCP trust.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a runtime.RevokeGrantArgs) (None, error) {
			return noErr(svc.RevokeGrant(ctx, a))
		}))
	TrustMcpServer = define("TrustMcpServer", "trusts an MCP server of a session's workspace, for the session or the workspace, and starts it.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a runtime.TrustMcpArgs) (None, error) {
			return noErr(svc.TrustMcpServer(ctx, a))
		}))
	McpPending = nullable(define("McpPending", "lists the servers of a session's workspace it has not trusted: the trust card.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionArgs) ([]runtime.McpPendingServer, error) {
			return svc.McpPending(ctx, a.SessionID)
		})))
	AuditLog = define("AuditLog", "lists a session's permission and tool events.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a AuditLogArgs) ([]runtime.Event, error) {
			return svc.AuditLog(ctx, a.SessionID, a.Kinds, a.Limit, a.BeforeSeq)
		}))
	ExportAudit = define("ExportAudit", "renders a session's audit as JSONL or CSV.", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a ExportAuditArgs) (runtime.Export, error) {
			return svc.ExportAudit(ctx, a.SessionID, a.Format)
		}))
	KillAgent = define("KillAgent", "stops a subagent or monitor (human only).", Both,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a KillAgentArgs) (None, error) {
			return noErr(svc.KillAgent(ctx, a.SessionID, a.AgentID))
		}))
	UndoCall = define("UndoCall", "restores the files one call changed; a conflict with later changes comes back for the human to confirm (then again with Force).", Both,
		onRuntime((*runtime.Service).UndoCall))
	RestoreTo = define("RestoreTo", "restores the workspace to its state at a message.", Both,
		onRuntime((*runtime.Service).RestoreTo))
	// ChangeSets is HTTP only: Wails' model generator cannot spell
	// checkpoint.Change's embedded struct; the window gets change sets from
	// pushed events.
	ChangeSets = define("ChangeSets", "lists a session's recorded change sets.", HTTP,
		onRuntime(func(svc *runtime.Service, ctx context.Context, a SessionArgs) ([]checkpoint.Change, error) {
			return svc.ChangeSets(ctx, a.SessionID)
		}))

	GetSettings = define("GetSettings", "reads the user's settings; the API key itself is never sent.", Both,
		onSettings(func(svc *settings.Service, ctx context.Context, _ None) (settings.Settings, error) {
			return svc.GetSettings(ctx)
		}))
	SaveModelSettings = define("SaveModelSettings", "writes the model to config.toml and switches to it.", Both,
		onSettings((*settings.Service).SaveModelSettings))
	SaveDefaults = define("SaveDefaults", "writes the defaults new sessions start with.", Both,
		onSettings((*settings.Service).SaveDefaults))
	SaveNetworkSettings = define("SaveNetworkSettings", "writes the [network] table (presets, allow, deny).", Both,
		onSettings((*settings.Service).SaveNetwork))
	ListModels = nullable(define("ListModels", "asks a provider which models it offers.", Both,
		onSettings((*settings.Service).ListModels)))
	TestConnection = define("TestConnection", "checks a provider's address, key and model.", Both,
		onSettings((*settings.Service).TestConnection))
	McpServers = nullable(define("McpServers", "lists the configured MCP servers with their state and tools.", Both,
		onSettings(func(svc *settings.Service, ctx context.Context, _ None) ([]mcp.ServerStatus, error) {
			return svc.McpServers(ctx)
		})))
	McpLog = define("McpLog", "returns the tail of an MCP server's stderr log.", Both,
		onSettings((*settings.Service).McpLog))
	TelemetryStatus = define("TelemetryStatus", "reads the OpenTelemetry export's state: endpoint, last success, queued records, last error.", Both,
		onSettings(func(svc *settings.Service, ctx context.Context, _ None) (telemetry.ExportStatus, error) {
			return svc.TelemetryStatus(ctx)
		}))

	// The desktop window's own: native dialogs and the cage probe.
	SaveAuditExport = byHand(define[ExportAuditArgs, SavedFile]("SaveAuditExport",
		"renders a session's audit and writes it where the human chooses in the native save dialog.", Window, nil))
	PickFolder = byHand(define[PickFolderArgs, string]("PickFolder",
		"asks the human for a folder in the native picker (\"\" when cancelled).", Window, nil))
	SandboxStatus = byHand(define[None, CageStatus]("SandboxStatus",
		"probes the OS sandbox now.", Window, nil))
)

// Methods is the API, in definition order (a copy: callers may keep it).
func Methods() []*Method { return append([]*Method(nil), all...) }

// On lists the methods a transport carries, in definition order.
func On(t Transport) []*Method {
	var out []*Method
	for _, m := range Methods() {
		if m.Transports&t != 0 {
			out = append(out, m)
		}
	}
	return out
}
