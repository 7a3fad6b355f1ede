import { describe, expect, it } from 'vitest'
import { auditRow, filterRows } from './audit'

const ev = (kind: string, data: Record<string, unknown>) => ({ seq: 1, session_id: 's', version: 1, kind, at: 0, data })

describe('auditRow', () => {
  const cases: { name: string; kind: string; data: Record<string, unknown>; source: string; summary: string }[] = [
    { name: 'ask', kind: 'permission_requested', data: { tool: 't', signature: 'shell=ls', reasons: ['unknown-command'] }, source: 'ask', summary: 'shell=ls — unknown-command' },
    { name: 'grant', kind: 'permission_granted', data: { source: 'human:once', signature: 'shell=ls' }, source: 'human:once', summary: 'shell=ls' },
    { name: 'deny', kind: 'permission_denied', data: { by: 'sandbox', reason: 'sandbox-rejected', detail: 'no net' }, source: 'sandbox', summary: 'sandbox-rejected: no net' },
    { name: 'sandbox change', kind: 'sandbox_policy_changed', data: { by: 'user', from: { kind: 'read-only' }, to: { kind: 'workspace-write', network_access: true } }, source: 'user', summary: 'read-only → workspace-write + network' },
  ]
  for (const c of cases) {
    it(c.name, () => expect(auditRow(ev(c.kind, c.data))).toMatchObject({ source: c.source, summary: c.summary }))
  }
  it('flattens the trace', () => {
    expect(auditRow(ev('permission_granted', { trace: [{ step: 'sandbox', concluded: 'ok' }, { step: 'grant', concluded: 'hit' }] })).trace).toBe('sandbox: ok | grant: hit')
  })
})

describe('filterRows', () => {
  const rows = [ev('permission_denied', { by: 'user', reason: 'user-denied', tool: 'shell.exec' }), ev('permission_granted', { source: 'human:once', tool: 'fs.write' })].map(auditRow)
  const cases: { name: string; q: string; kind: string; n: number }[] = [
    { name: 'no filter', q: '', kind: '', n: 2 },
    { name: 'by text', q: 'FS.WRITE', kind: '', n: 1 },
    { name: 'by kind', q: '', kind: 'permission_denied', n: 1 },
    { name: 'both, no match', q: 'fs', kind: 'permission_denied', n: 0 },
  ]
  for (const c of cases) it(c.name, () => expect(filterRows(rows, c.q, c.kind)).toHaveLength(c.n))
})
