import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toBridgeError, useBridge, type BridgeError, type McpPendingServer, type McpTrustScope, type Push } from '../bridge'

// Events after which a session's untrusted servers are read again: a trust
// given or revoked (here, at a prompt, in Grants or from another window).
const trustKinds = new Set(['mcp_server_trusted', 'mcp_server_untrusted'])

// The MCP trust card of each session: the servers of its workspace
// (.mcp.json, .warden/config.toml) it has not trusted, as the backend lists
// them. "Not now" hides the card for the session until the list changes.
export const useMcpTrustStore = defineStore('mcpTrust', () => {
  const bridge = useBridge()
  const pending = ref<Record<string, McpPendingServer[]>>({})
  const dismissed = ref<Record<string, string>>({})
  const busy = ref<Record<string, string>>({}) // session → server being trusted
  const error = ref<Record<string, BridgeError | null>>({})

  // What the card shows; the key names the list so a dismissal covers only
  // the servers it saw.
  const key = (list: McpPendingServer[]) => list.map((s) => `${s.name}\u0000${s.launch}`).join('\u0001')

  async function load(sessionId: string) {
    try {
      const r = (await bridge.call('McpPending', { session_id: sessionId })) ?? []
      pending.value = { ...pending.value, [sessionId]: r }
      error.value = { ...error.value, [sessionId]: null }
    } catch (e) {
      error.value = { ...error.value, [sessionId]: toBridgeError('McpPending', e) }
    }
  }

  function card(sessionId: string): McpPendingServer[] {
    const list = pending.value[sessionId] ?? []
    if (list.length === 0 || dismissed.value[sessionId] === key(list)) return []
    return list
  }

  async function trust(sessionId: string, server: string, scope: McpTrustScope) {
    busy.value = { ...busy.value, [sessionId]: server }
    try {
      await bridge.call('TrustMcpServer', { session_id: sessionId, server, scope })
      await load(sessionId)
    } catch (e) {
      error.value = { ...error.value, [sessionId]: toBridgeError('TrustMcpServer', e) }
    } finally {
      const { [sessionId]: _, ...rest } = busy.value
      busy.value = rest
    }
  }

  function dismiss(sessionId: string) {
    dismissed.value = { ...dismissed.value, [sessionId]: key(pending.value[sessionId] ?? []) }
  }

  // A turn starting or ending re-reads the card too: an edit of .mcp.json
  // (which the backend watches) shows without reopening the session.
  const busyOf: Record<string, boolean> = {}
  function onPush(p: Push) {
    if (p.type === 'event' && trustKinds.has(p.event.kind) && p.event.session_id in pending.value) {
      void load(p.event.session_id)
    }
    if (p.type === 'session' && p.session.id in pending.value && busyOf[p.session.id] !== p.session.busy) {
      const known = p.session.id in busyOf
      busyOf[p.session.id] = p.session.busy
      if (known) void load(p.session.id)
    }
    if (p.type === 'session-deleted') {
      const { [p.session_id]: _, ...rest } = pending.value
      pending.value = rest
    }
  }

  return { pending, dismissed, busy, error, load, card, trust, dismiss, onPush }
})
