// Every policy word the UI shows, in one place so tests can check each one.
import type { ApprovalPolicy, Sandbox, SandboxKind } from '../bridge'

export const reasonWords: Record<string, string> = {
  'sandbox-rejected': 'Sandbox: the current sandbox does not allow this',
  'policy-always': 'Approval policy "Always ask": every action is asked',
  'destructive-effect': 'Destructive: can remove or overwrite work for good',
  'unknown-command': 'Unknown command: Warden cannot tell what it does',
  'network-request': 'Network: reaches the network',
  'untrusted-mcp-server': 'Untrusted MCP server: its tools are not trusted yet',
  'protected-path': 'Protected path: writes where code or config runs later (git hooks, .warden, rc files, lockfiles, .env)',
  'desktop-control': 'Desktop control: moves the mouse or types on your desktop',
  'outside-workspace': 'Outside the workspace: writes outside the workspace, its writable roots and /tmp (Full access)',
  escalation: "Escalation: the command failed in the cage its classification gave it and asks to run with the sandbox's full reach",
  'secret-read': "Secret: reads a key, credential, browser profile or Warden's own data that the sandbox hides",
  'planning-freeze': 'Planning freeze: actions are paused while a plan is drafted',
  'no-approver': 'No approver: nobody was there to answer',
  'user-denied': 'Denied by you',
  'host-denied': 'Host denied: the network settings deny this host',
  'private-address': 'Private address: a loopback, private or metadata address nobody allowed',
  'answerer-denied': 'Denied by an answerer: a reviewer you configured refused it',
  'hook-denied': 'Denied by a hook: a pre-call hook you configured refused it',
}

export function reasonText(r: string): string {
  return reasonWords[r] ?? r
}

// reasonLabel is a reason's name alone, the part of its words before the
// colon ("Destructive"), for one-line places such as an audit summary.
export function reasonLabel(r: string): string {
  const w = reasonWords[r]
  if (!w) return r
  const colon = w.indexOf(': ')
  return colon < 0 ? w : w.slice(0, colon)
}

export const approvalLabels: Record<ApprovalPolicy, string> = {
  never: 'Never ask',
  'on-request': 'On request',
  always: 'Always ask',
}

// One line per option of both selectors, shown beside them: "Never" alone
// reads as "never allow", which is the opposite of what it does.
export const approvalDescriptions: Record<ApprovalPolicy, string> = {
  never: 'Never asks you: runs everything the sandbox admits; what would need you is refused.',
  'on-request': 'Asks when an action is destructive, reaches the network, touches protected files, or is unknown outside the cage.',
  always: 'Asks you before every action (plans and questions excepted).',
}

export const sandboxDescriptions: Record<SandboxKind, string> = {
  'read-only': 'Reads anything, writes nothing: commands run in a read-only cage.',
  'workspace-write': 'Writes only in the workspace and its writable roots: commands run in the cage, network only when turned on.',
  'danger-full-access':
    'Can write anywhere and reach the network: a command runs in the cage its classification gives it, and as you only once you approve it.',
}

export const sandboxLabels: Record<SandboxKind, string> = {
  'read-only': 'Read only',
  'workspace-write': 'Workspace write',
  'danger-full-access': 'Full access',
}

// What allowed a call, from PermissionGranted.source.
export function grantSourceText(source: string): string {
  if (source === 'sandbox+policy') return 'allowed by sandbox and policy'
  if (source === 'human:once') return 'allowed once by you'
  if (source === 'human:always') return 'always allowed by you'
  if (source.startsWith('session-grant:')) return `allowed by session grant ${source.slice(14)}`
  if (source.startsWith('workspace-rule:')) return `allowed by workspace rule ${source.slice(15)}`
  if (source.startsWith('trusted-mcp:')) return `allowed: trusted server ${source.slice(12)}`
  if (source === 'policy-never') return 'allowed by approval policy "Never ask"'
  return `allowed (${source})`
}

export const deniedByText: Record<string, string> = {
  sandbox: 'denied by the sandbox',
  user: 'denied by you',
  freeze: 'denied by the planning freeze',
  'no-approver': 'denied: no approver',
}

export const fullAccessWarning =
  'Full access runs every command outside the cage: it can write anywhere and reach the network. Switch this session to Full access?'

// Never ask with Full access: nothing confines an action and nobody is asked.
export const neverFullAccessWarning =
  'Never ask with Full access runs every action the model chooses outside the cage and without asking you: it can delete anything you can and reach the network. Use this pair only in a throw-away machine. Continue?'

export interface Remedy {
  // What the button changes, exactly ("Turn network on for this session").
  label: string
  // What the item says once the session already has it.
  done: string
  apply(s: Sandbox): Sandbox
  // Whether the session's sandbox already admits what was denied.
  applied(s: Sandbox): boolean
  // Full access is never a silent click.
  confirm?: string
}

// The remedy strings backend/policy/sandbox.go writes, as one-click actions.
export function remedyAction(remedy: string): Remedy | null {
  switch (remedy) {
    case 'switch the sandbox to workspace-write':
      return {
        label: 'Switch this session to Workspace write',
        done: 'This session is in Workspace write now',
        apply: (s) => ({ ...s, kind: 'workspace-write' }),
        applied: (s) => s.kind !== 'read-only',
      }
    case 'turn network access on':
      return {
        label: 'Turn network on for this session',
        done: 'Network is on for this session now',
        apply: (s) => ({ ...s, kind: s.kind === 'read-only' ? 'workspace-write' : s.kind, network_access: true }),
        applied: (s) => s.kind === 'danger-full-access' || (s.kind === 'workspace-write' && s.network_access),
      }
    case 'add the folder as a writable root, or switch the sandbox to danger-full-access':
      return {
        label: 'Switch this session to Full access',
        done: 'This session is in Full access now',
        apply: (s) => ({ ...s, kind: 'danger-full-access' }),
        applied: (s) => s.kind === 'danger-full-access',
        confirm: fullAccessWarning,
      }
  }
  return null
}

// sandboxText is one side of a sandbox change in words ("Workspace write
// (network on)"); an unknown kind is shown as the engine wrote it.
export function sandboxText(v: unknown): string {
  const o = (v ?? {}) as { kind?: unknown; network_access?: unknown }
  const kind = typeof o.kind === 'string' ? o.kind : ''
  const label = sandboxLabels[kind as SandboxKind] ?? kind
  return kind === 'workspace-write' ? `${label} (network ${o.network_access ? 'on' : 'off'})` : label
}

// approvalText is an approval policy in the selector's words.
export function approvalText(v: unknown): string {
  const p = typeof v === 'string' ? v : ''
  return approvalLabels[p as ApprovalPolicy] ?? p
}

// Both axes of a session in the status bar's words, for every place that
// says which session is asking ("Approval: On request · Sandbox: Workspace
// write (network off)").
export function axesText(approval: ApprovalPolicy, sandbox: Sandbox): string {
  const net = sandbox.kind === 'workspace-write' ? ` (network ${sandbox.network_access ? 'on' : 'off'})` : ''
  return `Approval: ${approvalLabels[approval]} · Sandbox: ${sandboxLabels[sandbox.kind]}${net}`
}

// A refused workspace folder in words, from the backend's error text.
export function workspaceErrorText(path: string, message: string): string {
  if (/no such file or directory/i.test(message)) return `The folder ${path} does not exist. Check the path, or create the folder first.`
  if (/not a directory/i.test(message)) return `${path} is a file, not a folder. Give the folder the agent should work in.`
  if (/permission denied/i.test(message)) return `Warden may not open ${path} (permission denied).`
  if (/workspace is empty/i.test(message)) return 'Give the folder the agent should work in.'
  return `This folder cannot be used: ${message}`
}

// A turn that ended in a model error, in words: the runtime notes it as a
// system message "error: …" with the provider's own message inside.
export function modelErrorText(note: string): string | null {
  if (!note.startsWith('error: ')) return null
  const m = note.slice(7)
  if (/\b401\b|unauthori[sz]ed|invalid.{0,10}api.?key|authentication/i.test(m)) return `The model provider refused the API key. Check it in Settings. (${m})`
  if (/\b403\b|forbidden|permission/i.test(m)) return `The model provider refused the request (not allowed for this key or model). (${m})`
  if (/\b404\b|not.?found|model_not_found/i.test(m)) return `The model provider does not know this model. Pick another in Settings. (${m})`
  if (/\b429\b|rate.?limit|too many requests/i.test(m)) return `The model provider is rate-limiting this key: wait a moment, then Retry. (${m})`
  if (/\b(500|502|503|504|529)\b|overloaded|unavailable|bad gateway/i.test(m)) return `The model provider is having trouble right now: Retry in a moment. (${m})`
  if (/connection refused|no such host|dial tcp|i\/o timeout|deadline exceeded|network is unreachable/i.test(m)) return `Warden cannot reach the model provider. Check the base URL and your connection. (${m})`
  return `The model request failed: ${m}`
}

// The audit trail's kinds and sources in words: the log keeps the engine's
// names (and the detail pane shows them beside the raw event), the list
// says what happened.
export const kindWords: Record<string, string> = {
  permission_requested: 'Asked',
  permission_granted: 'Allowed',
  permission_denied: 'Denied',
  tool_invocation_started: 'Tool started',
  tool_invocation_completed: 'Tool finished',
  tool_invocation_failed: 'Tool failed',
  approval_policy_changed: 'Approval policy changed',
  sandbox_policy_changed: 'Sandbox changed',
  planning_entered: 'Planning freeze on',
  planning_exited: 'Planning freeze off',
  grant_added: 'Grant added',
  grant_revoked: 'Grant revoked',
  mcp_server_trusted: 'MCP server trusted',
  mcp_server_untrusted: 'MCP server untrusted',
  workspace_changed: 'Files changed',
  network_connection: 'Network connection',
  session_archived: 'Session archived',
  session_restored: 'Session restored',
  monitor_started: 'Monitor started',
  monitor_stopped: 'Monitor stopped',
  monitor_port_exposed: 'Dev server reachable',
}

export function kindText(kind: string): string {
  if (kindWords[kind]) return kindWords[kind]
  const s = kind.replace(/_/g, ' ')
  return s.charAt(0).toUpperCase() + s.slice(1)
}

// Who or what decided, short, for the audit list's source column.
export function sourceText(source: string): string {
  if (!source) return ''
  const fixed: Record<string, string> = {
    'sandbox+policy': 'sandbox and policy',
    'human:once': 'you, once',
    'human:always': 'you, always',
    'policy-never': 'approval policy Never ask',
    ask: 'asked you',
    user: 'you',
    model: 'the model',
    sandbox: 'the sandbox',
    freeze: 'the planning freeze',
    'no-approver': 'no approver',
  }
  if (fixed[source]) return fixed[source]
  if (source.startsWith('session-grant:')) return `session grant ${source.slice(14)}`
  if (source.startsWith('workspace-rule:')) return `workspace rule ${source.slice(15)}`
  if (source.startsWith('trusted-mcp:')) return `trusted server ${source.slice(12)}`
  if (source.startsWith('network-allow:')) return `[network] allow ${source.slice(14)}`
  if (source.startsWith('browser-call:')) return `the browser call on ${source.slice(13)}`
  // A refused connection's source is the reason it was refused.
  if (reasonWords[source]) return reasonLabel(source)
  return source
}
