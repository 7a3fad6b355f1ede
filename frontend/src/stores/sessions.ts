import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { toBridgeError, useBridge, type ApprovalPolicy, type BridgeError, type Push, type Sandbox, type Session } from '../bridge'
import { reduceSessions } from '../model/reducers'

export const useSessionsStore = defineStore('sessions', () => {
  const bridge = useBridge()
  const list = ref<Session[]>([])
  const currentId = ref<string | null>(null)
  const error = ref<BridgeError | null>(null)

  const current = computed(() => list.value.find((s) => s.id === currentId.value) ?? null)
  // Subagent sessions are reached from their parent's ambient strip.
  const topLevel = computed(() => list.value.filter((s) => !s.parent_id && !s.archived))
  // Archived sessions: out of the list, their audit trail kept, restorable.
  const archived = computed(() => list.value.filter((s) => !s.parent_id && s.archived))

  async function guard<T>(op: string, f: () => Promise<T>): Promise<T | undefined> {
    try {
      const r = await f()
      error.value = null
      return r
    } catch (e) {
      error.value = toBridgeError(op, e)
      return undefined
    }
  }

  function upsert(s: Session) {
    list.value = reduceSessions(list.value, { type: 'session', session: s })
  }

  async function hydrate() {
    const r = await guard('ListSessions', () => bridge.call('ListSessions'))
    if (r) {
      list.value = r.slice().sort((a, b) => b.updated_at - a.updated_at)
      if (!currentId.value && topLevel.value[0]) currentId.value = topLevel.value[0].id
    }
  }

  function onPush(p: Push) {
    list.value = reduceSessions(list.value, p)
    if (p.type === 'session-deleted' && currentId.value === p.session_id) {
      currentId.value = topLevel.value[0]?.id ?? null
    }
  }

  async function create(workspace: string, title?: string) {
    const s = await guard('CreateSession', () =>
      bridge.call('CreateSession', title ? { workspace, title } : { workspace }),
    )
    if (s) {
      upsert(s)
      currentId.value = s.id
    }
    return s
  }
  const rename = async (id: string, title: string) => {
    const s = await guard('RenameSession', () => bridge.call('RenameSession', { session_id: id, title }))
    if (s) upsert(s)
  }
  // Delete in the window archives: nothing of the audit trail is lost.
  const archive = async (id: string) => {
    const s = await guard('ArchiveSession', () => bridge.call('ArchiveSession', { session_id: id }))
    if (s) {
      upsert(s)
      if (currentId.value === id) currentId.value = topLevel.value[0]?.id ?? null
    }
  }
  const restore = async (id: string) => {
    const s = await guard('RestoreSession', () => bridge.call('RestoreSession', { session_id: id }))
    if (s) {
      upsert(s)
      currentId.value = s.id
    }
  }
  // The explicit purge: events, grants and asks of the session are gone.
  const purge = async (id: string) => {
    let ok = false
    await guard('DeleteSession', async () => {
      await bridge.call('DeleteSession', { session_id: id })
      ok = true
    })
    if (ok) onPush({ type: 'session-deleted', session_id: id })
  }
  const setApproval = async (id: string, approval: ApprovalPolicy) => {
    const s = await guard('SetApprovalPolicy', () => bridge.call('SetApprovalPolicy', { session_id: id, approval }))
    if (s) upsert(s)
  }
  const setSandbox = async (id: string, sandbox: Sandbox) => {
    const s = await guard('SetSandboxPolicy', () => bridge.call('SetSandboxPolicy', { session_id: id, sandbox }))
    if (s) upsert(s)
  }
  const setPlanning = async (id: string, planning: boolean) => {
    const s = await guard('SetPlanning', () => bridge.call('SetPlanning', { session_id: id, planning }))
    if (s) upsert(s)
  }
  // send says whether the message was taken, so the composer can give a
  // refused message back to the human instead of losing it.
  const send = async (id: string, text: string): Promise<boolean> => {
    let ok = false
    await guard('SendMessage', async () => {
      await bridge.call('SendMessage', { session_id: id, text })
      ok = true
    })
    return ok
  }
  const retry = (id: string) => guard('Retry', () => bridge.call('Retry', { session_id: id }))
  const cancel = (id: string) => guard('Cancel', () => bridge.call('Cancel', { session_id: id }))
  const kill = (id: string, agentId: string) =>
    guard('KillAgent', () => bridge.call('KillAgent', { session_id: id, agent_id: agentId }))

  return {
    list, currentId, current, topLevel, archived, error, hydrate, onPush, create, rename, archive, restore, purge,
    setApproval, setSandbox, setPlanning, send, retry, cancel, kill,
  }
})
