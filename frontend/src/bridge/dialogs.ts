import { inject, ref } from 'vue'
import { toBridgeError, type BridgeError } from './errors'
import { BridgeKey } from './key'

// The folder picker for a typed path field. Components that use it also
// render without a bridge (their prop-only tests), so the bridge is optional
// here: without one, or on a transport without native dialogs, canBrowse is
// false and the field stays typed only.
export function useFolderPicker() {
  const bridge = inject(BridgeKey, null)
  const canBrowse = bridge?.native.dialogs === true
  const picking = ref(false)
  const error = ref<BridgeError | null>(null)

  // Resolves to the chosen folder, or null when the picker was cancelled or
  // failed (error then says why).
  async function pick(title: string, current: string): Promise<string | null> {
    if (!bridge || !canBrowse) return null
    picking.value = true
    error.value = null
    try {
      const path = await bridge.call('PickFolder', { title, default_directory: current.trim() })
      return path || null
    } catch (e) {
      error.value = toBridgeError('PickFolder', e)
      return null
    } finally {
      picking.value = false
    }
  }
  return { canBrowse, picking, error, pick }
}
