import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { BridgeKey, type WardenEvent } from '../../bridge'
import { fakeBridge, testSession } from '../../testing/fakeBridge'
import { useSessionsStore } from '../../stores/sessions'
import { useTranscriptsStore } from '../../stores/transcripts'
import { pagedEvents, type PageArgs } from '../../stores/testdata/pagedEvents'
import ChatPane from './ChatPane.vue'

const msg = (seq: number): WardenEvent => ({ seq, session_id: 's1', version: seq, kind: 'message_appended', at: seq, data: { role: 'user', text: `m${seq}` } })

// A pane showing session s1 with n stored messages.
async function mountWith(n: number, fail: (a: PageArgs) => boolean = () => false) {
  const all = Array.from({ length: n }, (_, i) => msg(i + 1))
  const serve = pagedEvents(all)
  const f = fakeBridge({
    handlers: {
      ListSessions: () => [testSession()],
      SessionEvents: (a: PageArgs) => {
        if (fail(a)) throw new Error('disk gone')
        return serve(a)
      },
    },
  })
  const pinia = createPinia()
  const w = mount(ChatPane, { global: { plugins: [pinia], provide: { [BridgeKey as symbol]: f.bridge } }, attachTo: document.body })
  const sessions = useSessionsStore(pinia)
  const transcripts = useTranscriptsStore(pinia)
  await sessions.hydrate()
  await transcripts.load('s1')
  await flushPromises()
  return { w, transcripts }
}

const rendered = (w: Awaited<ReturnType<typeof mountWith>>['w']) => w.findAll('[role="log"] .md').map((m) => m.text())

describe('ChatPane history', () => {
  const cases: { name: string; n: number; first: string; button: string | null }[] = [
    { name: 'a short session renders every item and no button', n: 12, first: 'm1', button: null },
    { name: 'exactly one chunk renders all of it', n: 300, first: 'm1', button: null },
    { name: 'a long session loads its newest page and renders the newest 300 of it', n: 5000, first: 'm4701', button: 'Show earlier (1,700 more)' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const { w } = await mountWith(c.n)
      const r = rendered(w)
      expect(r).toHaveLength(Math.min(c.n, 300))
      expect(r[0]).toBe(c.first)
      expect(r.at(-1)).toBe(`m${c.n}`)
      const b = w.find('[data-testid="show-earlier"]')
      expect(b.exists() ? b.text() : null).toBe(c.button)
      w.unmount()
    })
  }

  it('Show earlier reveals older items a chunk at a time until none are left', async () => {
    const { w } = await mountWith(700)
    await w.get('[data-testid="show-earlier"]').trigger('click')
    expect(rendered(w)).toHaveLength(600)
    expect(w.get('[data-testid="show-earlier"]').text()).toBe('Show earlier (100 more)')
    await w.get('[data-testid="show-earlier"]').trigger('click')
    expect(rendered(w)).toHaveLength(700)
    expect(rendered(w)[0]).toBe('m1')
    expect(w.find('[data-testid="show-earlier"]').exists()).toBe(false)
    w.unmount()
  })

  it('a live event joins the end; the window stays 300 items', async () => {
    const { w, transcripts } = await mountWith(1000)
    transcripts.onPush({ type: 'event', event: msg(1001) })
    await flushPromises()
    const r = rendered(w)
    expect(r.at(-1)).toBe('m1001')
    expect(r).toHaveLength(300)
    w.unmount()
  })
})

describe('ChatPane earlier pages', () => {
  const click = async (w: Awaited<ReturnType<typeof mountWith>>['w']) => {
    await w.get('[data-testid="show-earlier"]').trigger('click')
    await flushPromises()
  }

  it('a session whose start is not loaded offers Show earlier after every loaded item is shown, and walks to the first message', async () => {
    const { w } = await mountWith(2500)
    for (let i = 0; i < 6; i++) await click(w)
    expect(rendered(w)).toHaveLength(2000)
    expect(w.get('[data-testid="show-earlier"]').text()).toBe('Show earlier')
    await click(w)
    expect(rendered(w)).toHaveLength(2300)
    expect(rendered(w)[0]).toBe('m201')
    expect(w.get('[data-testid="show-earlier"]').text()).toBe('Show earlier (200 more)')
    await click(w)
    expect(rendered(w)).toHaveLength(2500)
    expect(rendered(w)[0]).toBe('m1')
    expect(rendered(w).at(-1)).toBe('m2500')
    expect(w.find('[data-testid="show-earlier"]').exists()).toBe(false)
    w.unmount()
  })

  it('a failed earlier page says so in words and keeps what is shown', async () => {
    const { w } = await mountWith(2300, (a) => (a.before_seq ?? 0) > 0)
    for (let i = 0; i < 7; i++) await click(w)
    expect(w.get('[data-testid="history-error"]').text()).toBe('Could not load earlier messages: disk gone')
    expect(rendered(w)).toHaveLength(2000)
    expect(w.get('[data-testid="show-earlier"]').text()).toBe('Show earlier')
    w.unmount()
  })

  it('a failed first page says so in words', async () => {
    const { w } = await mountWith(10, (a) => !!a.tail)
    expect(w.get('[data-testid="history-error"]').text()).toBe('Could not load the conversation: disk gone')
    w.unmount()
  })
})

describe('ChatPane ambient strip', () => {
  const ev = (seq: number, kind: string, data: Record<string, unknown>): WardenEvent => ({ seq, session_id: 's1', version: seq, kind, at: seq, data })
  async function mountEvents(events: WardenEvent[]) {
    const f = fakeBridge({ handlers: { ListSessions: () => [testSession()], SessionEvents: pagedEvents(events) } })
    const pinia = createPinia()
    const w = mount(ChatPane, { global: { plugins: [pinia], provide: { [BridgeKey as symbol]: f.bridge } }, attachTo: document.body })
    await useSessionsStore(pinia).hydrate()
    await useTranscriptsStore(pinia).load('s1')
    await flushPromises()
    return w
  }

  it('shows a finished background subagent as done, its result one click away, until dismissed', async () => {
    const w = await mountEvents([
      ev(1, 'subagent_started', { subagent_id: 'k1', task: 'find the flaky test', background: true }),
      ev(2, 'subagent_started', { subagent_id: 'k2', task: 'still going', background: true }),
      ev(3, 'subagent_finished', { subagent_id: 'k1', result: 'TestIO is flaky', background: true }),
    ])
    const chips = w.findAll('[data-testid="agent"]')
    expect(chips).toHaveLength(2)
    const [done, running] = [chips[0]!, chips[1]!]
    expect(done.get('[data-testid="agent-state"]').text()).toBe('done')
    expect(running.find('[data-testid="agent-state"]').exists()).toBe(false)
    expect(running.text()).toContain('Kill')
    expect(w.find('[data-testid="agent-result"]').exists()).toBe(false)
    await done.get('[data-testid="agent-result-toggle"]').trigger('click')
    expect(w.get('[data-testid="agent-result"]').text()).toContain('TestIO is flaky')
    await w.get('[aria-label="Dismiss find the flaky test"]').trigger('click')
    expect(w.findAll('[data-testid="agent"]')).toHaveLength(1)
    expect(w.find('[data-testid="agent-result"]').exists()).toBe(false)
    w.unmount()
  })

  it('says a killed subagent was killed', async () => {
    const w = await mountEvents([
      ev(1, 'subagent_started', { subagent_id: 'k1', task: 'slow suite', background: true }),
      ev(2, 'subagent_finished', { subagent_id: 'k1', error: 'killed by the user', killed: true, background: true }),
    ])
    expect(w.get('[data-testid="agent-state"]').text()).toBe('killed')
    await w.get('[data-testid="agent-result-toggle"]').trigger('click')
    expect(w.get('[data-testid="agent-result"]').text()).toContain('killed by the user')
    w.unmount()
  })
})

describe('ChatPane sandbox remedy', () => {
  const ev = (seq: number, kind: string, data: Record<string, unknown>): WardenEvent => ({ seq, session_id: 's1', version: seq, kind, at: seq, data })
  const cases: { name: string; user: string; want: string }[] = [
    { name: 'a !command the human typed is sent again', user: '!curl -sS https://example.com', want: '!curl -sS https://example.com' },
    { name: 'a model call is retried by asking the model', user: 'fetch the page', want: 'Network is on for this session now: please retry what was denied.' },
  ]
  for (const c of cases) {
    it(`Retry after the remedy is applied: ${c.name}`, async () => {
      const events = [
        ev(1, 'message_appended', { role: 'user', text: c.user }),
        ev(2, 'permission_denied', { tool: 'shell.exec', by: 'sandbox', reason: 'sandbox-rejected', remedy: 'turn network access on', call_id: 'c1' }),
      ]
      const f = fakeBridge({
        handlers: {
          ListSessions: () => [testSession({ sandbox: { kind: 'workspace-write', network_access: true, writable_roots: [] } })],
          SessionEvents: () => events,
          SendMessage: () => null,
        },
      })
      const pinia = createPinia()
      const w = mount(ChatPane, { global: { plugins: [pinia], provide: { [BridgeKey as symbol]: f.bridge } }, attachTo: document.body })
      await useSessionsStore(pinia).hydrate()
      await useTranscriptsStore(pinia).load('s1')
      await flushPromises()
      expect(w.get('[data-testid="remedy"]').attributes('disabled')).toBeDefined()
      await w.get('[data-testid="retry"]').trigger('click')
      await flushPromises()
      const sent = f.call.mock.calls.filter(([m]) => m === 'SendMessage').map(([, a]) => (a as { text: string }).text)
      expect(sent).toEqual([c.want])
      w.unmount()
    })
  }
})

describe('ChatPane while working, on model errors and without a backend', () => {
  const ev = (seq: number, kind: string, data: Record<string, unknown>): WardenEvent => ({ seq, session_id: 's1', version: seq, kind, at: seq, data })
  async function mountPane(events: WardenEvent[], busy = false, handlers: Record<string, (a: never) => unknown> = {}) {
    const f = fakeBridge({
      handlers: { ListSessions: () => [testSession({ busy })], SessionEvents: () => events, Retry: () => null, Cancel: () => null, ...handlers },
    })
    const pinia = createPinia()
    const w = mount(ChatPane, { global: { plugins: [pinia], provide: { [BridgeKey as symbol]: f.bridge } }, attachTo: document.body })
    await useSessionsStore(pinia).hydrate()
    await useTranscriptsStore(pinia).load('s1')
    await flushPromises()
    return { w, f, pinia }
  }

  it('shows Thinking… with elapsed seconds and Stop while a turn runs', async () => {
    const { w, f } = await mountPane([ev(1, 'message_appended', { role: 'user', text: 'hi' })], true)
    const p = w.get('[data-testid="working"]')
    expect(p.text()).toMatch(/Thinking… \d+ s/)
    const stop = w.findAll('button').find((b) => b.text() === 'Stop')!
    await stop.trigger('click')
    expect(f.call).toHaveBeenCalledWith('Cancel', { session_id: 's1' })
    w.unmount()
  })

  it('no working line when idle', async () => {
    const { w } = await mountPane([ev(1, 'message_appended', { role: 'user', text: 'hi' })])
    expect(w.find('[data-testid="working"]').exists()).toBe(false)
    w.unmount()
  })

  it('a model error is an alert in words with Retry, which runs the turn again', async () => {
    const { w, f } = await mountPane([
      ev(1, 'message_appended', { role: 'user', text: 'hi' }),
      ev(2, 'message_appended', { role: 'system', text: 'error: anthropic: 529 overloaded_error: Overloaded' }),
    ])
    const a = w.get('[data-testid="model-error"]')
    expect(a.attributes('role')).toBe('alert')
    expect(a.text()).toContain('having trouble')
    await a.get('[data-testid="retry-turn"]').trigger('click')
    expect(f.call).toHaveBeenCalledWith('Retry', { session_id: 's1' })
    w.unmount()
  })

  it('an older model error has no Retry', async () => {
    const { w } = await mountPane([
      ev(1, 'message_appended', { role: 'system', text: 'error: boom' }),
      ev(2, 'message_appended', { role: 'assistant', text: 'recovered' }),
    ])
    expect(w.find('[data-testid="retry-turn"]').exists()).toBe(false)
    w.unmount()
  })

  it('a refused send gives the message back to the composer', async () => {
    const { w } = await mountPane([], false, {
      SendMessage: () => {
        throw new Error('cannot reach warden serve')
      },
    })
    const ta = w.get('textarea[aria-label="Message"]')
    await ta.setValue('keep me')
    await w.get('form.composer').trigger('submit')
    await flushPromises()
    expect((ta.element as HTMLTextAreaElement).value).toBe('keep me')
    w.unmount()
  })

  it('without a backend the composer is disabled, says so, and keeps the text', async () => {
    const { w, pinia } = await mountPane([])
    const ta = w.get('textarea[aria-label="Message"]')
    await ta.setValue('half a thought')
    const { useAppStore } = await import('../../stores/app')
    useAppStore(pinia).online = false
    await flushPromises()
    expect(w.get('[data-testid="offline"]').text()).toContain('Lost the connection')
    expect(ta.attributes('disabled')).toBeDefined()
    expect((ta.element as HTMLTextAreaElement).value).toBe('half a thought')
    w.unmount()
  })
})
