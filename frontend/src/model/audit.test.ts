import { describe, expect, it } from 'vitest'
import type { WardenEvent } from '../bridge'
import { auditDetail, auditPager, auditRow, auditRows, filterRows, indexOfSeq, isAuditEvent, narrows, type AuditPageArgs } from './audit'
import page from './testdata/audit-page.json'
import { reasonLabel, reasonWords, sourceText } from './words'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const ev = (kind: string, data: Record<string, unknown>) => ({ seq: 1, session_id: 's', version: 1, kind, at: 0, data })

describe('auditRow', () => {
  const cases: { name: string; kind: string; data: Record<string, unknown>; source: string; summary: string }[] = [
    { name: 'ask', kind: 'permission_requested', data: { tool: 't', signature: 'shell=ls', reasons: ['unknown-command'] }, source: 'ask', summary: 'shell=ls — Unknown command' },
    { name: 'grant', kind: 'permission_granted', data: { source: 'human:once', signature: 'shell=ls' }, source: 'human:once', summary: 'shell=ls' },
    { name: 'deny', kind: 'permission_denied', data: { by: 'sandbox', reason: 'sandbox-rejected', detail: 'no net' }, source: 'sandbox', summary: 'Sandbox: no net' },
    { name: 'sandbox change', kind: 'sandbox_policy_changed', data: { by: 'user', from: { kind: 'read-only' }, to: { kind: 'workspace-write', network_access: true } }, source: 'user', summary: 'Read only → Workspace write (network on)' },
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

describe('auditRow summaries', () => {
  const cases: { name: string; kind: string; data: Record<string, unknown>; summary: string }[] = [
    { name: 'deny names the call', kind: 'permission_denied', data: { by: 'user', reason: 'user-denied', signature: 'shell=rm -rf dist' }, summary: 'shell=rm -rf dist — Denied by you' },
    { name: 'completed with exit code', kind: 'tool_invocation_completed', data: { exit_code: 0, duration_ms: 1553 }, summary: 'exit 0 in 1,553 ms' },
    { name: 'completed without exit code', kind: 'tool_invocation_completed', data: { duration_ms: 12 }, summary: 'in 12 ms' },
    { name: 'started shows the arguments', kind: 'tool_invocation_started', data: { args: { command: 'npm test' } }, summary: '{"command":"npm test"}' },
  ]
  for (const c of cases) it(c.name, () => expect(auditRow(ev(c.kind, c.data)).summary).toBe(c.summary))
})

describe('auditRows', () => {
  it('lists a page newest first', () => {
    const page = [1, 2, 3].map((seq) => ({ ...ev('permission_granted', { source: 'x' }), seq }))
    expect(auditRows(page).map((r) => r.seq)).toEqual([3, 2, 1])
  })
})

describe('filterRows by ids', () => {
  const rows = [ev('permission_granted', { source: 'sandbox+policy', tool: 'fs.read', call_id: 'toolu_0000042', request_id: 'req_0000042' })].map(auditRow)
  const cases: { name: string; q: string; n: number }[] = [
    { name: 'call id', q: 'toolu_0000042', n: 1 },
    { name: 'request id, any case', q: 'REQ_0000042', n: 1 },
    { name: 'another call', q: 'toolu_0000043', n: 0 },
    { name: 'surrounding spaces ignored', q: '  fs.read ', n: 1 },
  ]
  for (const c of cases) it(c.name, () => expect(filterRows(rows, c.q, '')).toHaveLength(c.n))
})

describe('narrows', () => {
  // [previous query, previous kind, query, kind]
  const cases: { name: string; args: [string, string, string, string]; want: boolean }[] = [
    { name: 'one more letter', args: ['rm', '', 'rm ', ''], want: true },
    { name: 'from nothing', args: ['', '', 'r', 'permission_denied'], want: true },
    { name: 'letter removed', args: ['rm -', '', 'rm', ''], want: false },
    { name: 'kind changed', args: ['', 'permission_denied', '', 'permission_granted'], want: false },
    { name: 'kind cleared', args: ['', 'permission_denied', '', ''], want: false },
    { name: 'case only', args: ['RM', '', 'rm -', ''], want: true },
  ]
  for (const c of cases) it(c.name, () => expect(narrows(...c.args)).toBe(c.want))
})

// A log of n listed events with seq 1..n, paged like AuditLog: newest page
// first, each page oldest first.
function serve(n: number, fail?: (call: number) => boolean) {
  const calls: AuditPageArgs[] = []
  const fetchPage = (a: AuditPageArgs): Promise<WardenEvent[]> => {
    calls.push(a)
    if (fail?.(calls.length)) return Promise.reject(new Error('database is locked'))
    const hi = (a.before_seq ?? n + 1) - 1
    const lo = Math.max(1, hi - a.limit + 1)
    const out: WardenEvent[] = []
    for (let s = lo; s <= hi; s++) out.push({ ...ev('permission_granted', { source: 'x' }), seq: s })
    return Promise.resolve(out)
  }
  return { calls, fetchPage }
}

describe('auditPager', () => {
  it('starts with a small page, then pages back to the oldest', async () => {
    const { calls, fetchPage } = serve(1000)
    const p = auditPager(fetchPage, 's', 10, 300)
    const pages: number[][] = []
    while (!p.done) pages.push((await p.next()).map((r) => r.seq))
    expect(pages.map((x) => x.length)).toEqual([10, 300, 300, 300, 90])
    expect(pages[0]![0]).toBe(1000)
    expect(pages.flat()).toEqual(Array.from({ length: 1000 }, (_, i) => 1000 - i))
    expect(calls.map((c) => [c.limit, c.before_seq])).toEqual([[10, undefined], [300, 991], [300, 691], [300, 391], [300, 91]])
    expect(await p.next()).toEqual([])
  })
  it('an empty log is done after one call', async () => {
    const p = auditPager(serve(0).fetchPage, 's')
    expect(await p.next()).toEqual([])
    expect(p.done).toBe(true)
  })
  it('a failed page keeps the cursor, so next() retries it', async () => {
    const { calls, fetchPage } = serve(50, (n) => n === 2)
    const p = auditPager(fetchPage, 's', 10, 20)
    expect((await p.next()).length).toBe(10)
    await expect(p.next()).rejects.toThrow('database is locked')
    expect(p.done).toBe(false)
    const again = await p.next()
    expect(again[0]!.seq).toBe(40)
    expect(calls[1]!.before_seq).toBe(41)
    expect(calls[2]!.before_seq).toBe(41)
  })
})

describe('auditDetail', () => {
  const denied = (page as WardenEvent[]).find((e) => e.kind === 'permission_denied')!
  const cases: { name: string; e: WardenEvent; want: Partial<ReturnType<typeof auditDetail>>; steps: number }[] = [
    {
      name: 'a sandbox denial from testdata: reasons, remedy and its two steps',
      e: denied,
      want: {
        kind: 'permission_denied',
        tool: 'shell.exec',
        source: 'sandbox',
        signature: 'shell=curl -sSf https://registry.npmjs.org/vue/latest',
        reasons: ['sandbox-rejected', 'network access is off: shell.exec would reach registry.npmjs.org'],
        remedy: 'turn network access on',
      },
      steps: 2,
    },
    {
      name: 'an ask lists its reasons',
      e: ev('permission_requested', { tool: 'shell.exec', signature: 'shell=rm', reasons: ['destructive-effect', 42, 'outside-workspace'] }),
      want: { source: 'ask', signature: 'shell=rm', reasons: ['destructive-effect', 'outside-workspace'], remedy: '' },
      steps: 0,
    },
    {
      name: 'a grant takes the signature from the grant',
      e: ev('grant_added', { grant: { signature: 'fs.write', scope: 'session' } }),
      want: { signature: 'fs.write', reasons: [] },
      steps: 0,
    },
    {
      name: 'a trace that is not a list of steps is left out',
      e: ev('permission_granted', { trace: 'planning: ok' }),
      want: { trace: [] },
      steps: 0,
    },
    {
      name: 'steps with missing or odd fields read as empty text',
      e: ev('permission_granted', { trace: [null, { step: 'grant', saw: 3 }, 'x'] }),
      want: { trace: [{ step: 'grant', saw: '', concluded: '' }] },
      steps: 1,
    },
    {
      name: 'no data and a bad time do not throw',
      e: { seq: 9, session_id: 's', version: 9, kind: 'planning_entered', at: Number.NaN, data: null as unknown as Record<string, unknown> },
      want: { seq: 9, time: '', tool: '', signature: '' },
      steps: 0,
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const d = auditDetail(c.e)
      expect(d).toMatchObject(c.want)
      expect(d.trace).toHaveLength(c.steps)
      expect(JSON.parse(d.json)).toEqual(JSON.parse(JSON.stringify(c.e)))
    })
  }
  it('the time is a full date', () => {
    const d = auditDetail({ ...ev('planning_entered', {}), at: Date.UTC(2026, 10, 30, 6, 0, 0) })
    expect(d.time).toMatch(/2026/)
    expect(d.time).toMatch(/November/)
  })
  it('the trace steps keep step, saw and concluded', () => {
    expect(auditDetail(denied).trace[1]).toEqual({
      step: 'sandbox',
      saw: 'workspace-write (network off, caged); reach the network registry.npmjs.org',
      concluded: 'deny: network access is off: shell.exec would reach registry.npmjs.org',
    })
  })
})

describe('indexOfSeq', () => {
  const rows = auditRows(page as WardenEvent[])
  const cases: { name: string; seq: number; want: number }[] = [
    { name: 'the newest', seq: rows[0]!.seq, want: 0 },
    { name: 'the oldest', seq: rows.at(-1)!.seq, want: rows.length - 1 },
    { name: 'one in the middle', seq: rows[77]!.seq, want: 77 },
    { name: 'a gap between listed seqs', seq: 59759, want: -1 },
    { name: 'newer than all', seq: 1e9, want: -1 },
  ]
  for (const c of cases) it(c.name, () => expect(indexOfSeq(rows, c.seq)).toBe(c.want))
  it('an empty list', () => expect(indexOfSeq([], 1)).toBe(-1))
})

describe('isAuditEvent', () => {
  const cases: { name: string; e: WardenEvent; want: boolean }[] = [
    { name: 'a denial of this session', e: ev('permission_denied', {}), want: true },
    { name: 'a tool start', e: ev('tool_invocation_started', {}), want: true },
    { name: 'a chat message is not audit', e: ev('message_appended', {}), want: false },
    { name: 'tool output is not audit', e: ev('tool_output', {}), want: false },
    { name: 'another session', e: { ...ev('permission_denied', {}), session_id: 'other' }, want: false },
  ]
  for (const c of cases) it(c.name, () => expect(isAuditEvent(c.e, 's')).toBe(c.want))
})

// Engine reason codes never reach a summary: every reason, policy and
// sandbox the engine writes is said in words, and the code still finds the
// row through the filter.
describe('audit summaries say the engine codes in words', () => {
  const codes = Object.keys(reasonWords)
  for (const code of codes) {
    it(`asked because of ${code}`, () => {
      const r = auditRow(ev('permission_requested', { signature: 'shell=x', reasons: [code, 'destructive-effect'] }))
      expect(r.summary).toBe(`shell=x — ${reasonLabel(code)}, Destructive`)
      expect(r.summary).not.toContain(code)
      expect(filterRows([r], code, '')).toHaveLength(1)
    })
    it(`denied because of ${code}`, () => {
      const r = auditRow(ev('permission_denied', { by: 'sandbox', reason: code, signature: 'shell=x', detail: 'why' }))
      expect(r.summary).toBe(`shell=x — ${reasonLabel(code)}: why`)
      expect(r.summary).not.toContain(code)
      expect(filterRows([r], code, '')).toHaveLength(1)
    })
  }
  const approvals: [string, string, string][] = [
    ['on-request', 'always', 'On request → Always ask'],
    ['never', 'on-request', 'Never ask → On request'],
    ['always', 'never', 'Always ask → Never ask'],
  ]
  for (const [from, to, want] of approvals) {
    it(`approval ${from} → ${to}`, () => {
      const r = auditRow(ev('approval_policy_changed', { by: 'user', from, to }))
      expect(r.summary).toBe(want)
      expect(filterRows([r], from, '')).toHaveLength(1)
    })
  }
  const sandboxes: [Record<string, unknown>, Record<string, unknown>, string][] = [
    [{ kind: 'workspace-write' }, { kind: 'read-only' }, 'Workspace write (network off) → Read only'],
    [{ kind: 'workspace-write', network_access: true }, { kind: 'danger-full-access' }, 'Workspace write (network on) → Full access'],
    [{ kind: 'read-only' }, { kind: 'workspace-write', network_access: false }, 'Read only → Workspace write (network off)'],
  ]
  for (const [from, to, want] of sandboxes) {
    it(`sandbox ${want}`, () => {
      const r = auditRow(ev('sandbox_policy_changed', { by: 'user', from, to }))
      expect(r.summary).toBe(want)
      expect(filterRows([r], String(to.kind), '')).toHaveLength(1)
    })
  }
  it('a refused connection says its reason in words, in the summary and the source', () => {
    const r = auditRow(ev('network_connection', { host: 'evil.test', port: 443, allowed: false, reason: 'host-denied' }))
    expect(r.summary).toContain('refused (Host denied)')
    expect(r.summary).not.toContain('host-denied')
    expect(sourceText(r.source)).toBe('Host denied')
    expect(filterRows([r], 'host-denied', '')).toHaveLength(1)
  })
  it('an unknown code is shown as written, not dropped', () => {
    expect(auditRow(ev('permission_denied', { by: 'sandbox', reason: 'brand-new-reason' })).summary).toBe('brand-new-reason')
  })
})

// Every Reason constant the engine declares (backend/policy) has words: a
// new reason without them fails here, not in front of a user.
describe('every engine reason has words', () => {
  const dir = resolve(__dirname, '../../../backend/policy')
  const declared = new Set<string>()
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.go') && !n.endsWith('_test.go'))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/\bReason\s*=\s*"([a-z-]+)"/g)) declared.add(m[1]!)
  }
  it('finds the engine reasons', () => expect(declared.size).toBeGreaterThanOrEqual(14))
  for (const code of declared) it(code, () => expect(reasonWords[code], `${code} has no words in model/words.ts`).toBeTruthy())
})

describe('layer column', () => {
  const cases: { name: string; kind: string; data: Record<string, unknown>; layer: string }[] = [
    { name: 'recorded layer wins', kind: 'permission_granted', data: { source: 'human:once', layer: 'answerer' }, layer: 'answerer' },
    { name: 'legacy human once', kind: 'permission_granted', data: { source: 'human:once' }, layer: 'human' },
    { name: 'legacy human always', kind: 'permission_granted', data: { source: 'human:always' }, layer: 'human' },
    { name: 'legacy session grant', kind: 'permission_granted', data: { source: 'session-grant:shell:rm' }, layer: 'grant' },
    { name: 'legacy workspace rule', kind: 'permission_granted', data: { source: 'workspace-rule:net:x:443' }, layer: 'grant' },
    { name: 'legacy trusted mcp', kind: 'permission_granted', data: { source: 'trusted-mcp:srv' }, layer: 'mcp-trust' },
    { name: 'legacy sandbox+policy', kind: 'permission_granted', data: { source: 'sandbox+policy' }, layer: 'policy' },
    { name: 'legacy planning deny', kind: 'permission_denied', data: { reason: 'planning-freeze', by: 'freeze' }, layer: 'planning' },
    { name: 'legacy sandbox deny', kind: 'permission_denied', data: { reason: 'sandbox-rejected', by: 'sandbox' }, layer: 'sandbox' },
    { name: 'legacy human deny', kind: 'permission_denied', data: { reason: 'user-denied', by: 'user' }, layer: 'human' },
    { name: 'legacy no approver', kind: 'permission_denied', data: { reason: 'no-approver', by: 'no-approver' }, layer: 'policy' },
    { name: 'recorded org deny', kind: 'permission_denied', data: { reason: 'rule', layer: 'org' }, layer: 'org' },
    { name: 'an ask decides nothing yet', kind: 'permission_requested', data: { signature: 'x', reasons: [] }, layer: '' },
    { name: 'an axis change decides nothing', kind: 'approval_policy_changed', data: { by: 'user', from: 'never', to: 'always' }, layer: '' },
  ]
  for (const c of cases) it(c.name, () => expect(auditRow(ev(c.kind, c.data)).layer).toBe(c.layer))
  it('the filter finds rows by layer', () => {
    expect(auditRow(ev('permission_granted', { source: 'session-grant:shell:rm' })).hay).toContain('\ngrant')
  })
})
