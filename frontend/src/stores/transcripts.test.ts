import { createPinia, setActivePinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { createApp } from 'vue'
import { BridgeKey, type WardenEvent } from '../bridge'
import { applyEvents, emptyTranscript } from '../model/reducers'
import { fakeBridge } from '../testing/fakeBridge'
import { pagedEvents, type PageArgs } from './testdata/pagedEvents'
import { useTranscriptsStore } from './transcripts'

const ev = (seq: number, text: string): WardenEvent => ({ seq, session_id: 's1', version: seq, kind: 'message_appended', at: seq, data: { role: 'user', text } })
const session = (n: number) => Array.from({ length: n }, (_, i) => ev(i + 1, `m${i + 1}`))
const texts = (s: ReturnType<typeof store>['s']) => s.get('s1').items.map((i) => (i.type === 'message' ? i.text : ''))

function store(handlers: NonNullable<Parameters<typeof fakeBridge>[0]>['handlers']) {
  const f = fakeBridge(handlers ? { handlers } : {})
  const app = createApp({})
  app.provide(BridgeKey, f.bridge)
  const pinia = createPinia()
  app.use(pinia)
  setActivePinia(pinia)
  const s = app.runWithContext(() => useTranscriptsStore())
  const calls = () => f.call.mock.calls.filter((c) => c[0] === 'SessionEvents').map((c) => c[1] as PageArgs)
  return { s, calls }
}

// A handler whose answers wait until released, one at a time.
function held(all: readonly WardenEvent[]) {
  const serve = pagedEvents(all)
  const waiting: (() => void)[] = []
  const handler = (a: PageArgs) => new Promise<WardenEvent[]>((r) => waiting.push(() => r(serve(a))))
  const release = async () => {
    while (waiting.length === 0) await Promise.resolve()
    waiting.shift()!()
  }
  return { handler, release }
}

describe('transcripts store: tail hydration', () => {
  const cases: { name: string; n: number; calls: PageArgs[]; first: string; items: number; more: boolean }[] = [
    { name: 'a short session loads whole in one call', n: 12, calls: [{ session_id: 's1', tail: true, limit: 2000 } as PageArgs], first: 'm1', items: 12, more: false },
    { name: 'an empty session', n: 0, calls: [{ session_id: 's1', tail: true, limit: 2000 } as PageArgs], first: '', items: 0, more: false },
    { name: 'a long session loads its newest page only', n: 4500, calls: [{ session_id: 's1', tail: true, limit: 2000 } as PageArgs], first: 'm2501', items: 2000, more: true },
    { name: 'exactly one page may have more', n: 2000, calls: [{ session_id: 's1', tail: true, limit: 2000 } as PageArgs], first: 'm1', items: 2000, more: true },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const { s, calls } = store({ SessionEvents: pagedEvents(session(c.n)) })
      let published = 0
      s.$subscribe(() => published++, { flush: 'sync' })
      await s.load('s1')
      expect(calls()).toEqual(c.calls)
      expect(texts(s)).toHaveLength(c.items)
      expect(texts(s)[0] ?? '').toBe(c.first)
      expect(s.get('s1').lastSeq).toBe(c.n)
      expect(s.history('s1').more).toBe(c.more)
      expect(published).toBeLessThanOrEqual(2)
    })
  }

  it('a push during hydration waits, so no stored event is skipped or doubled', async () => {
    const all = session(3000)
    const h = held(all)
    const { s } = store({ SessionEvents: h.handler })
    const loading = s.load('s1')
    s.onPush({ type: 'event', event: ev(3000, 'm3000') })
    s.onPush({ type: 'event', event: ev(3001, 'live') })
    s.onPush({ type: 'delta', session_id: 's1', text: 'typing' })
    await h.release()
    await loading
    expect(texts(s).slice(-3)).toEqual(['m2999', 'm3000', 'live'])
    expect(texts(s)).toHaveLength(2001)
    expect(s.get('s1').streaming).toBe('typing')
  })

  it('a reopened session catches up forward from its last seq', async () => {
    const all = session(4500)
    const { s, calls } = store({ SessionEvents: pagedEvents(all) })
    await s.load('s1')
    all.push(ev(4501, 'new'))
    await s.load('s1')
    expect(calls()[1]).toEqual({ session_id: 's1', after_seq: 4500, limit: 2000 })
    expect(texts(s).at(-1)).toBe('new')
    await s.loadEarlier('s1')
    await s.loadEarlier('s1')
    expect(texts(s)).toEqual(all.map((e) => e.data.text))
  })
})

describe('transcripts store: earlier pages', () => {
  it('pages back before the oldest loaded seq until the start, equal to loading everything', async () => {
    const all = session(4500)
    const { s, calls } = store({ SessionEvents: pagedEvents(all) })
    await s.load('s1')
    await s.loadEarlier('s1')
    expect(s.history('s1').more).toBe(true)
    await s.loadEarlier('s1')
    expect(s.history('s1').more).toBe(false)
    await s.loadEarlier('s1')
    expect(calls().map((c) => c.before_seq ?? 0)).toEqual([0, 2501, 501])
    expect(s.get('s1')).toEqual(applyEvents(emptyTranscript(), all))
  })

  it('exactly one page: the earlier fetch finds nothing and the button goes', async () => {
    const { s } = store({ SessionEvents: pagedEvents(session(2000)) })
    await s.load('s1')
    await s.loadEarlier('s1')
    expect(s.history('s1').more).toBe(false)
    expect(texts(s)).toHaveLength(2000)
  })

  it('pushes while an earlier page is fetched are folded at once and kept after it lands', async () => {
    const all = session(2500)
    const h = held(all)
    const { s } = store({ SessionEvents: h.handler })
    const loading = s.load('s1')
    await h.release()
    await loading
    const earlier = s.loadEarlier('s1')
    s.onPush({ type: 'event', event: ev(2501, 'live') })
    s.onPush({ type: 'event', event: ev(2501, 'live') })
    s.onPush({ type: 'delta', session_id: 's1', text: 'typing' })
    expect(texts(s).at(-1)).toBe('live')
    await h.release()
    await earlier
    expect(texts(s)).toEqual([...all.map((e) => e.data.text), 'live'])
    expect(s.get('s1').streaming).toBe('typing')
    expect(s.history('s1').more).toBe(false)
  })
})

describe('transcripts store: errors', () => {
  const cases: { name: string; fail: (a: PageArgs) => boolean; earlier: boolean; error: string; items: number }[] = [
    { name: 'the newest page fails', fail: (a) => !!a.tail && !a.before_seq, earlier: false, error: 'Could not load the conversation: disk gone', items: 0 },
    { name: 'an earlier page fails, keeping what loaded', fail: (a) => (a.before_seq ?? 0) > 0, earlier: true, error: 'Could not load earlier messages: disk gone', items: 2000 },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const serve = pagedEvents(session(4500))
      let broken = true
      const { s } = store({
        SessionEvents: (a: PageArgs) => {
          if (broken && c.fail(a)) throw new Error('disk gone')
          return serve(a)
        },
      })
      await s.load('s1')
      if (c.earlier) await s.loadEarlier('s1')
      expect(s.history('s1').error).toBe(c.error)
      expect(texts(s)).toHaveLength(c.items)
      broken = false
      if (c.earlier) await s.loadEarlier('s1')
      else await s.load('s1')
      expect(s.history('s1').error).toBe('')
      expect(texts(s)).toHaveLength(c.earlier ? 4000 : 2000)
    })
  }
})
