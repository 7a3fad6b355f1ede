import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { toBridgeError, useBridge, type ApprovalPolicy, type BridgeError, type Push, type Sandbox, type Session } from '../bridge'
import { reduceSessions } from '../model/reducers'

export const useSessionsStore = defineStore('sessions', () => {
  const bridge = useBridge()
  const list = ref<Session[]>([])
  const currentId = ref<string | null>(null)
  const error = ref<BridgeError | null>(null)
  // The session an error belongs to (null: no session, e.g. the list), so
  // a failure in one session is never shown in another's chat.
  const errorSession = ref<string | null>(null)

  const current = computed(() => list.value.find((s) => s.id === currentId.value) ?? null)
  // Subagent sessions are reached from their parent's ambient strip.
  const topLevel = computed(() => list.value.filter((s) => !s.parent_id && !s.archived))
  // Whether the list has been read once (the first-run welcome waits for it).
  const hydrated = ref(false)
  // Archived sessions: out of the list, their audit trail kept, restorable.
  const archived = computed(() => list.value.filter((s) => !s.parent_id && s.archived))

  async function guard<T>(op: string, f: () => Promise<T>, sessionId: string | null = null): Promise<T | undefined> {
    try {
      const r = await f()
      if (error.value && errorSession.value === sessionId) error.value = null
      return r
    } catch (e) {
      error.value = toBridgeError(op, e)
      errorSession.value = sessionId
      return undefined
    }
  }
  // errorFor is the error to show in a session's chat: its own only.
  const errorFor = (id: string) => (error.value && errorSession.value === id ? error.value : null)

  function upsert(s: Session) {
    list.value = reduceSessions(list.value, { type: 'session', session: s })
  }

  async function hydrate() {
    const r = await guard('ListSessions', () => bridge.call('ListSessions'))
    if (r) {
      hydrated.value = true
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
    const s = await guard('RenameSession', () => bridge.call('RenameSession', { session_id: id, title }), id)
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
    const s = await guard('SetApprovalPolicy', () => bridge.call('SetApprovalPolicy', { session_id: id, approval }), id)
    if (s) upsert(s)
  }
  const setSandbox = async (id: string, sandbox: Sandbox) => {
    const s = await guard('SetSandboxPolicy', () => bridge.call('SetSandboxPolicy', { session_id: id, sandbox }), id)
    if (s) upsert(s)
  }
  const setPlanning = async (id: string, planning: boolean) => {
    const s = await guard('SetPlanning', () => bridge.call('SetPlanning', { session_id: id, planning }), id)
    if (s) upsert(s)
  }
  // send says whether the message was taken, so the composer can give a
  // refused message back to the human instead of losing it.
  const send = async (id: string, text: string): Promise<boolean> => {
    let ok = false
    await guard(
      'SendMessage',
      async () => {
        await bridge.call('SendMessage', { session_id: id, text })
        ok = true
      },
      id,
    )
    return ok
  }
  const retry = (id: string) => guard('Retry', () => bridge.call('Retry', { session_id: id }), id)
  const cancel = (id: string) => guard('Cancel', () => bridge.call('Cancel', { session_id: id }), id)
  const kill = (id: string, agentId: string) =>
    guard('KillAgent', () => bridge.call('KillAgent', { session_id: id, agent_id: agentId }), id)

  // start is the welcome's one step: a session in folder, then its first
  // message. The session stays even when the message is refused (the
  // composer then holds nothing: the welcome keeps the text).
  async function start(workspace: string, text: string): Promise<Session | undefined> {
    const s = await create(workspace)
    if (!s) return undefined
    await send(s.id, text)
    return s
  }

  return {
    list, currentId, current, topLevel, archived, error, errorSession, errorFor, hydrated, hydrate, start, onPush, create, rename, archive, restore, purge,
    setApproval, setSandbox, setPlanning, send, retry, cancel, kill,
  }
})
