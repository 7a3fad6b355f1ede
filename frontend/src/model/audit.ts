import type { WardenEvent } from '../bridge'

// One audit row, flattened for the list, filter and export.
export interface AuditRow {
  seq: number
  at: number
  kind: string
  tool: string
  source: string
  summary: string
  trace: string
}

const s = (v: unknown) => (typeof v === 'string' ? v : '')

export function auditRow(e: WardenEvent): AuditRow {
  const d = e.data
  let source = ''
  let summary = ''
  switch (e.kind) {
    case 'permission_requested':
      source = 'ask'
      summary = `${s(d.signature)} — ${((d.reasons as string[] | undefined) ?? []).join(', ')}`
      break
    case 'permission_granted':
      source = s(d.source)
      summary = s(d.signature)
      break
    case 'permission_denied':
      source = s(d.by)
      summary = `${s(d.reason)}${d.detail ? ': ' + s(d.detail) : ''}`
      break
    case 'tool_invocation_started':
      summary = JSON.stringify(d.args ?? {})
      break
    case 'tool_invocation_failed':
      summary = s(d.error)
      break
    case 'approval_policy_changed':
      source = s(d.by)
      summary = `${s(d.from)} → ${s(d.to)}`
      break
    case 'sandbox_policy_changed': {
      source = s(d.by)
      const k = (v: unknown) => {
        const o = (v ?? {}) as { kind?: unknown; network_access?: unknown }
        return s(o.kind) + (o.network_access ? ' + network' : '')
      }
      summary = `${k(d.from)} → ${k(d.to)}`
      break
    }
    case 'grant_added':
      summary = s((d.grant as { signature?: unknown } | undefined)?.signature)
      break
    case 'grant_revoked':
      summary = s(d.signature)
      break
    default:
      source = s(d.by)
      summary = s(d.server)
  }
  const trace = Array.isArray(d.trace)
    ? (d.trace as { step?: string; concluded?: string }[]).map((t) => `${t.step}: ${t.concluded}`).join(' | ')
    : ''
  return { seq: e.seq, at: e.at, kind: e.kind, tool: s(d.tool), source, summary, trace }
}

export function filterRows(rows: readonly AuditRow[], q: string, kind: string): AuditRow[] {
  const needle = q.trim().toLowerCase()
  return rows.filter(
    (r) =>
      (!kind || r.kind === kind) &&
      (!needle ||
        r.summary.toLowerCase().includes(needle) ||
        r.tool.toLowerCase().includes(needle) ||
        r.source.toLowerCase().includes(needle)),
  )
}

export const auditKinds = [
  'permission_requested',
  'permission_granted',
  'permission_denied',
  'tool_invocation_started',
  'tool_invocation_completed',
  'tool_invocation_failed',
  'approval_policy_changed',
  'sandbox_policy_changed',
  'planning_entered',
  'planning_exited',
  'grant_added',
  'grant_revoked',
  'mcp_server_trusted',
  'mcp_server_untrusted',
]
