import type { WardenEvent, WorkspaceChange } from '../bridge'
import { summary as changeSummary } from './changes'
import { bytesText, connectionText } from './network'
import { approvalText, kindText, reasonLabel, sandboxText, sourceText } from './words'

// One audit row, flattened for the list, filter and export.
export interface AuditRow {
  seq: number
  at: number
  kind: string
  tool: string
  source: string
  // What decided (policy.Layer: planning, sandbox, org, rule, policy,
  // grant, mcp-trust, answerer, human); '' for events that decide nothing.
  layer: string
  summary: string
  trace: string
  // Lower-cased text the filter searches, built once: at 100,000 rows a
  // keystroke cannot afford to lower-case every field again.
  hay: string
}

const s = (v: unknown) => (typeof v === 'string' ? v : '')
// One shared formatter: Number.toLocaleString builds a new one per call,
// which at 100,000 rows was most of the time spent making rows.
const int = new Intl.NumberFormat('en-US')

// The summary says reasons, policies and sandboxes in the UI's words
// (model/words.ts); the engine's codes stay searchable through `codes`.
export function auditRow(e: WardenEvent): AuditRow {
  const d = e.data
  let source = ''
  let summary = ''
  let codes = ''
  switch (e.kind) {
    case 'permission_requested': {
      source = 'ask'
      const reasons = ((d.reasons as string[] | undefined) ?? []).filter((r) => typeof r === 'string')
      codes = reasons.join(' ')
      summary = `${s(d.signature)} — ${reasons.map(reasonLabel).join(', ')}`
      break
    }
    case 'permission_granted':
      source = s(d.source)
      summary = s(d.signature)
      break
    case 'permission_denied':
      // An answerer's or a hook's refusal names it, as its allow does.
      source = d.layer === 'answerer' && d.layer_detail ? `answerer:${s(d.layer_detail)}` : s(d.by)
      codes = s(d.reason)
      summary = `${d.signature ? s(d.signature) + ' — ' : ''}${reasonLabel(s(d.reason))}${d.detail ? ': ' + s(d.detail) : ''}`
      break
    case 'tool_invocation_started':
      summary = JSON.stringify(d.args ?? {})
      break
    case 'tool_invocation_completed':
      summary = `${typeof d.exit_code === 'number' ? `exit ${d.exit_code} ` : ''}in ${int.format(Number(d.duration_ms ?? 0))} ms`
      break
    case 'tool_invocation_failed':
      summary = s(d.error)
      break
    case 'approval_policy_changed':
      source = s(d.by)
      codes = `${s(d.from)} ${s(d.to)}`
      summary = `${approvalText(d.from)} → ${approvalText(d.to)}`
      break
    case 'sandbox_policy_changed': {
      source = s(d.by)
      const k = (v: unknown) => s(((v ?? {}) as { kind?: unknown }).kind)
      codes = `${k(d.from)} ${k(d.to)}`
      summary = `${sandboxText(d.from)} → ${sandboxText(d.to)}`
      break
    }
    case 'grant_added':
      summary = s((d.grant as { signature?: unknown } | undefined)?.signature)
      break
    case 'grant_revoked':
      summary = s(d.signature)
      break
    case 'workspace_changed': {
      const c = d as unknown as WorkspaceChange
      source = c.cause === 'call' ? s(d.allowed_by) : c.cause
      summary = (c.warning ? 'WARNING destructive: ' : '') + (c.error ? `no checkpoint: ${c.error}` : changeSummary(c, 5))
      break
    }
    case 'network_connection':
      source = d.allowed === true ? s(d.allowed_by) : s(d.reason)
      codes = s(d.reason)
      summary = `${connectionText(d)} — ${bytesText(d)}`
      break
    default:
      source = s(d.by)
      summary = s(d.server)
  }
  // join, not +=: a string built by += is a rope that holds more memory.
  const trace = Array.isArray(d.trace)
    ? (d.trace as ({ step?: string; concluded?: string } | null)[]).map((t) => `${t?.step}: ${t?.concluded}`).join(' | ')
    : ''
  const tool = s(d.tool)
  const layer = layerOf(e.kind, d)
  const hay = `${summary}\n${tool}\n${source}\n${layer}\n${kindText(e.kind)}\n${sourceText(source)}\n${codes}\n${s(d.call_id)}\n${s(d.request_id)}`.toLowerCase()
  return { seq: e.seq, at: e.at, kind: e.kind, tool, source, layer, summary, trace, hay }
}

// layerOf is the deciding layer the event records, or for events written
// before it was recorded, the one its source or reason implies (the same
// reading as backend/telemetry's LayerOf).
export function layerOf(kind: string, d: Record<string, unknown>): string {
  if (kind !== 'permission_granted' && kind !== 'permission_denied') return ''
  if (typeof d.layer === 'string' && d.layer) return d.layer
  if (kind === 'permission_granted') {
    const src = s(d.source)
    if (src.startsWith('human:')) return 'human'
    if (src.startsWith('session-grant:') || src.startsWith('workspace-rule:')) return 'grant'
    if (src.startsWith('trusted-mcp:')) return 'mcp-trust'
    return 'policy'
  }
  switch (s(d.reason)) {
    case 'planning-freeze':
      return 'planning'
    case 'sandbox-rejected':
      return 'sandbox'
    case 'user-denied':
      return 'human'
  }
  return 'policy'
}

// auditRows turns a page of AuditLog (oldest first) into rows newest first,
// the order the audit view lists them in.
export function auditRows(page: readonly WardenEvent[]): AuditRow[] {
  const out: AuditRow[] = new Array<AuditRow>(page.length)
  for (let i = 0; i < page.length; i++) out[page.length - 1 - i] = auditRow(page[i]!)
  return out
}

// filterRows keeps the rows of one kind ("" for all) whose summary, tool,
// source, call or request id contain q, ignoring case.
export function filterRows(rows: readonly AuditRow[], q: string, kind: string): AuditRow[] {
  const needle = q.trim().toLowerCase()
  if (!needle && !kind) return rows.slice()
  const out: AuditRow[] = []
  for (const r of rows) if ((!kind || r.kind === kind) && (!needle || r.hay.includes(needle))) out.push(r)
  return out
}

// narrows says whether every row matching (q, kind) also matches (prevQ,
// prevKind), so the new filter may start from the old result instead of
// the whole log: typing one more letter searches hundreds of rows, not
// 100,000.
export function narrows(prevQ: string, prevKind: string, q: string, kind: string): boolean {
  const a = prevQ.trim().toLowerCase()
  return (prevKind === '' || prevKind === kind) && q.trim().toLowerCase().includes(a)
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })

// formatTime shows an event's time of day with one shared formatter
// (toLocaleTimeString builds a new one on every call).
export function formatTime(ms: number): string {
  return clock.format(ms)
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
  'workspace_changed',
  'network_connection',
]

export interface AuditPageArgs {
  session_id: string
  kinds: string[]
  limit: number
  before_seq?: number
}

// AuditPager walks a session's audit log from the newest event back. Each
// next() resolves with the next older page, newest first, or [] once the
// oldest is passed. The first page is small, so the view shows rows at
// once; while the caller renders a page, the next one is already on its
// way. A failed page leaves the cursor where it was: next() again retries
// it.
export interface AuditPager {
  readonly done: boolean
  next(): Promise<AuditRow[]>
}

export function auditPager(
  fetchPage: (a: AuditPageArgs) => Promise<WardenEvent[]>,
  sessionId: string,
  first = 200,
  rest = 2500,
): AuditPager {
  let before = 0
  let done = false
  let ahead: { limit: number; page: Promise<WardenEvent[]> } | null = null
  const request = (limit: number) => {
    const a: AuditPageArgs = { session_id: sessionId, kinds: auditKinds, limit }
    if (before) a.before_seq = before
    const page = fetchPage(a)
    // A prefetch nobody awaits (the view was closed) must not be reported
    // as an unhandled rejection; next() still sees its error.
    page.catch(() => {})
    return { limit, page }
  }
  return {
    get done() {
      return done
    },
    async next() {
      if (done) return []
      const r = ahead ?? request(before ? rest : first)
      ahead = null
      const evs = await r.page
      const oldest = evs[0]
      if (evs.length < r.limit || !oldest) done = true
      else {
        before = oldest.seq
        ahead = request(rest)
      }
      return auditRows(evs)
    },
  }
}

// One step of the decision trace as the policy engine records it.
export interface TraceStep {
  step: string
  saw: string
  concluded: string
}

// Everything the detail pane shows about one audit event.
export interface AuditDetail {
  seq: number
  kind: string
  time: string
  tool: string
  source: string
  signature: string
  reasons: string[]
  trace: TraceStep[]
  remedy: string
  json: string
}

const fullDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' })

// auditDetail reads an event for the detail pane. Fields the event lacks
// are empty; a trace that is not a list of steps is left out rather than
// shown half-read.
export function auditDetail(e: WardenEvent): AuditDetail {
  const d = (e.data ?? {}) as Record<string, unknown>
  const row = auditRow({ ...e, data: d })
  const reasons = Array.isArray(d.reasons) ? d.reasons.filter((r): r is string => typeof r === 'string') : []
  if (typeof d.reason === 'string' && d.reason && !reasons.includes(d.reason)) reasons.push(d.reason)
  if (typeof d.detail === 'string' && d.detail) reasons.push(d.detail)
  const trace: TraceStep[] = Array.isArray(d.trace)
    ? d.trace
        .filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null)
        .map((t) => ({ step: s(t.step), saw: s(t.saw), concluded: s(t.concluded) }))
    : []
  const grant = (d.grant ?? {}) as { signature?: unknown }
  const when = Number.isFinite(e.at) ? fullDate.format(e.at) : ''
  return {
    seq: e.seq,
    kind: e.kind,
    time: when,
    tool: row.tool,
    source: row.source,
    signature: s(d.signature) || s(grant.signature),
    reasons,
    trace,
    remedy: s(d.remedy),
    json: JSON.stringify(e, null, 2),
  }
}

// isAuditEvent says whether a pushed event belongs in the audit view of
// session id.
export function isAuditEvent(e: WardenEvent, id: string): boolean {
  return e.session_id === id && auditKinds.includes(e.kind)
}

// indexOfSeq finds the row with seq in rows ordered newest first (seq
// descending), or -1: a binary search, since rows may be 100,000 long.
export function indexOfSeq(rows: readonly AuditRow[], seq: number): number {
  let lo = 0
  let hi = rows.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const v = rows[mid]!.seq
    if (v === seq) return mid
    if (v > seq) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}
