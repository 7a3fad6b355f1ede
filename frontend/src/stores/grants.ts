import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toBridgeError, useBridge, type BridgeError, type GrantView, type Push, type RuleView } from '../bridge'

const grantKinds = new Set(['grant_added', 'grant_revoked', 'mcp_server_trusted', 'mcp_server_untrusted'])

// The grants, rules and trusts of the open session, re-read whenever a grant
// event for it arrives (uses and expiry live only in the backend).
export const useGrantsStore = defineStore('grants', () => {
  const bridge = useBridge()
  const sessionId = ref<string | null>(null)
  const list = ref<GrantView[]>([])
  // The rules the session decides under (organisation, user, workspace):
  // read-only here, edited in their files.
  const rules = ref<RuleView[]>([])
  const error = ref<BridgeError | null>(null)

  async function load(id: string) {
    sessionId.value = id
    try {
      const [r, rs] = await Promise.all([bridge.call('ListGrants', { session_id: id }), bridge.call('ListRules', { session_id: id })])
      if (sessionId.value === id) {
        list.value = r ?? []
        rules.value = rs ?? []
      }
      error.value = null
    } catch (e) {
      error.value = toBridgeError('ListGrants', e)
    }
  }

  function onPush(p: Push) {
    if (p.type === 'event' && p.event.session_id === sessionId.value && grantKinds.has(p.event.kind)) {
      void load(p.event.session_id)
    }
    // A grant's use count moves when it allows a call.
    if (p.type === 'event' && p.event.kind === 'permission_granted' && p.event.session_id === sessionId.value) {
      const src = String(p.event.data.source ?? '')
      if (src.startsWith('session-grant:') || src.startsWith('workspace-rule:')) void load(p.event.session_id)
    }
  }

  async function revoke(g: GrantView) {
    try {
      // A workspace rule is a grant with workspace scope in the backend.
      const kind = g.kind === 'mcp-server' || g.kind === 'mcp-trust' ? g.kind : 'grant'
      await bridge.call('RevokeGrant', sessionId.value ? { id: g.id, kind, session_id: sessionId.value } : { id: g.id, kind })
      list.value = list.value.filter((x) => x.id !== g.id)
      error.value = null
    } catch (e) {
      error.value = toBridgeError('RevokeGrant', e)
    }
  }

  return { sessionId, list, rules, error, load, onPush, revoke }
})
