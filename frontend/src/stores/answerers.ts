import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toBridgeError, useBridge, type AnswererEntry, type AnswererRoster, type BridgeError } from '../bridge'

// A session's answerers and hooks (backend/gate/lineup): who answers an ask
// before the human, their state and their last answers. Read on demand by
// the Settings section; trust is given for what the card showed (the hashes
// go along, so a file changed since then is refused by the backend).
export const useAnswerersStore = defineStore('answerers', () => {
  const bridge = useBridge()
  const roster = ref<AnswererRoster | null>(null)
  const error = ref<BridgeError | null>(null)
  const loading = ref(false)
  // The entry being trusted or untrusted ("role\u0000name"), so its button waits.
  const busy = ref('')

  async function load(sessionId: string): Promise<void> {
    loading.value = true
    try {
      roster.value = await bridge.call('Answerers', { session_id: sessionId, last: 10 })
      error.value = null
    } catch (e) {
      error.value = toBridgeError('Answerers', e)
    } finally {
      loading.value = false
    }
  }

  async function setTrust(sessionId: string, e: AnswererEntry, untrust: boolean): Promise<void> {
    busy.value = `${e.role}\u0000${e.name}`
    try {
      roster.value = await bridge.call('TrustAnswerer', {
        session_id: sessionId,
        role: e.role,
        name: e.name,
        ...(untrust ? { untrust: true } : { config_hash: e.config_hash ?? '', program_hash: e.program_hash ?? '' }),
      })
      error.value = null
    } catch (err) {
      const failed = toBridgeError('TrustAnswerer', err)
      // What is on disk may have changed: show it as it is now, with the
      // refusal above it.
      await load(sessionId)
      error.value = failed
    } finally {
      busy.value = ''
    }
  }

  const trust = (sessionId: string, e: AnswererEntry) => setTrust(sessionId, e, false)
  const untrust = (sessionId: string, e: AnswererEntry) => setTrust(sessionId, e, true)

  return { roster, error, loading, busy, load, trust, untrust }
})
