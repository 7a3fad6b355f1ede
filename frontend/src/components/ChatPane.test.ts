import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { BridgeKey, type WardenEvent } from '../bridge'
import { fakeBridge, testSession } from '../testing/fakeBridge'
import { useSessionsStore } from '../stores/sessions'
import { useTranscriptsStore } from '../stores/transcripts'
import ChatPane from './ChatPane.vue'

const msg = (seq: number): WardenEvent => ({ seq, session_id: 's1', version: seq, kind: 'message_appended', at: seq, data: { role: 'user', text: `m${seq}` } })

// A pane showing session s1 with n stored messages.
async function mountWith(n: number) {
  const all = Array.from({ length: n }, (_, i) => msg(i + 1))
  const f = fakeBridge({
    handlers: {
      ListSessions: () => [testSession()],
      SessionEvents: (a) => all.filter((e) => e.seq > (a.after_seq ?? 0)).slice(0, a.limit ?? 500),
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
    { name: 'a long session renders the newest 300 with the rest behind a button', n: 5000, first: 'm4701', button: 'Show earlier (4,700 more)' },
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
