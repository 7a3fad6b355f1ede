import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toBridgeError, useBridge, type AnswererEntry, type AnswererRoster, type BridgeError, type Push } from '../bridge'

// The session log's events that change what the roster shows
// (backend/store/kinds_answerer.go): an answer (a new line under "Last
// answers", and a reviewer's budget or breaker moves), a trust given or
// taken back (from this window, another one, or the TUI).
const answererKinds = new Set(['answerer_answered', 'answerer_trusted', 'answerer_untrusted'])

// A session's answerers and hooks (backend/gate/lineup): who answers an ask
// before the human, their state and their last answers. Read when the
// Settings section opens, and again whenever one of the session's answerer
// events is pushed (App.vue hands every push to onPush), so the section
// stays current while it is open. Trust is given for what the card showed
// (the hashes go along, so a file changed since then is refused by the
// backend).
export const useAnswerersStore = defineStore('answerers', () => {
  const bridge = useBridge()
  const roster = ref<AnswererRoster | null>(null)
  const error = ref<BridgeError | null>(null)
  const loading = ref(false)
  // The entry being trusted or untrusted ("role\u0000name"), so its button waits.
  const busy = ref('')
  // The session the section shows: pushes of other sessions are ignored,
  // and an answer for a session left meanwhile is dropped.
  const sessionId = ref<string | null>(null)

  async function read(id: string): Promise<void> {
    try {
      const r = await bridge.call('Answerers', { session_id: id, last: 10 })
      if (sessionId.value !== id) return
      roster.value = r
      error.value = null
    } catch (e) {
      if (sessionId.value === id) error.value = toBridgeError('Answerers', e)
    }
  }

  async function load(id: string): Promise<void> {
    sessionId.value = id
    loading.value = true
    try {
      await read(id)
    } finally {
      loading.value = false
    }
  }

  // A burst of answers (several answerers on one ask, a busy turn) makes
  // one read in flight and at most one after it, not one per answer.
  let reading: Promise<void> | null = null
  let again = false
  function refresh(id: string): void {
    if (reading) {
      again = true
      return
    }
    reading = read(id).finally(() => {
      reading = null
      if (again && sessionId.value) {
        again = false
        refresh(sessionId.value)
      }
    })
  }

  // The section closed: answers no longer need reading.
  function forget(): void {
    sessionId.value = null
  }

  function onPush(p: Push): void {
    if (p.type !== 'event' || !answererKinds.has(p.event.kind)) return
    if (sessionId.value === null || p.event.session_id !== sessionId.value) return
    refresh(sessionId.value)
  }

  async function setTrust(id: string, e: AnswererEntry, untrust: boolean): Promise<void> {
    busy.value = `${e.role}\u0000${e.name}`
    try {
      roster.value = await bridge.call('TrustAnswerer', {
        session_id: id,
        role: e.role,
        name: e.name,
        ...(untrust ? { untrust: true } : { config_hash: e.config_hash ?? '', program_hash: e.program_hash ?? '' }),
      })
      error.value = null
    } catch (err) {
      const failed = toBridgeError('TrustAnswerer', err)
      // What is on disk may have changed: show it as it is now, with the
      // refusal above it.
      await load(id)
      error.value = failed
    } finally {
      busy.value = ''
    }
  }

  const trust = (sessionId: string, e: AnswererEntry) => setTrust(sessionId, e, false)
  const untrust = (sessionId: string, e: AnswererEntry) => setTrust(sessionId, e, true)

  return { roster, error, loading, busy, sessionId, load, forget, onPush, trust, untrust }
})
