import { defineStore } from 'pinia'
import { shallowRef, triggerRef } from 'vue'
import { useBridge, type Push, type WardenEvent } from '../bridge'
import { applyEvents, emptyTranscript, reduceTranscript, type Transcript } from '../model/reducers'

// Bigger pages mean fewer round trips; hydration folds them all at once.
const page = 2000

// The chat stream of each session: hydrated from SessionEvents, then folded
// forward with every pushed event.
export const useTranscriptsStore = defineStore('transcripts', () => {
  const bridge = useBridge()
  const bySession = shallowRef(new Map<string, Transcript>())

  function get(id: string): Transcript {
    return bySession.value.get(id) ?? emptyTranscript()
  }
  function put(id: string, t: Transcript) {
    bySession.value.set(id, t)
    triggerRef(bySession)
  }

  // Pushes that arrive while a session is being hydrated wait here, so an
  // early live event cannot move lastSeq past events still being fetched.
  const pending = new Map<string, Push[]>()

  async function load(id: string) {
    if (pending.has(id)) return
    pending.set(id, [])
    try {
      let t = get(id)
      // Collected first and folded in one pass: folding event by event
      // copies the item list each time, quadratic in a long session.
      const all: WardenEvent[] = []
      let after = t.lastSeq
      for (;;) {
        const evs = await bridge.call('SessionEvents', { session_id: id, after_seq: after, limit: page })
        for (const e of evs) all.push(e)
        if (evs.length > 0) after = evs[evs.length - 1]!.seq
        if (evs.length < page) break
      }
      t = applyEvents(t, all)
      for (const p of pending.get(id) ?? []) t = reduceTranscript(t, p)
      put(id, t)
    } finally {
      pending.delete(id)
    }
  }

  function onPush(p: Push) {
    const id = p.type === 'event' ? p.event.session_id : p.type === 'delta' ? p.session_id : null
    if (id) {
      const buf = pending.get(id)
      if (buf) {
        buf.push(p)
        return
      }
      // A session never opened is hydrated in full when it is opened.
      if (!bySession.value.has(id)) return
      put(id, reduceTranscript(get(id), p))
    } else if (p.type === 'session-deleted') {
      bySession.value.delete(p.session_id)
      triggerRef(bySession)
    }
  }

  return { bySession, get, load, onPush }
})
