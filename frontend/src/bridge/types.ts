// The Go API as the UI sees it (runtime.Service, see api.md). Every backend
// call in the frontend goes through a Bridge; components and stores never
// touch window.go or fetch directly.

export type ApprovalPolicy = 'never' | 'on-request' | 'always'
export type SandboxKind = 'read-only' | 'workspace-write' | 'danger-full-access'
export type Risk = 'low' | 'medium' | 'high'

export interface AppInfo {
  name: string
  version: string
  demo: boolean
  model: string
  caged: boolean
  cage_reason: string
  data_path: string
}

export interface Sandbox {
  kind: SandboxKind
  network_access: boolean
  writable_roots: string[]
}

export interface Session {
  id: string
  parent_id?: string
  workspace: string
  title: string
  approval: ApprovalPolicy
  sandbox: Sandbox
  planning: boolean
  archived?: boolean
  created_at: number
  updated_at: number
  busy: boolean
  pending: number
}

export interface WardenEvent {
  seq: number
  session_id: string
  version: number
  kind: string
  at: number
  data: Record<string, unknown>
}

export interface TraceStep {
  step: string
  saw: string
  concluded: string
}

export interface Approval {
  request_id: string
  session_id: string
  call_id: string
  tool: string
  args: unknown
  risk: Risk
  reasons: string[]
  signature: string
  // Why "always" is not offered for this ask (a protected path), if so.
  always_refused?: string
  effects: unknown[]
  trace: TraceStep[]
  preview?: string
  mcp?: McpCallInfo
  created_at: number
  live?: boolean
}

// The MCP part of an approval (runtime.McpInfo). Descriptions and the schema
// are server data, escaped by the backend; show them as text only.
export interface McpCallInfo {
  server: string
  tool?: string
  // Why the tool is not trusted: the server is not, its launch config
  // changed, the tool is new, or its description/schema changed.
  change?: 'server' | 'config' | 'new' | 'changed'
  description?: string
  old_description?: string
  schema?: string
  description_diff?: string
}

// One server of the session's workspace it has not trusted: the trust card.
export interface McpPendingServer {
  name: string
  source: string
  transport: 'stdio' | 'http'
  launch: string
  command?: string
  args?: string[]
  url?: string
  env_names?: string[]
  workspace: string
  changed?: boolean
}

export type McpTrustScope = 'session' | 'workspace'

export interface GrantView {
  id: string
  // mcp-server: an MCP server trust (scope session or workspace); older
  // backends said mcp-trust.
  kind: 'grant' | 'rule' | 'mcp-server' | 'mcp-trust'
  signature: string
  scope: 'session' | 'workspace' | 'persistent'
  reasons: string[]
  created_at: number
  expires_at?: number
  uses: number
  server?: string
}

export type Push =
  | { type: 'event'; event: WardenEvent }
  | { type: 'delta'; session_id: string; text: string }
  | { type: 'session'; session: Session }
  | { type: 'session-deleted'; session_id: string }
  | { type: 'approval'; approval: Approval }
  | { type: 'approval-resolved'; request_id: string }

export interface AnswerArgs {
  request_id: string
  answer: 'once' | 'always' | 'deny'
  scope?: 'session' | 'workspace'
  expires_in_sec?: number
  note?: string
  trust_server?: 'session' | 'persistent'
}

export interface CreateSessionArgs {
  workspace: string
  title?: string
  approval?: ApprovalPolicy
  sandbox?: Sandbox
}

// Settings (settings-api.md): the user's config file, the model provider and
// the MCP servers. The API key itself never crosses the bridge toward the UI.
export type ProviderId = 'demo' | 'anthropic' | 'openai' | 'script'
export type ApiKeySource = '' | 'config' | `env:${string}`

export interface ModelSettings {
  provider: ProviderId
  model: string
  base_url: string
  api_key_set: boolean
  api_key_source: ApiKeySource
  api_key_hint: string
}

export interface ProviderInfo {
  id: ProviderId
  label: string
  needs_key: boolean
  default_base_url: string
}

export interface Defaults {
  approval: ApprovalPolicy
  sandbox: Sandbox
}

export interface Settings {
  config_path: string
  model: ModelSettings
  active_model: string
  defaults: Defaults
  providers: ProviderInfo[]
  warnings: string[] | null
  // [network]: presets to tick, allow and deny patterns (absent from an
  // older backend).
  network?: NetworkSettings
  cage?: CageView
}

export interface NetworkPreset {
  name: string
  label: string
  allow: string[]
}

export interface NetworkSettings {
  presets: NetworkPreset[]
  enabled: string[]
  allow: string[]
  deny: string[]
  command_line: string[]
}

export interface NetworkArgs {
  enabled: string[]
  allow: string[]
  deny: string[]
}

// What the OS cage hides from commands and lets through (Settings card).
export interface CageView {
  hidden: string[]
  allow_unix_sockets: string[]
  docker_socket: boolean
  limits: { processes: number; tmp_bytes: number; file_bytes: number }
}

// api_key absent = keep the stored key; clear_api_key removes it from the file.
export interface ModelArgs {
  provider: ProviderId
  model: string
  base_url: string
  api_key?: string
  clear_api_key?: boolean
}

// api_key absent = use the stored key (file, then environment).
export interface ProbeArgs {
  provider: ProviderId
  base_url: string
  api_key?: string
  model?: string
}

export interface ModelInfo {
  id: string
  display_name: string
  created_at?: string
}

export interface ConnectionResult {
  ok: boolean
  latency_ms: number
  model_count: number
  model_found: boolean
  message: string
}

export type McpServerState = 'idle' | 'starting' | 'running' | 'crashed' | 'failed' | 'stopped' | 'awaiting-trust'

export interface McpTrust {
  scope: 'session' | 'persistent'
  trusted_at: string
  config_matches: boolean
}

// Description is raw server text: render it as text, never as HTML.
export interface McpTool {
  name: string
  gate_name: string
  model_name?: string
  description: string
  hash?: string
  read_only_hint?: boolean
  trusted: boolean
  untrusted?: string
  schema_error?: string
}

// mcp.ServerStatus's JSON (backend/tools/mcp/status.go).
export interface McpServer {
  name: string
  transport: 'stdio' | 'http'
  source: string
  command?: string
  args?: string[]
  env_names?: string[]
  url?: string
  config_hash?: string
  state: McpServerState
  last_error?: string
  log_path: string
  restarts: number
  trust?: McpTrust
  tools: McpTool[] | null
}

export interface McpLog {
  server: string
  path: string
  lines: string[] | null
  truncated: boolean
}

// Where a native save dialog wrote; an empty path means the human cancelled.
export interface SavedFile {
  path: string
  bytes: number
}

// Checkpoints (backend/checkpoint): the change set a call made to the
// workspace (a workspace_changed event's data), and what an undo did.
export interface FileChange {
  path: string
  change: 'created' | 'modified' | 'deleted'
  mode?: string
  old_mode?: string
  size: number
  old_size: number
  hash?: string
  old_hash?: string
  added: number
  removed: number
  binary?: boolean
  diff?: string
  diff_omitted?: string
}

export interface Destruction {
  deleted: number
  truncated: number
  paths: string[]
  threshold: string
}

export interface WorkspaceChange {
  call_id: string
  tool?: string
  cause: 'call' | 'outside' | 'undo' | 'restore'
  undo_of?: string
  restore_to?: string
  workspace: string
  files?: FileChange[]
  omitted?: number
  skipped?: string[]
  allowed_by?: string
  caged?: boolean
  warning?: Destruction
  error?: string
}

export interface UndoResult {
  done: boolean
  id?: string
  restored: string[]
  forced?: string[]
  conflict?: { message: string; paths: string[]; later: string[] }
}

// The method table: name → [args, result]. Both transports carry exactly
// these names, so a typo is a type error rather than a 404 at run time,
// except the native dialogs, which only the desktop window has (see
// Bridge.native).
export interface Methods {
  Info: [undefined, AppInfo]
  ListSessions: [undefined, Session[]]
  CreateSession: [CreateSessionArgs, Session]
  RenameSession: [{ session_id: string; title: string }, Session]
  ArchiveSession: [{ session_id: string }, Session]
  RestoreSession: [{ session_id: string }, Session]
  DeleteSession: [{ session_id: string }, null]
  SessionEvents: [{ session_id: string; after_seq?: number; before_seq?: number; tail?: boolean; limit?: number }, WardenEvent[]]
  SendMessage: [{ session_id: string; text: string }, null]
  Cancel: [{ session_id: string }, null]
  Retry: [{ session_id: string }, null]
  PendingApprovals: [{ session_id?: string }, Approval[]]
  Answer: [AnswerArgs, null]
  SetApprovalPolicy: [{ session_id: string; approval: ApprovalPolicy }, Session]
  SetSandboxPolicy: [{ session_id: string; sandbox: Sandbox }, Session]
  SetPlanning: [{ session_id: string; planning: boolean }, Session]
  ListGrants: [{ session_id: string }, GrantView[]]
  RevokeGrant: [{ id: string; kind: 'grant' | 'mcp-server' | 'mcp-trust'; session_id?: string }, null]
  TrustMcpServer: [{ session_id: string; server: string; scope: McpTrustScope }, null]
  McpPending: [{ session_id: string }, McpPendingServer[] | null]
  AuditLog: [{ session_id: string; kinds?: string[]; limit?: number; before_seq?: number }, WardenEvent[]]
  ExportAudit: [{ session_id: string; format: 'jsonl' | 'csv' }, { filename: string; content: string }]
  KillAgent: [{ session_id: string; agent_id: string }, null]
  FrontendReady: [undefined, null]
  UndoCall: [{ session_id: string; call_id: string; force?: boolean }, UndoResult]
  RestoreTo: [{ session_id: string; message_id: string; force?: boolean }, UndoResult]
  GetSettings: [undefined, Settings]
  SaveModelSettings: [ModelArgs, Settings]
  SaveDefaults: [Defaults, Settings]
  SaveNetworkSettings: [NetworkArgs, Settings]
  ListModels: [ProbeArgs, ModelInfo[] | null]
  TestConnection: [ProbeArgs, ConnectionResult]
  McpServers: [undefined, McpServer[] | null]
  McpLog: [{ server: string; lines?: number }, McpLog]
  SaveAuditExport: [{ session_id: string; format: 'jsonl' | 'csv' }, SavedFile]
  PickFolder: [{ title?: string; default_directory?: string }, string]
}

export type Method = keyof Methods

// Which transport carries the calls. 'none' means no backend is reachable.
export type Transport = 'wails' | 'http' | 'none'

// What the transport can do beyond the method table. dialogs: the native
// save dialog and folder picker (SaveAuditExport, PickFolder) exist; only
// the desktop window has them, a browser page downloads and types paths.
export interface NativeCapabilities {
  readonly dialogs: boolean
}

export interface Bridge {
  readonly transport: Transport
  readonly native: NativeCapabilities
  call<M extends Method>(method: M, args?: Methods[M][0]): Promise<Methods[M][1]>
  // Subscribes to pushed events; returns the unsubscribe function.
  subscribe(fn: (p: Push) => void): () => void
}
