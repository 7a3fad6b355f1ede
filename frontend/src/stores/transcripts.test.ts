import { createPinia, setActivePinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { createApp } from 'vue'
import { BridgeKey, type WardenEvent } from '../bridge'
import { fakeBridge } from '../testing/fakeBridge'
import { useTranscriptsStore } from './transcripts'

const ev = (seq: number, text: string): WardenEvent => ({ seq, session_id: 's1', version: seq, kind: 'message_appended', at: seq, data: { role: 'user', text } })

function store(handlers: NonNullable<Parameters<typeof fakeBridge>[0]>['handlers']) {
  const f = fakeBridge(handlers ? { handlers } : {})
  const app = createApp({})
  app.provide(BridgeKey, f.bridge)
  const pinia = createPinia()
  app.use(pinia)
  setActivePinia(pinia)
  return { s: app.runWithContext(() => useTranscriptsStore()) }
}

describe('transcripts store', () => {
  it('a push during hydration waits, so no stored event is skipped', async () => {
    let release: (v: WardenEvent[]) => void = () => {}
    const { s } = store({ SessionEvents: () => new Promise<WardenEvent[]>((r) => (release = r)) })
    const loading = s.load('s1')
    await Promise.resolve()
    s.onPush({ type: 'event', event: ev(3, 'live') })
    release([ev(1, 'a'), ev(2, 'b')])
    await loading
    expect(s.get('s1').items.map((i) => (i.type === 'message' ? i.text : ''))).toEqual(['a', 'b', 'live'])
  })

  it('pages until a short page', async () => {
    const all = Array.from({ length: 1200 }, (_, i) => ev(i + 1, `m${i + 1}`))
    const { s } = store({
      SessionEvents: (a: { after_seq?: number; limit?: number }) => all.filter((e) => e.seq > (a.after_seq ?? 0)).slice(0, a.limit ?? 500),
    })
    await s.load('s1')
    expect(s.get('s1').items).toHaveLength(1200)
  })

  it('hydrates a long session in pages, each after the last seq it got, and publishes once', async () => {
    const all = Array.from({ length: 4500 }, (_, i) => ev(i + 1, `m${i + 1}`))
    const f = fakeBridge({
      handlers: { SessionEvents: (a: { after_seq?: number; limit?: number }) => all.filter((e) => e.seq > (a.after_seq ?? 0)).slice(0, a.limit ?? 500) },
    })
    const app = createApp({})
    app.provide(BridgeKey, f.bridge)
    const pinia = createPinia()
    app.use(pinia)
    const s = app.runWithContext(() => useTranscriptsStore())
    let published = 0
    s.$subscribe(() => published++, { flush: 'sync' })
    await s.load('s1')
    const calls = f.call.mock.calls.filter((c) => c[0] === 'SessionEvents').map((c) => (c[1] as { after_seq: number }).after_seq)
    expect(calls).toEqual([0, 2000, 4000])
    expect(s.get('s1').items).toHaveLength(4500)
    expect(s.get('s1').lastSeq).toBe(4500)
    expect(published).toBe(1)
  })
})
