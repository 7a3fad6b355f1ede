package store

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/warden-dev/warden/backend/policy"
)

// Adding a kind is a struct embedding event plus one registration line
// below (register, registerAudit for the permission audit, registerStream for
// high-volume output), and a sample line in testdata/events.jsonl, which
// TestCodecRoundTripEveryKind insists on. JSON field names are the stored
// format: add optional fields freely, never rename one.
var (
	KindSessionCreated          = register[SessionCreated]("session_created")
	KindSessionRenamed          = register[SessionRenamed]("session_renamed")
	KindMessageAppended         = register[MessageAppended]("message_appended")
	KindPermissionRequested     = registerAudit[PermissionRequested]("permission_requested")
	KindPermissionGranted       = registerAudit[PermissionGranted]("permission_granted")
	KindPermissionDenied        = registerAudit[PermissionDenied]("permission_denied")
	KindToolInvocationStarted   = register[ToolInvocationStarted]("tool_invocation_started")
	KindToolOutput              = registerStream[ToolOutput]("tool_output")
	KindToolInvocationCompleted = register[ToolInvocationCompleted]("tool_invocation_completed")
	KindToolInvocationFailed    = register[ToolInvocationFailed]("tool_invocation_failed")
	KindApprovalPolicyChanged   = registerAudit[ApprovalPolicyChanged]("approval_policy_changed")
	KindSandboxPolicyChanged    = registerAudit[SandboxPolicyChanged]("sandbox_policy_changed")
	KindPlanningEntered         = registerAudit[PlanningEntered]("planning_entered")
	KindPlanningExited          = registerAudit[PlanningExited]("planning_exited")
	KindPlanPresented           = register[PlanPresented]("plan_presented")
	KindGrantAdded              = registerAudit[GrantAdded]("grant_added")
	KindGrantRevoked            = registerAudit[GrantRevoked]("grant_revoked")
	KindMcpServerTrusted        = registerAudit[McpServerTrusted]("mcp_server_trusted")
	KindMcpServerUntrusted      = registerAudit[McpServerUntrusted]("mcp_server_untrusted")
	KindMonitorStarted          = register[MonitorStarted]("monitor_started")
	KindMonitorEvent            = registerStream[MonitorEvent]("monitor_event")
	KindMonitorStopped          = register[MonitorStopped]("monitor_stopped")
	KindMonitorPortExposed      = register[MonitorPortExposed]("monitor_port_exposed")
	KindSubagentStarted         = register[SubagentStarted]("subagent_started")
	KindSubagentFinished        = register[SubagentFinished]("subagent_finished")
	KindNetworkConnection       = registerAudit[NetworkConnection]("network_connection")
	KindSessionArchived         = registerAudit[SessionArchived]("session_archived")
	KindSessionRestored         = registerAudit[SessionRestored]("session_restored")
	KindWorkspaceChanged        = register[WorkspaceChanged]("workspace_changed")
	KindUnsafeChangeReverted    = registerAudit[UnsafeChangeReverted]("unsafe_change_reverted")
	KindTelemetryDropped        = register[TelemetryDropped]("telemetry_dropped")
)

// TelemetryDropped says the telemetry outbox's bound dropped queued sends
// of this session: Count records, of the events at Versions ("3-7,9"),
// never sent to the collector. The events themselves stay in the log.
type TelemetryDropped struct {
	event
	Count    int64  `json:"count"`
	Versions string `json:"versions"`
	Reason   string `json:"reason"`
}

func (t TelemetryDropped) validate() error {
	if t.Count < 1 || t.Versions == "" {
		return errors.New("count or versions is empty")
	}
	return nil
}

// SessionArchived hides a session from the list; its events stay, and
// its chain still verifies. Only SessionRestored brings it back; only an
// explicit purge (DeleteSession) destroys it.
type SessionArchived struct {
	event
	By string `json:"by,omitempty"`
}

// SessionRestored brings an archived session back into the list.
type SessionRestored struct {
	event
	By string `json:"by,omitempty"`
}

// SessionCreated is always version 1 of a session; CreateSession writes it.
type SessionCreated struct {
	event
	Workspace string                `json:"workspace"` // absolute path
	Title     string                `json:"title,omitempty"`
	ParentID  string                `json:"parent_id,omitempty"` // subagent sessions
	Approval  policy.ApprovalPolicy `json:"approval"`
	Sandbox   policy.SandboxPolicy  `json:"sandbox"`
	Planning  bool                  `json:"planning,omitempty"`
}

// SessionRenamed changes the session's title.
type SessionRenamed struct {
	event
	Title string `json:"title"`
}

// ToolCall is a tool call the model asked for inside a message.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// MessageAppended is one chat message: role user, assistant, system or tool.
type MessageAppended struct {
	event
	MessageID  string     `json:"message_id,omitempty"`
	Role       string     `json:"role"`
	Text       string     `json:"text,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"` // role tool: the call it answers
	Model      string     `json:"model,omitempty"`
	// Images are what the model is shown besides Text (a tool's
	// screenshots, already capped and downscaled for the model).
	Images []Image `json:"images,omitempty"`
	// Usage is what producing an assistant message cost, as the provider
	// reported it (absent when it reported nothing).
	Usage *Usage `json:"usage,omitempty"`
}

// Usage counts the tokens of one model response: InputTokens is what the
// request held (the context used, with the cached parts), OutputTokens what
// the model wrote.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// ContextTokens is the whole request the model read, cached parts
	// included (providers count those differently).
	ContextTokens int64 `json:"context_tokens,omitempty"`
}

// Image is one picture inside a message; Data is base64 in JSON.
type Image struct {
	MimeType string `json:"mime_type"`
	Data     []byte `json:"data"`
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
	// Omitted says why the picture was left out of the message (too large
	// even after downscaling, an unknown format); Data is empty then.
	Omitted string `json:"omitted,omitempty"`
}

func (m MessageAppended) validate() error {
	switch m.Role {
	case "user", "assistant", "system", "tool":
		return nil
	}
	return fmt.Errorf("role %q is not user, assistant, system or tool", m.Role)
}

// PermissionRequested parks a call until a human answers; the answer is a
// PermissionGranted or PermissionDenied with the same RequestID. Until then
// it is listed by PendingRequests, across restarts.
type PermissionRequested struct {
	event
	RequestID string          `json:"request_id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args,omitempty"`
	Risk      policy.Risk     `json:"risk,omitempty"`
	Reasons   []policy.Reason `json:"reasons"`
	Signature string          `json:"signature"`
	Effects   []policy.Effect `json:"effects,omitempty"`
	Trace     []policy.Step   `json:"trace,omitempty"`
	// Preview is what the prompt shows (a write's diff); AlwaysRefused why
	// "always" is not offered; Direct marks a tool's own question
	// (present_plan), which an axis change never re-decides. Recorded so an
	// ask restored after a restart is the same prompt.
	Preview       string `json:"preview,omitempty"`
	AlwaysRefused string `json:"always_refused,omitempty"`
	Direct        bool   `json:"direct,omitempty"`
}

func (p PermissionRequested) validate() error { return needIDs(p.RequestID, p.CallID, p.Tool) }

// PermissionGranted lets a call run. Source says what allowed it
// (sandbox+policy, session-grant:<sig>, human:once, ...). An allow that was
// never asked carries its own fresh RequestID.
type PermissionGranted struct {
	event
	RequestID string        `json:"request_id"`
	CallID    string        `json:"call_id"`
	Tool      string        `json:"tool"`
	Signature string        `json:"signature,omitempty"`
	Source    string        `json:"source"`
	Trace     []policy.Step `json:"trace,omitempty"`
	// Via names the ask's transition that decided it (package
	// backend/gate/ask): allow, answer-once, answer-always,
	// supersede-allow, answerer-allow. Empty in logs written before it.
	Via string `json:"via,omitempty"`
	// Layer is what decided (policy.Layer) and LayerDetail names it (the
	// grant, the answerer's kind, the front end a human answered from);
	// empty in logs written before them.
	Layer       policy.Layer `json:"layer,omitempty"`
	LayerDetail string       `json:"layer_detail,omitempty"`
	// Detail is an answerer's reason for its allow ("reads only the
	// workspace"); empty for every other allow.
	Detail string `json:"detail,omitempty"`
}

func (p PermissionGranted) validate() error {
	if p.Source == "" {
		return errors.New("source is empty")
	}
	return needIDs(p.RequestID, p.CallID, p.Tool)
}

// DeniedBy says who refused a call.
type DeniedBy string

const (
	DeniedBySandbox    DeniedBy = "sandbox"
	DeniedByUser       DeniedBy = "user"
	DeniedByFreeze     DeniedBy = "freeze"
	DeniedByNoApprover DeniedBy = "no-approver"
)

// PermissionDenied refuses a call before it runs; the model reads the
// refusal and re-plans. By says who refused it.
type PermissionDenied struct {
	event
	RequestID string        `json:"request_id"`
	CallID    string        `json:"call_id"`
	Tool      string        `json:"tool"`
	Signature string        `json:"signature,omitempty"`
	Reason    policy.Reason `json:"reason"`
	Detail    string        `json:"detail,omitempty"`
	Remedy    string        `json:"remedy,omitempty"`
	By        DeniedBy      `json:"by"`
	Trace     []policy.Step `json:"trace,omitempty"`
	// Via names the ask's transition (deny, answer-deny, time-out, cancel,
	// supersede-deny, answerer-deny); empty in logs written before it.
	Via string `json:"via,omitempty"`
	// Layer and LayerDetail: as PermissionGranted's.
	Layer       policy.Layer `json:"layer,omitempty"`
	LayerDetail string       `json:"layer_detail,omitempty"`
}

func (p PermissionDenied) validate() error {
	switch p.By {
	case DeniedBySandbox, DeniedByUser, DeniedByFreeze, DeniedByNoApprover:
	default:
		return fmt.Errorf("by %q is not sandbox, user, freeze or no-approver", p.By)
	}
	if p.Reason == "" {
		return errors.New("reason is empty")
	}
	return needIDs(p.RequestID, p.CallID, p.Tool)
}

func needIDs(requestID, callID, tool string) error {
	switch {
	case requestID == "":
		return errors.New("request_id is empty")
	case callID == "":
		return errors.New("call_id is empty")
	case tool == "":
		return errors.New("tool is empty")
	}
	return nil
}

// ToolInvocationStarted follows a PermissionGranted for the same CallID.
type ToolInvocationStarted struct {
	event
	// RequestID is the permission's request that let the call run (empty
	// in logs written before it).
	RequestID string          `json:"request_id,omitempty"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args,omitempty"`
}

// ToolOutput is a chunk of streamed output (shell stdout/stderr).
type ToolOutput struct {
	event
	CallID string `json:"call_id"`
	Stream string `json:"stream"`
	Chunk  string `json:"chunk"`
}

// ToolInvocationCompleted ends a call that ran; Result is the tool's own JSON.
type ToolInvocationCompleted struct {
	event
	RequestID  string          `json:"request_id,omitempty"`
	CallID     string          `json:"call_id"`
	Tool       string          `json:"tool"`
	Result     json.RawMessage `json:"result,omitempty"`
	Output     string          `json:"output,omitempty"`
	ExitCode   *int            `json:"exit_code,omitempty"`
	DurationMs int64           `json:"duration_ms"`
}

// ToolInvocationFailed ends a call whose tool returned an error.
type ToolInvocationFailed struct {
	event
	RequestID  string `json:"request_id,omitempty"`
	CallID     string `json:"call_id"`
	Tool       string `json:"tool"`
	Error      string `json:"error"`
	DurationMs int64  `json:"duration_ms"`
	// Via is fail (the tool failed), stale (its paths changed after the
	// decision; nothing ran) or interrupt (the process ended while it ran).
	Via string `json:"via,omitempty"`
}

// ApprovalPolicyChanged and the other axis events: By is who changed it
// ("user", "cli", "resume").
type ApprovalPolicyChanged struct {
	event
	From policy.ApprovalPolicy `json:"from"`
	To   policy.ApprovalPolicy `json:"to"`
	By   string                `json:"by,omitempty"`
}

// SandboxPolicyChanged records a change of the structural axis.
type SandboxPolicyChanged struct {
	event
	From policy.SandboxPolicy `json:"from"`
	To   policy.SandboxPolicy `json:"to"`
	By   string               `json:"by,omitempty"`
}

// PlanningEntered sets the planning freeze.
type PlanningEntered struct {
	event
	By string `json:"by,omitempty"`
}

// PlanningExited lifts the planning freeze (a human only).
type PlanningExited struct {
	event
	By string `json:"by,omitempty"`
}

// PlanPresented is the plan the model showed for approval.
type PlanPresented struct {
	event
	Plan string `json:"plan"`
}

// GrantAdded records a grant made in this session (scope session or
// workspace); AddGrant writes it.
type GrantAdded struct {
	event
	Grant     policy.Grant `json:"grant"`
	RequestID string       `json:"request_id,omitempty"` // the request whose answer made it
}

// GrantRevoked withdraws a grant.
type GrantRevoked struct {
	event
	GrantID   string `json:"grant_id"`
	Signature string `json:"signature"`
}

// McpServerTrusted records trust in an MCP server at a launch-config hash
// and per-tool description/schema hashes.
type McpServerTrusted struct {
	event
	Server     string            `json:"server"`
	ConfigHash string            `json:"config_hash"`
	ToolHashes map[string]string `json:"tool_hashes,omitempty"`
	Persistent bool              `json:"persistent,omitempty"` // stored for the workspace, not only this session
}

// McpServerUntrusted withdraws trust in an MCP server.
type McpServerUntrusted struct {
	event
	Server string `json:"server"`
}

// MonitorStarted begins a long-running watched process (dev server, tests).
type MonitorStarted struct {
	event
	MonitorID string `json:"monitor_id"`
	CallID    string `json:"call_id,omitempty"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd,omitempty"`
}

// MonitorEvent is one line a monitor reported.
type MonitorEvent struct {
	event
	MonitorID string `json:"monitor_id"`
	Stream    string `json:"stream,omitempty"`
	Line      string `json:"line"`
}

// MonitorStopped ends a monitor.
type MonitorStopped struct {
	event
	MonitorID string `json:"monitor_id"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// MonitorPortExposed says a monitor's listening port is reachable from the
// host: a port of the cage's own network namespace forwarded to a loopback
// port of the host (or, unconfined, the port itself). Detected is set when
// nobody named the port (the forwarder saw the listener).
type MonitorPortExposed struct {
	event
	MonitorID string `json:"monitor_id"`
	Port      int    `json:"port"` // the port the command listens on
	URL       string `json:"url"`  // where the host reaches it
	Detected  bool   `json:"detected,omitempty"`
}

// SubagentStarted links a child session running a task for this one.
type SubagentStarted struct {
	event
	SubagentID string `json:"subagent_id"` // the child session
	CallID     string `json:"call_id,omitempty"`
	Task       string `json:"task"`
	// Background children report to the parent's model at its next turn.
	Background bool `json:"background,omitempty"`
}

// SubagentFinished reports a child session's outcome.
type SubagentFinished struct {
	event
	SubagentID string `json:"subagent_id"`
	Result     string `json:"result,omitempty"`
	Error      string `json:"error,omitempty"`
	Background bool   `json:"background,omitempty"`
	Killed     bool   `json:"killed,omitempty"` // stopped by the human
}

// NetworkConnection is one connection a caged command made (or was refused)
// through Warden's proxy: the destination, what allowed or refused it, and
// the bytes each way. CallID is the call whose command connected.
type NetworkConnection struct {
	event
	CallID     string `json:"call_id"`
	Host       string `json:"host"`
	Port       int    `json:"port"`
	Addr       string `json:"addr,omitempty"`  // the address dialled
	Proto      string `json:"proto,omitempty"` // connect | http | socks5
	Allowed    bool   `json:"allowed"`
	AllowedBy  string `json:"allowed_by,omitempty"` // network-allow:<pattern>, human:always, session-grant:<sig>, ...
	Reason     string `json:"reason,omitempty"`     // refused: why
	Detail     string `json:"detail,omitempty"`
	Error      string `json:"error,omitempty"` // admitted but failed (resolve, dial)
	BytesUp    int64  `json:"bytes_up"`
	BytesDown  int64  `json:"bytes_down"`
	DurationMs int64  `json:"duration_ms"`
}

func (n NetworkConnection) validate() error {
	if n.Host == "" || n.Port < 1 || n.Port > 65535 {
		return fmt.Errorf("destination %q:%d is not a host and port", n.Host, n.Port)
	}
	return needIDs("-", n.CallID, "-")
}
