import { defineStore } from 'pinia'
import { shallowRef, triggerRef } from 'vue'
import { useBridge, type Push } from '../bridge'
import { applyEvent, emptyTranscript, reduceTranscript, type Transcript } from '../model/reducers'

const page = 500

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

  async function load(id: string) {
    let t = get(id)
    for (;;) {
      const evs = await bridge.call('SessionEvents', { session_id: id, after_seq: t.lastSeq, limit: page })
      for (const e of evs) t = applyEvent(t, e)
      put(id, t)
      if (evs.length < page) return
    }
  }

  function onPush(p: Push) {
    const id = p.type === 'event' ? p.event.session_id : p.type === 'delta' ? p.session_id : null
    if (id) {
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
