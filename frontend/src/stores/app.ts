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

  return { info, infoError, loading, transport, load }
})
