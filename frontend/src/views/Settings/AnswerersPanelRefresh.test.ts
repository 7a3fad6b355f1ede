// The Settings section follows the session's answerer events: an answer
// pushed while it is open shows without reopening it (App.vue hands every
// push to the store, as here).
import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { BridgeKey, type AnswererEntry, type AnswererRecord, type AnswererRoster, type Push } from '../../bridge'
import { useAnswerersStore } from '../../stores/answerers'
import { fakeBridge } from '../../testing/fakeBridge'
import AnswerersPanel from './AnswerersPanel.vue'

const cfg = '/home/u/.config/warden/config.toml'
const check: AnswererEntry = { role: 'answerer', kind: 'command', name: 'corp-check', tier: 'user', file: cfg, command: ['/opt/corp/check'], state: 'active' }
const guard: AnswererEntry = {
  role: 'answerer',
  kind: 'command',
  name: 'lint-guard',
  tier: 'workspace',
  file: '/work/proj/.warden/config.toml',
  command: ['./guard.sh'],
  state: 'untrusted',
  config_hash: 'sha256:c0ffee',
  program_hash: 'sha256:beef',
}
const answer = (n: number, over: Partial<AnswererRecord> = {}): AnswererRecord => ({
  time: Date.UTC(2026, 11, 5, 17, 0, n),
  request_id: `r${n}`,
  tool: 'shell.exec',
  kind: 'command',
  name: 'corp-check',
  answer: 'deny',
  reason: `answer number ${n}`,
  latency_ms: 40 + n,
  ...over,
})
const event = (kind: string, session = 's1', seq = 1): Push => ({
  type: 'event',
  event: { seq, session_id: session, version: seq, kind, at: seq, data: { request_id: `r${seq}`, kind: 'command', name: 'corp-check', answer: 'deny' } },
})

// The backend as the pushes change it: each Answerers call returns the
// roster as it is now.
function setup(sessionId = 's1') {
  let now: AnswererRoster = { session_id: sessionId, entries: [check, guard], last: [], human_last: 'you' }
  const f = fakeBridge({ handlers: { Answerers: (a) => ({ ...now, session_id: a.session_id }) } })
  const pinia = createPinia()
  const w = mount(AnswerersPanel, {
    props: { sessionId, configPath: cfg },
    global: { plugins: [pinia], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  const store = useAnswerersStore(pinia)
  f.bridge.subscribe((p) => store.onPush(p))
  const reads = () => f.call.mock.calls.filter((c) => c[0] === 'Answerers').length
  const set = (r: Partial<AnswererRoster>) => (now = { ...now, ...r })
  const last = () => w.findAll('[data-testid="answerers-last"] li').map((li) => li.text().replace(/\s+/g, ' '))
  return { f, w, reads, set, last }
}

describe('AnswerersPanel refresh on push', () => {
  const cases: { name: string; push: Push; reread: boolean }[] = [
    { name: 'an answer of the shown session re-reads the roster', push: event('answerer_answered'), reread: true },
    { name: 'a trust given (another window, the TUI) re-reads it', push: event('answerer_trusted'), reread: true },
    { name: 'a trust taken back re-reads it', push: event('answerer_untrusted'), reread: true },
    { name: "another session's answer is not this section's", push: event('answerer_answered', 's2'), reread: false },
    { name: 'an unrelated event reads nothing', push: event('permission_granted'), reread: false },
    { name: 'a non-event push reads nothing', push: { type: 'approval-resolved', request_id: 'r1' }, reread: false },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const { f, w, reads, set, last } = setup()
      await flushPromises()
      expect(reads()).toBe(1)
      expect(last()).toEqual([])
      set({ last: [answer(1)] })
      f.push(c.push)
      await flushPromises()
      expect(reads()).toBe(c.reread ? 2 : 1)
      expect(last().length).toBe(c.reread ? 1 : 0)
      w.unmount()
    })
  }

  it('shows the new answer and the new state without reopening', async () => {
    const { f, w, set, last } = setup()
    await flushPromises()
    set({ last: [answer(1, { answer: 'deny', reason: 'curl is not allowed here', latency_ms: 1500 })] })
    f.push(event('answerer_answered'))
    await flushPromises()
    expect(last()).toHaveLength(1)
    expect(last()[0]).toContain('command `corp-check` denied shell.exec')
    expect(last()[0]).toContain('1.5 s')
    expect(last()[0]).toContain('curl is not allowed here')
    // The workspace's answerer trusted elsewhere: its state and the order move.
    set({ entries: [check, { ...guard, state: 'active' }] })
    f.push(event('answerer_trusted', 's1', 2))
    await flushPromises()
    expect(w.findAll('[data-testid="answerer-state"]').map((s) => s.text())).toEqual(['Active', 'Active'])
    expect(w.get('[data-testid="answerers-order"]').text()).toContain('corp-check → lint-guard → you')
    w.unmount()
  })

  it('a burst of answers makes one read in flight and one after, newest shown', async () => {
    const { f, w, reads, set, last } = setup()
    await flushPromises()
    for (let n = 1; n <= 6; n++) {
      set({ last: Array.from({ length: n }, (_, i) => answer(n - i)) })
      f.push(event('answerer_answered', 's1', n))
    }
    await flushPromises()
    expect(reads()).toBe(3) // the first read, one for the burst's start, one after it
    expect(last()).toHaveLength(6)
    expect(last()[0]).toContain('answer number 6')
    w.unmount()
  })

  it('once the section is closed, answers read nothing', async () => {
    const { f, w, reads } = setup()
    await flushPromises()
    w.unmount()
    f.push(event('answerer_answered'))
    await flushPromises()
    expect(reads()).toBe(1)
  })
})
