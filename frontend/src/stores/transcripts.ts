import { defineStore } from 'pinia'
import { shallowRef, triggerRef } from 'vue'
import { toBridgeError, useBridge, type Push, type WardenEvent } from '../bridge'
import { applyEvents, emptyTranscript, foldHistory, reduceTranscript, type Transcript } from '../model/reducers'

// A chat opens on its newest `page` events; older ones come a page at a time
// when the reader asks ("Show earlier"), so a long session opens as fast as
// a short one.
export const page = 2000

// What a session has loaded: the events behind its transcript (oldest
// first), whether older ones exist on the server, and the last failure.
export interface History {
  events: WardenEvent[]
  more: boolean
  loading: boolean
  error: string
}

const noHistory = (): History => ({ events: [], more: false, loading: false, error: '' })

// The chat stream of each session: hydrated from SessionEvents, then folded
// forward with every pushed event.
export const useTranscriptsStore = defineStore('transcripts', () => {
  const bridge = useBridge()
  const bySession = shallowRef(new Map<string, Transcript>())
  const histories = shallowRef(new Map<string, History>())

  function get(id: string): Transcript {
    return bySession.value.get(id) ?? emptyTranscript()
  }
  function put(id: string, t: Transcript) {
    bySession.value.set(id, t)
    triggerRef(bySession)
  }
  function history(id: string): History {
    return histories.value.get(id) ?? noHistory()
  }
  function setHistory(id: string, h: Partial<History>) {
    histories.value.set(id, { ...history(id), ...h })
    triggerRef(histories)
  }
  const words = (op: string, e: unknown) => `${op}: ${toBridgeError('SessionEvents', e).message}`

  // Pushes that arrive while a session is being hydrated wait here, so an
  // early live event cannot move lastSeq past events still being fetched.
  const pending = new Map<string, Push[]>()

  // The earlier page being fetched, per session: a reopen waits for it so
  // the two never fold from different lists of loaded events.
  const earlier = new Map<string, Promise<void>>()

  async function load(id: string) {
    if (pending.has(id)) return
    pending.set(id, [])
    await earlier.get(id)
    const known = bySession.value.has(id)
    let t = get(id)
    const h = history(id)
    let events = h.events
    let more = h.more
    let error = ''
    try {
      if (!known) {
        // The newest page only; older pages wait for "Show earlier".
        const evs = await bridge.call('SessionEvents', { session_id: id, tail: true, limit: page })
        more = evs.length === page
        events = evs
        t = applyEvents(t, evs, more)
      } else {
        // Reopened: catch up forward from what is already folded. Collected
        // first and folded in one pass: folding event by event copies the
        // item list each time, quadratic in a long session.
        const all: WardenEvent[] = []
        let after = t.lastSeq
        try {
          for (;;) {
            const evs = await bridge.call('SessionEvents', { session_id: id, after_seq: after, limit: page })
            for (const e of evs) all.push(e)
            if (evs.length > 0) after = evs[evs.length - 1]!.seq
            if (evs.length < page) break
          }
        } finally {
          // Pages that arrived are contiguous: keep them even if a later one failed.
          t = applyEvents(t, all)
          events = events.concat(all)
        }
      }
    } catch (e) {
      error = words('Could not load the conversation', e)
    } finally {
      const held = pending.get(id) ?? []
      pending.delete(id)
      if (!error || known) {
        if (held.length > 0) events = events.slice()
        for (const p of held) {
          t = reduceTranscript(t, p)
          if (p.type === 'event' && p.event.seq > (events.at(-1)?.seq ?? 0)) events.push(p.event)
        }
        put(id, t)
      }
      setHistory(id, { events, more, error })
    }
  }

  // loadEarlier fetches the page before the oldest loaded event and folds
  // it with everything loaded since. Pushes meanwhile are folded as usual
  // and kept with the loaded events, so the refold includes them.
  function loadEarlier(id: string): Promise<void> {
    const h = history(id)
    if (h.loading || !h.more || pending.has(id) || !bySession.value.has(id)) return earlier.get(id) ?? Promise.resolve()
    const p = fetchEarlier(id, h).finally(() => earlier.delete(id))
    earlier.set(id, p)
    return p
  }

  async function fetchEarlier(id: string, h: History) {
    setHistory(id, { loading: true, error: '' })
    try {
      const before = h.events[0]?.seq ?? 0
      const older = await bridge.call('SessionEvents', { session_id: id, before_seq: before, tail: true, limit: page })
      const events = older.concat(history(id).events)
      const more = older.length === page
      put(id, foldHistory(events, more, get(id).streaming))
      setHistory(id, { events, more, loading: false })
    } catch (e) {
      setHistory(id, { loading: false, error: words('Could not load earlier messages', e) })
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
      // A session never opened is hydrated when it is opened.
      if (!bySession.value.has(id)) return
      const t = get(id)
      const next = reduceTranscript(t, p)
      // Kept with the loaded events (appended in place: a copy per push
      // would be quadratic in a streaming tool's output) for a refold.
      if (p.type === 'event' && next.lastSeq !== t.lastSeq) histories.value.get(id)?.events.push(p.event)
      put(id, next)
    } else if (p.type === 'session-deleted') {
      bySession.value.delete(p.session_id)
      histories.value.delete(p.session_id)
      triggerRef(bySession)
      triggerRef(histories)
    }
  }

  return { bySession, histories, get, history, load, loadEarlier, onPush }
})
