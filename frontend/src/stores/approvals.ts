import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toBridgeError, useBridge, type AnswerArgs, type Approval, type BridgeError, type Push } from '../bridge'
import { reduceApprovals } from '../model/reducers'

// Every ask waiting for a human, oldest first; the prompt shows the head.
export const useApprovalsStore = defineStore('approvals', () => {
  const bridge = useBridge()
  const queue = ref<Approval[]>([])
  const error = ref<BridgeError | null>(null)
  // When each request arrived in this window (performance.now), for the
  // push-to-visible measurement the e2e test reads.
  const arrived = new Map<string, number>()

  async function hydrate() {
    try {
      queue.value = await bridge.call('PendingApprovals', {})
    } catch (e) {
      error.value = toBridgeError('PendingApprovals', e)
    }
  }

  function onPush(p: Push) {
    if (p.type === 'approval') arrived.set(p.approval.request_id, performance.now())
    queue.value = reduceApprovals(queue.value, p)
  }

  async function answer(a: AnswerArgs) {
    try {
      await bridge.call('Answer', a)
      error.value = null
      queue.value = reduceApprovals(queue.value, { type: 'approval-resolved', request_id: a.request_id })
    } catch (e) {
      error.value = toBridgeError('Answer', e)
    }
  }

  return { queue, error, arrived, hydrate, onPush, answer }
})
