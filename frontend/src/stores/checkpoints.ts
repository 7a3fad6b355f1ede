import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toBridgeError, useBridge, type BridgeError, type UndoResult } from '../bridge'
import { askConfirm } from '../model/confirm'

// Undo of a call and restore to a message (backend/checkpoint through
// runtime.Service). The change sets themselves arrive as workspace_changed
// events in the transcript; this store only runs the two actions, asking the
// human before overwriting files a later call (or they) changed again.
export const useCheckpointsStore = defineStore('checkpoints', () => {
  const bridge = useBridge()
  // The call or message id being restored, so its button shows progress.
  const busy = ref<string | null>(null)
  const error = ref<BridgeError | null>(null)
  const last = ref<{ target: string; result: UndoResult } | null>(null)

  async function run(target: string, call: (force: boolean) => Promise<UndoResult>, method: 'UndoCall' | 'RestoreTo') {
    busy.value = target
    error.value = null
    try {
      let r = await call(false)
      if (!r.done && r.conflict) {
        const ok = await askConfirm(r.conflict.message.replace(/\. Undo those first.*$/, '.') + ' Overwrite them?', 'Overwrite')
        if (!ok) return r
        r = await call(true)
      }
      last.value = { target, result: r }
      return r
    } catch (e) {
      error.value = toBridgeError(method, e)
      return null
    } finally {
      busy.value = null
    }
  }

  function undo(sessionId: string, callId: string) {
    return run(callId, (force) => bridge.call('UndoCall', { session_id: sessionId, call_id: callId, force }), 'UndoCall')
  }

  function restoreTo(sessionId: string, messageId: string) {
    return run(messageId, (force) => bridge.call('RestoreTo', { session_id: sessionId, message_id: messageId, force }), 'RestoreTo')
  }

  return { busy, error, last, undo, restoreTo }
})
