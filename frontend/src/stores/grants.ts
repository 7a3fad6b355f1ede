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
    // Grants and rules are read apart: a backend that cannot list rules
    // (an older `warden serve`) still shows the grants, and says why the
    // rules are missing.
    const [r, rs] = await Promise.allSettled([bridge.call('ListGrants', { session_id: id }), bridge.call('ListRules', { session_id: id })])
    if (sessionId.value !== id) return
    if (r.status === 'fulfilled') list.value = r.value ?? []
    if (rs.status === 'fulfilled') rules.value = rs.value ?? []
    if (r.status === 'rejected') error.value = toBridgeError('ListGrants', r.reason)
    else if (rs.status === 'rejected') error.value = toBridgeError('ListRules', rs.reason)
    else error.value = null
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

  // revoke says whether it was revoked, so the window can offer Undo.
  async function revoke(g: GrantView): Promise<boolean> {
    try {
      // A workspace rule is a grant with workspace scope in the backend.
      const kind = g.kind === 'mcp-server' || g.kind === 'mcp-trust' ? g.kind : 'grant'
      await bridge.call('RevokeGrant', sessionId.value ? { id: g.id, kind, session_id: sessionId.value } : { id: g.id, kind })
      list.value = list.value.filter((x) => x.id !== g.id)
      error.value = null
      return true
    } catch (e) {
      error.value = toBridgeError('RevokeGrant', e)
      return false
    }
  }

  // restore is the Undo of a revoke, in the session it was revoked from: a
  // grant or rule comes back as it was; an MCP server is trusted again with
  // the same scope (as it is now: a server whose config changed meanwhile
  // is trusted as changed, which the human sees in the row).
  async function restore(g: GrantView, id: string): Promise<boolean> {
    const kind = g.kind === 'mcp-trust' ? 'mcp-server' : g.kind
    try {
      if (kind === 'mcp-server') {
        await bridge.call('TrustMcpServer', { session_id: id, server: g.server ?? g.id.replace(/^[a-z]+:/, ''), scope: g.scope === 'session' ? 'session' : 'workspace' })
      } else {
        await bridge.call('RestoreGrant', { session_id: id, id: g.id })
      }
      error.value = null
      if (sessionId.value === id) await load(id)
      return true
    } catch (e) {
      error.value = toBridgeError(kind === 'mcp-server' ? 'TrustMcpServer' : 'RestoreGrant', e)
      return false
    }
  }

  return { sessionId, list, rules, error, load, onPush, revoke, restore }
})
