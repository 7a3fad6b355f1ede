import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { toBridgeError, useBridge, type AppInfo, type BridgeError } from '../bridge'

// What the shell knows about the running service (model, cage, data path).
export const useAppStore = defineStore('app', () => {
  const bridge = useBridge()
  const info = ref<AppInfo | null>(null)
  const infoError = ref<BridgeError | null>(null)
  const loading = ref(false)
  const transport = computed(() => bridge.transport)

  async function load(): Promise<void> {
    loading.value = true
    try {
      info.value = await bridge.call('Info')
      infoError.value = null
    } catch (e) {
      infoError.value = toBridgeError('Info', e)
    } finally {
      loading.value = false
    }
  }

  // Whether the backend answers. Under `warden serve` the page outlives the
  // server (a crash, a restart, a laptop lid): a heartbeat notices at once,
  // the status bar goes red and sending waits, with the typed text kept.
  const online = ref(true)
  let beat: ReturnType<typeof setInterval> | undefined
  let reconnected: (() => void) | undefined
  async function probe(): Promise<void> {
    try {
      info.value = await bridge.call('Info')
      infoError.value = null
      if (!online.value) {
        online.value = true
        reconnected?.()
      }
    } catch (e) {
      const err = toBridgeError('Info', e)
      if (err.code === 'network' || err.code === 'no_backend') online.value = false
    }
  }
  function startHeartbeat(everyMs = 3000, onReconnect?: () => void): () => void {
    reconnected = onReconnect
    clearInterval(beat)
    beat = setInterval(() => void probe(), everyMs)
    return () => clearInterval(beat)
  }

  return { info, infoError, loading, transport, load, online, probe, startHeartbeat }
})
