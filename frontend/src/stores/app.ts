import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { toBridgeError, useBridge, type AppInfo, type BridgeError, type SandboxStatus } from '../bridge'

// What the shell knows about the running build and the machine it runs on.
export const useAppStore = defineStore('app', () => {
  const bridge = useBridge()

  const info = ref<AppInfo | null>(null)
  const infoError = ref<BridgeError | null>(null)
  const sandbox = ref<SandboxStatus | null>(null)
  const sandboxError = ref<BridgeError | null>(null)
  const loading = ref(false)

  const transport = computed(() => bridge.transport)

  // Loads both facts side by side; one failing does not hide the other.
  async function load(): Promise<void> {
    loading.value = true
    const [infoResult, sandboxResult] = await Promise.allSettled([bridge.info(), bridge.sandboxStatus()])
    if (infoResult.status === 'fulfilled') {
      info.value = infoResult.value
      infoError.value = null
    } else {
      infoError.value = toBridgeError('info', infoResult.reason)
    }
    if (sandboxResult.status === 'fulfilled') {
      sandbox.value = sandboxResult.value
      sandboxError.value = null
    } else {
      sandboxError.value = toBridgeError('sandboxStatus', sandboxResult.reason)
    }
    loading.value = false
  }

  return { info, infoError, sandbox, sandboxError, loading, transport, load }
})
