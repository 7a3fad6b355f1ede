import { describe, expect, it } from 'vitest'
import type { Approval, Push, Session, WardenEvent } from '../bridge'
import { testSession } from '../testing/fakeBridge'
import auditPage from './testdata/audit-page.json'
import transcriptEvents from './testdata/transcript-events.json'
import { applyEvent, applyEvents, emptyTranscript, foldHistory, reduceApprovals, reduceSessions, reduceTranscript, type Transcript } from './reducers'

const ev = (seq: number, kind: string, data: Record<string, unknown> = {}): WardenEvent => ({ seq, session_id: 's1', version: seq, kind, at: seq, data })
const ap = (id: string): Approval => ({
  request_id: id, session_id: 's1', call_id: 'c', tool: 't', args: {}, risk: 'low', reasons: [], signature: 'x', effects: [], trace: [], created_at: 0, live: true,
})

describe('reduceSessions', () => {
  const a = testSession({ id: 'a' })
  const b = testSession({ id: 'b' })
  const cases: { name: string; list: Session[]; push: Push; want: string[]; check?: (l: Session[]) => void }[] = [
    { name: 'new session goes first', list: [a], push: { type: 'session', session: b }, want: ['b', 'a'] },
    {
      name: 'changed session replaced in place',
      list: [a, b],
      push: { type: 'session', session: { ...b, busy: true } },
      want: ['a', 'b'],
      check: (l) => expect(l[1]!.busy).toBe(true),
    },
    { name: 'deleted session removed', list: [a, b], push: { type: 'session-deleted', session_id: 'a' }, want: ['b'] },
    { name: 'unrelated push leaves the list', list: [a], push: { type: 'delta', session_id: 'a', text: 'x' }, want: ['a'] },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const got = reduceSessions(c.list, c.push)
      expect(got.map((s) => s.id)).toEqual(c.want)
      c.check?.(got)
    })
  }
})

describe('reduceApprovals', () => {
  const cases: { name: string; queue: Approval[]; push: Push; want: string[] }[] = [
    { name: 'an ask joins the end', queue: [ap('r1')], push: { type: 'approval', approval: ap('r2') }, want: ['r1', 'r2'] },
    { name: 'a repeated ask is not doubled', queue: [ap('r1')], push: { type: 'approval', approval: ap('r1') }, want: ['r1'] },
    { name: 'resolved leaves', queue: [ap('r1'), ap('r2')], push: { type: 'approval-resolved', request_id: 'r1' }, want: ['r2'] },
    { name: 'a stored grant resolves it', queue: [ap('r1')], push: { type: 'event', event: ev(3, 'permission_granted', { request_id: 'r1' }) }, want: [] },
    { name: 'a stored denial resolves it', queue: [ap('r1')], push: { type: 'event', event: ev(3, 'permission_denied', { request_id: 'r1' }) }, want: [] },
    { name: 'other events leave it', queue: [ap('r1')], push: { type: 'event', event: ev(3, 'tool_output', {}) }, want: ['r1'] },
    { name: 'a deleted session drops its asks', queue: [ap('r1')], push: { type: 'session-deleted', session_id: 's1' }, want: [] },
  ]
  for (const c of cases) {
    it(c.name, () => expect(reduceApprovals(c.queue, c.push).map((a) => a.request_id)).toEqual(c.want))
  }
})

function fold(events: WardenEvent[]): Transcript {
  return events.reduce(applyEvent, emptyTranscript())
}

describe('applyEvent', () => {
  const cases: { name: string; events: WardenEvent[]; check: (t: Transcript) => void }[] = [
    {
      name: 'user and assistant messages; tool-role messages are not shown',
      events: [ev(1, 'message_appended', { role: 'user', text: 'hi' }), ev(2, 'message_appended', { role: 'tool', text: 'raw' }), ev(3, 'message_appended', { role: 'assistant', text: 'hello' })],
      check: (t) => expect(t.items.map((i) => (i.type === 'message' ? `${i.role}:${i.text}` : i.type))).toEqual(['user:hi', 'assistant:hello']),
    },
    {
      name: 'a tool call folds started, output and completed into one item',
      events: [
        ev(1, 'tool_invocation_started', { call_id: 'c1', tool: 'shell.exec', args: { command: 'ls' } }),
        ev(2, 'tool_output', { call_id: 'c1', stream: 'stdout', chunk: 'a\n' }),
        ev(3, 'tool_output', { call_id: 'c1', stream: 'stdout', chunk: 'b\n' }),
        ev(4, 'tool_invocation_completed', { call_id: 'c1', tool: 'shell.exec', exit_code: 0, result: { content: [] } }),
      ],
      check: (t) => {
        expect(t.items).toHaveLength(1)
        expect(t.items[0]).toMatchObject({ type: 'tool', state: 'done', output: 'a\nb\n', exitCode: 0 })
      },
    },
    {
      name: 'a failed tool',
      events: [ev(1, 'tool_invocation_started', { call_id: 'c1', tool: 'fs.read' }), ev(2, 'tool_invocation_failed', { call_id: 'c1', error: 'boom' })],
      check: (t) => expect(t.items[0]).toMatchObject({ state: 'failed', error: 'boom' }),
    },
    {
      name: 'every permission event becomes an inline item',
      events: [ev(1, 'permission_requested'), ev(2, 'permission_granted'), ev(3, 'permission_denied')],
      check: (t) => expect(t.items.map((i) => i.type)).toEqual(['permission', 'permission', 'permission']),
    },
    {
      name: 'axis changes and the freeze become notes',
      events: [
        ev(1, 'approval_policy_changed', { from: 'on-request', to: 'always' }),
        ev(2, 'sandbox_policy_changed', { from: { kind: 'read-only' }, to: { kind: 'workspace-write', network_access: true } }),
        ev(3, 'planning_entered'),
        ev(4, 'planning_exited'),
      ],
      check: (t) =>
        expect(t.items.map((i) => (i.type === 'note' ? i.text : ''))).toEqual([
          'Approval policy: On request → Always ask',
          'Sandbox: Read only → Workspace write (network on)',
          'Planning freeze on: actions that change things are paused',
          'Planning freeze off',
        ]),
    },
    {
      name: 'subagents and monitors come and go in the ambient strip',
      events: [
        ev(1, 'subagent_started', { subagent_id: 'k1', task: 'review' }),
        ev(2, 'monitor_started', { monitor_id: 'm1', command: 'npm run dev' }),
        ev(3, 'monitor_event', { monitor_id: 'm1', line: 'ready' }),
        ev(4, 'subagent_finished', { subagent_id: 'k1' }),
      ],
      check: (t) => expect(t.agents).toEqual([{ id: 'm1', kind: 'monitor', label: 'npm run dev', last: 'ready' }]),
    },
    {
      name: 'a background subagent stays in the strip when it ends, with its answer, failure or kill',
      events: [
        ev(1, 'subagent_started', { subagent_id: 'k1', task: 'find the flaky test', background: true }),
        ev(2, 'subagent_started', { subagent_id: 'k2', task: 'lint', background: true }),
        ev(3, 'subagent_started', { subagent_id: 'k3', task: 'slow suite', background: true }),
        ev(4, 'subagent_finished', { subagent_id: 'k1', result: 'TestIO is flaky', background: true }),
        ev(5, 'subagent_finished', { subagent_id: 'k2', error: 'model: rate limited', background: true }),
        ev(6, 'subagent_finished', { subagent_id: 'k3', error: 'killed by the user', background: true, killed: true }),
      ],
      check: (t) =>
        expect(t.agents.map((a) => [a.id, a.state, a.result])).toEqual([
          ['k1', 'done', 'TestIO is flaky'],
          ['k2', 'failed', 'model: rate limited'],
          ['k3', 'killed', 'killed by the user'],
        ]),
    },
    {
      name: 'an event at or below lastSeq is ignored (hydration overlaps the stream)',
      events: [ev(2, 'message_appended', { role: 'user', text: 'a' }), ev(2, 'message_appended', { role: 'user', text: 'a' }), ev(1, 'message_appended', { role: 'user', text: 'old' })],
      check: (t) => {
        expect(t.items).toHaveLength(1)
        expect(t.lastSeq).toBe(2)
      },
    },
    {
      name: 'a plan is its own item',
      events: [ev(1, 'plan_presented', { plan: '1. do it' })],
      check: (t) => expect(t.items[0]).toMatchObject({ type: 'plan', text: '1. do it' }),
    },
  ]
  for (const c of cases) it(c.name, () => c.check(fold(c.events)))
})

describe('reduceTranscript', () => {
  it('streams deltas, and the stored assistant message replaces them', () => {
    let t = emptyTranscript()
    t = reduceTranscript(t, { type: 'delta', session_id: 's1', text: 'Hel' })
    t = reduceTranscript(t, { type: 'delta', session_id: 's1', text: 'lo' })
    expect(t.streaming).toBe('Hello')
    t = reduceTranscript(t, { type: 'event', event: ev(1, 'message_appended', { role: 'assistant', text: 'Hello' }) })
    expect(t.streaming).toBe('')
    expect(t.items).toHaveLength(1)
  })
})

// Event-by-event folding, the live path; applyEvents must agree with it.
const byOne = (t: Transcript, evs: readonly WardenEvent[]) => evs.reduce(applyEvent, t)

describe('applyEvents (hydration)', () => {
  const sequences: { name: string; events: WardenEvent[] }[] = [
    { name: 'testdata/transcript-events.json: every kind the chat shows', events: transcriptEvents as WardenEvent[] },
    { name: 'testdata/audit-page.json: a page of a long agent run', events: auditPage as WardenEvent[] },
    { name: 'empty batch', events: [] },
    {
      name: 'duplicates and an older event inside the batch',
      events: [ev(2, 'message_appended', { role: 'user', text: 'a' }), ev(2, 'message_appended', { role: 'user', text: 'a' }), ev(1, 'planning_entered')],
    },
  ]
  for (const s of sequences) {
    it(`batch reduce equals event-by-event reduce: ${s.name}`, () => {
      expect(applyEvents(emptyTranscript(), s.events)).toEqual(byOne(emptyTranscript(), s.events))
    })
    it(`a batch on top of a transcript equals folding on: ${s.name}`, () => {
      const half = Math.floor(s.events.length / 2)
      const start = byOne(emptyTranscript(), s.events.slice(0, half))
      expect(applyEvents(start, s.events.slice(half))).toEqual(byOne(start, s.events.slice(half)))
    })
  }

  it('the testdata session folds into the items the chat shows', () => {
    const t = applyEvents(emptyTranscript(), transcriptEvents as WardenEvent[])
    expect(t.items.map((i) => i.type)).toEqual([
      'message', 'note', 'message', 'tool', 'permission', 'tool', 'permission', 'note', 'plan', 'note', 'note', 'note', 'tool', 'permission', 'tool', 'note', 'note', 'note', 'message',
    ])
    expect(t.items[3]).toMatchObject({ callId: 'c1', state: 'done', output: 'ok  a\nFAIL b\n', exitCode: 1 })
    expect(t.items[14]).toMatchObject({ callId: 'c1', state: 'done', output: 'ok b', exitCode: 0 })
    expect(t.agents).toEqual([])
  })

  it('does not change the transcript it starts from', () => {
    const start = byOne(emptyTranscript(), [ev(1, 'tool_invocation_started', { call_id: 'c1', tool: 'fs.read' })])
    const before = structuredClone(start)
    applyEvents(start, [ev(2, 'tool_output', { call_id: 'c1', chunk: 'x' }), ev(3, 'message_appended', { role: 'user', text: 'y' })])
    expect(start).toEqual(before)
  })

  it('nothing new returns the same transcript', () => {
    const start = byOne(emptyTranscript(), [ev(5, 'planning_entered')])
    expect(applyEvents(start, [ev(4, 'planning_exited'), ev(5, 'planning_exited')])).toBe(start)
  })

  it('hydrates 120,000 events with every tool call folded into its item', () => {
    const evs: WardenEvent[] = []
    for (let i = 0; i < 30_000; i++) {
      const s = i * 4
      const call = `c${i}`
      evs.push(ev(s + 1, 'tool_invocation_started', { call_id: call, tool: 'shell.exec' }))
      evs.push(ev(s + 2, 'permission_granted', { call_id: call }))
      evs.push(ev(s + 3, 'tool_output', { call_id: call, chunk: `${i}` }))
      evs.push(ev(s + 4, 'tool_invocation_completed', { call_id: call, exit_code: 0 }))
    }
    const t = applyEvents(emptyTranscript(), evs)
    expect(t.lastSeq).toBe(120_000)
    expect(t.items).toHaveLength(60_000)
    expect(t.items[59_998]).toMatchObject({ type: 'tool', callId: 'c29999', output: '29999', state: 'done' })
    expect(t.items.filter((i) => i.type === 'tool' && i.state !== 'done')).toHaveLength(0)
  })
})

// A chat opened on its tail: history starting mid-story renders sensibly,
// and once older pages arrive the fold equals folding from the start.
describe('a history that starts mid-story', () => {
  const sequences: { name: string; events: WardenEvent[] }[] = [
    { name: 'testdata/transcript-events.json', events: transcriptEvents as WardenEvent[] },
    { name: 'testdata/audit-page.json', events: auditPage as WardenEvent[] },
  ]
  const toolKinds = new Set(['tool_output', 'tool_invocation_completed', 'tool_invocation_failed'])
  for (const s of sequences) {
    const full = applyEvents(emptyTranscript(), s.events)
    it(`split at every index, the tail renders every tool event and the refold equals the full fold: ${s.name}`, () => {
      for (let k = 0; k <= s.events.length; k++) {
        const tail = s.events.slice(k)
        const t = applyEvents(emptyTranscript(), tail, k > 0)
        expect(t.lastSeq, `split ${k}`).toBe(tail.at(-1)?.seq ?? 0)
        const calls = new Set(t.items.flatMap((i) => (i.type === 'tool' ? [i.callId] : [])))
        if (k > 0) for (const e of tail) if (toolKinds.has(e.kind)) expect(calls.has(String(e.data.call_id)), `split ${k} seq ${e.seq}`).toBe(true)
        expect(foldHistory(s.events.slice(0, k).concat(tail), false), `split ${k}`).toEqual(full)
      }
    })
    it(`paging back page by page, as the store does, ends equal to the full fold: ${s.name}`, () => {
      for (const size of [1, 2, 3, 5, 8]) {
        let loaded = s.events.slice(Math.max(0, s.events.length - size))
        let t = foldHistory(loaded, loaded.length < s.events.length)
        while (loaded.length < s.events.length) {
          const older = s.events.slice(Math.max(0, s.events.length - loaded.length - size), s.events.length - loaded.length)
          loaded = older.concat(loaded)
          t = foldHistory(loaded, loaded.length < s.events.length, t.streaming)
        }
        expect(t, `page size ${size}`).toEqual(full)
      }
    })
  }

  const cases: { name: string; events: WardenEvent[]; want: Record<string, unknown> }[] = [
    {
      name: 'output whose start is on an older page',
      events: [ev(8, 'tool_output', { call_id: 'c1', chunk: 'ok a\n' }), ev(9, 'tool_output', { call_id: 'c1', chunk: 'ok b\n' })],
      want: { type: 'tool', callId: 'c1', tool: 'earlier call', output: 'ok a\nok b\n', state: 'running', earlier: true },
    },
    {
      name: 'a completion whose start is on an older page',
      events: [ev(11, 'tool_invocation_completed', { call_id: 'c1', tool: 'shell.exec', output: 'done', exit_code: 0 })],
      want: { type: 'tool', callId: 'c1', tool: 'shell.exec', output: 'done', state: 'done', exitCode: 0, earlier: true },
    },
    {
      name: 'a failure whose start is on an older page',
      events: [ev(23, 'tool_invocation_failed', { call_id: 'c3', tool: 'fs.write', error: 'denied' })],
      want: { type: 'tool', callId: 'c3', tool: 'fs.write', state: 'failed', error: 'denied', earlier: true },
    },
    {
      name: 'a grant whose request is on an older page',
      events: [ev(7, 'permission_granted', { request_id: 'r1', call_id: 'c2', source: 'human:once' })],
      want: { type: 'permission', key: 'e7' },
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const t = applyEvents(emptyTranscript(), c.events, true)
      expect(t.items).toHaveLength(1)
      expect(t.items[0]).toMatchObject(c.want)
    })
  }

  it('a full history still drops output of a call it never saw', () => {
    expect(applyEvents(emptyTranscript(), [ev(1, 'tool_output', { call_id: 'nobody', chunk: 'x' })]).items).toEqual([])
  })

  it('a refold keeps the live streaming text', () => {
    expect(foldHistory([ev(1, 'message_appended', { role: 'user', text: 'hi' })], false, 'Work').streaming).toBe('Work')
  })
})
