import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toBridgeError, useBridge, type BridgeError, type ExportStatus } from '../bridge'

// The OpenTelemetry export's state (backend/telemetry): read on demand, no
// pushes. The Settings panel refreshes it while it is shown.
export const useTelemetryStore = defineStore('telemetry', () => {
  const bridge = useBridge()
  const status = ref<ExportStatus | null>(null)
  const error = ref<BridgeError | null>(null)
  const loading = ref(false)

  async function load(): Promise<void> {
    loading.value = true
    try {
      status.value = await bridge.call('TelemetryStatus')
      error.value = null
    } catch (e) {
      error.value = toBridgeError('TelemetryStatus', e)
    } finally {
      loading.value = false
    }
  }

  return { status, error, loading, load }
})
