// Every policy word the UI shows, in one place so tests can check each one.
// The words of reasons, axis values and layers are generated from the Go
// table (backend/policy/words.go, `make bindings`): one place for each fact,
// the same text in the window, the TUI and the CLI.
import { approvalWords, layerWords, reasonWords as generatedReasonWords, sandboxWords } from '../bridge'
import type { ApprovalPolicy, Sandbox, SandboxKind } from '../bridge'

// reasonWords is looked up by the strings the events carry (a reason the
// build does not know reads as its code).
export const reasonWords: Readonly<Record<string, string>> = generatedReasonWords

// layerText is the deciding layer in words ("Approval policy"), with what it
// means as the title; an unknown layer reads as its code.
export function layerText(layer: string): { label: string; title: string } {
  const w = (layerWords as Record<string, { label: string; text: string } | undefined>)[layer]
  return w ? { label: w.label, title: `${layer}: ${w.text}` } : { label: layer, title: layer }
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

// The selectors list their options in these orders (narrowest first), not
// in the generated table's alphabetical one.
const approvalOrder: readonly ApprovalPolicy[] = ['never', 'on-request', 'always']
const sandboxOrder: readonly SandboxKind[] = ['read-only', 'workspace-write', 'danger-full-access']
const labels = <K extends string>(order: readonly K[], w: Record<K, { label: string }>) =>
  Object.fromEntries(order.map((k) => [k, w[k].label])) as Record<K, string>
const texts = <K extends string>(order: readonly K[], w: Record<K, { text: string }>) =>
  Object.fromEntries(order.map((k) => [k, w[k].text])) as Record<K, string>

export const approvalLabels: Record<ApprovalPolicy, string> = labels(approvalOrder, approvalWords)

// One line per option of both selectors, shown beside them: "Never" alone
// reads as "never allow", which is the opposite of what it does.
export const approvalDescriptions: Record<ApprovalPolicy, string> = texts(approvalOrder, approvalWords)

export const sandboxDescriptions: Record<SandboxKind, string> = texts(sandboxOrder, sandboxWords)

export const sandboxLabels: Record<SandboxKind, string> = labels(sandboxOrder, sandboxWords)

// What allowed a call, from PermissionGranted.source.
export function grantSourceText(source: string): string {
  if (source === 'sandbox+policy') return 'allowed by sandbox and policy'
  if (source === 'human:once') return 'allowed once by you'
  if (source === 'human:always') return 'always allowed by you'
  if (source.startsWith('session-grant:')) return `allowed by session grant ${source.slice(14)}`
  if (source.startsWith('workspace-rule:')) return `allowed by workspace rule ${source.slice(15)}`
  if (source.startsWith('trusted-mcp:')) return `allowed: trusted server ${source.slice(12)}`
  if (source === 'policy-never') return 'allowed by approval policy "Never ask"'
  if (source.startsWith('answerer:')) return `allowed by ${answererText(source.slice(9))}`
  if (source.startsWith('rule:')) {
    const rest = source.slice(5)
    const colon = rest.indexOf(':')
    return colon < 0 ? `allowed by rule ${rest}` : `allowed by ${rest.slice(0, colon)} rule ${rest.slice(colon + 1)}`
  }
  return `allowed (${source})`
}

// answererText names an answerer from its layer detail ("model:claude-haiku-4-5",
// "command:corp-check", "hook:corp-guard"), as the gate's trace does.
export function answererText(detail: string): string {
  const colon = detail.indexOf(':')
  const kind = colon < 0 ? detail : detail.slice(0, colon)
  const name = colon < 0 ? '' : detail.slice(colon + 1)
  if (kind === 'model') return name ? `reviewer model (${name})` : 'reviewer model'
  return name ? `${kind} \`${name}\`` : kind
}

// deniedText says who refused a call: an answerer or a hook by name, else
// from the event's `by`.
export function deniedText(d: { by?: unknown; layer?: unknown; layer_detail?: unknown }): string {
  const detail = typeof d.layer_detail === 'string' ? d.layer_detail : ''
  if (d.layer === 'answerer' && detail) return `denied by ${answererText(detail)}`
  const by = typeof d.by === 'string' ? d.by : ''
  return deniedByText[by] ?? `denied (${by})`
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
// system message "error: …" with the provider's own message inside. The
// words come first; the provider's raw message is kept apart as detail (the
// chat folds it away).
export function modelErrorParts(note: string): { text: string; detail: string } | null {
  if (!note.startsWith('error: ')) return null
  const m = note.slice(7)
  const w = (text: string) => ({ text, detail: m })
  if (/\b401\b|unauthori[sz]ed|invalid.{0,10}api.?key|authentication/i.test(m)) return w('The model provider refused the API key. Check it in Settings.')
  if (/\b403\b|forbidden|permission/i.test(m)) return w('The model provider refused the request (not allowed for this key or model).')
  if (/\b404\b|not.?found|model_not_found/i.test(m)) return w('The model provider does not know this model. Pick another in Settings.')
  if (/\b429\b|rate.?limit|too many requests/i.test(m)) return w('The model provider is rate-limiting this key: wait a moment, then Retry.')
  if (/\b(500|502|503|504|529)\b|overloaded|unavailable|bad gateway/i.test(m)) return w('The model provider is having trouble right now: Retry in a moment.')
  if (/connection refused|no such host|dial tcp|i\/o timeout|deadline exceeded|network is unreachable/i.test(m)) return w('Warden cannot reach the model provider. Check the base URL and your connection.')
  return { text: `The model request failed: ${m}`, detail: '' }
}

// modelErrorText is the whole note in one line: the words, then the
// provider's message in brackets.
export function modelErrorText(note: string): string | null {
  const p = modelErrorParts(note)
  if (!p) return null
  return p.detail ? `${p.text} (${p.detail})` : p.text
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
  if (source.startsWith('answerer:')) return answererText(source.slice(9))
  if (source.startsWith('network-allow:')) return `[network] allow ${source.slice(14)}`
  if (source.startsWith('browser-call:')) return `the browser call on ${source.slice(13)}`
  // A refused connection's source is the reason it was refused.
  if (reasonWords[source]) return reasonLabel(source)
  return source
}

// tokensText is a token count as the status bar shows it: 950, 12.3k, 1.2M.
export function tokensText(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 0 : 1)}M`
  if (n >= 1000) return `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k`
  return String(Math.max(0, Math.round(n)))
}
