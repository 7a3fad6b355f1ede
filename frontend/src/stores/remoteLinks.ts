import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toBridgeError, useBridge, type Push } from '../bridge'
import { remoteErrorText, type RemoteLinkView } from '../model/remote'

// Links that answer one live ask from another device (backend/gate/remote),
// by request id. A link dies with its ask, so an ask resolved here or
// elsewhere takes its link along.
export const useRemoteLinksStore = defineStore('remoteLinks', () => {
  const bridge = useBridge()
  const views = ref<Record<string, RemoteLinkView>>({})

  async function make(requestId: string): Promise<void> {
    views.value = { ...views.value, [requestId]: { link: null, error: '', busy: true } }
    let v: RemoteLinkView
    try {
      v = { link: await bridge.call('RemoteLink', { request_id: requestId }), error: '', busy: false }
    } catch (e) {
      v = { link: null, error: remoteErrorText(toBridgeError('RemoteLink', e)), busy: false }
    }
    // The ask may have gone meanwhile: nothing to show then.
    if (requestId in views.value) views.value = { ...views.value, [requestId]: v }
  }

  function view(requestId: string): RemoteLinkView | null {
    return views.value[requestId] ?? null
  }

  function onPush(p: Push) {
    if (p.type === 'approval-resolved' && p.request_id in views.value) {
      const { [p.request_id]: _, ...rest } = views.value
      views.value = rest
    }
  }

  return { views, make, view, onPush }
})
