// Pure reducers: pushed events in, new store state out. The stores hold the
// results; these functions never call the bridge.
import type { Approval, ApprovalPolicy, Push, SandboxKind, Session, WardenEvent, WorkspaceChange } from '../bridge'
import { connectionText } from './network'
import { approvalLabels, sandboxLabels } from './words'

export function reduceSessions(list: readonly Session[], p: Push): Session[] {
  switch (p.type) {
    case 'session': {
      const i = list.findIndex((s) => s.id === p.session.id)
      if (i < 0) return [p.session, ...list]
      const out = list.slice()
      out[i] = p.session
      return out
    }
    case 'session-deleted':
      return list.filter((s) => s.id !== p.session_id)
  }
  return list as Session[]
}

export function reduceApprovals(queue: readonly Approval[], p: Push): Approval[] {
  switch (p.type) {
    case 'approval':
      if (queue.some((a) => a.request_id === p.approval.request_id)) return queue as Approval[]
      return [...queue, p.approval]
    case 'approval-resolved':
      return queue.filter((a) => a.request_id !== p.request_id)
    case 'event':
      // A stored answer also resolves it (a second window may have answered).
      if (p.event.kind === 'permission_granted' || p.event.kind === 'permission_denied') {
        const id = p.event.data.request_id
        return queue.filter((a) => a.request_id !== id)
      }
      return queue as Approval[]
    case 'session-deleted':
      return queue.filter((a) => a.session_id !== p.session_id)
  }
  return queue as Approval[]
}

// One item of the chat stream.
export type Item =
  | { type: 'message'; key: string; role: string; text: string; at: number; messageId?: string }
  | {
      type: 'tool'
      key: string
      callId: string
      tool: string
      args: unknown
      output: string
      result: unknown
      error: string
      exitCode: number | null
      state: 'running' | 'done' | 'failed'
      at: number
      // Its start is on a page not loaded yet (a chat opened on its tail).
      earlier?: boolean
      // The files it changed in the workspace, and the undo that reverted it.
      changes?: WorkspaceChange
      undoneBy?: string
    }
  // An undo, a restore, or what changed between calls.
  | { type: 'change'; key: string; change: WorkspaceChange; at: number; undoneBy?: string; undid?: string }
  | { type: 'permission'; key: string; event: WardenEvent }
  | { type: 'note'; key: string; text: string; at: number }
  | { type: 'plan'; key: string; text: string; at: number }
  // A monitor's listening port reachable from the host; stopped once the
  // monitor ends (the URL then leads nowhere).
  | { type: 'devserver'; key: string; monitorId: string; port: number; url: string; detected: boolean; stopped: boolean; at: number }

export interface Agent {
  id: string
  kind: 'subagent' | 'monitor'
  label: string
  last: string
  // A background subagent stays in the strip once it ends, with its final
  // answer (or why it failed) one click away; a foreground one's answer is
  // its task call's result, so it leaves the strip.
  state?: 'done' | 'failed' | 'killed'
  result?: string
}

// What the model's answers cost, from the providers' usage fields: the
// current turn (since the human's last prompt) and the context the last
// request used. Null until a provider reports usage (the demo does not).
export interface Usage {
  turnInput: number
  turnOutput: number
  context: number
  requests: number
}

export interface Transcript {
  lastSeq: number
  items: Item[]
  streaming: string
  agents: Agent[]
  usage: Usage | null
}

export const emptyTranscript = (): Transcript => ({ lastSeq: 0, items: [], streaming: '', agents: [], usage: null })

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

// addUsage counts one assistant message's usage into the turn.
function addUsage(u: Usage | null, raw: unknown): Usage | null {
  if (!raw || typeof raw !== 'object') return u
  const r = raw as Record<string, unknown>
  const input = num(r.input_tokens)
  const ctx = num(r.context_tokens) || input + num(r.cache_read_tokens) + num(r.cache_write_tokens)
  const base = u ?? { turnInput: 0, turnOutput: 0, context: 0, requests: 0 }
  return { turnInput: base.turnInput + ctx, turnOutput: base.turnOutput + num(r.output_tokens), context: ctx, requests: base.requests + 1 }
}

const str = (v: unknown) => (typeof v === 'string' ? v : '')

function approvalText(p: string): string {
  return approvalLabels[p as ApprovalPolicy] ?? p
}

function describeSandbox(s: unknown): string {
  const o = (s ?? {}) as { kind?: SandboxKind; network_access?: boolean }
  const label = o.kind ? (sandboxLabels[o.kind] ?? o.kind) : '?'
  return `${label}${o.kind === 'workspace-write' ? (o.network_access ? ' (network on)' : ' (network off)') : ''}`
}

// A transcript being built: items is owned (mutated in place), and in batch
// mode `calls` finds a tool item by call id without scanning back.
interface Builder {
  lastSeq: number
  items: Item[]
  streaming: string
  agents: Agent[]
  usage: Usage | null
  calls: Map<string, number> | null
  // The history folded starts mid-story: a call whose start is on an older
  // page gets an item of its own instead of being dropped.
  midStory: boolean
}

type ToolItem = Extract<Item, { type: 'tool' }>

function toolIndex(b: Builder, callId: string): number {
  if (b.calls) return b.calls.get(callId) ?? -1
  for (let i = b.items.length - 1; i >= 0; i--) {
    const it = b.items[i]
    if (it && it.type === 'tool' && it.callId === callId) return i
  }
  return -1
}

function patchTool(b: Builder, e: WardenEvent, f: (it: ToolItem) => ToolItem) {
  const callId = str(e.data.call_id)
  const i = toolIndex(b, callId)
  const it = b.items[i]
  if (i >= 0 && it && it.type === 'tool') {
    b.items[i] = f(it)
    return
  }
  if (!b.midStory) return
  b.calls?.set(callId, b.items.length)
  b.items.push(
    f({
      type: 'tool',
      key: `e${e.seq}`,
      callId,
      tool: str(e.data.tool) || 'earlier call',
      args: null,
      output: '',
      result: null,
      error: '',
      exitCode: null,
      state: 'running',
      at: e.at,
      earlier: true,
    }),
  )
}

// markUndone marks the call (or the undo, restore) an undo reverted, and
// says what that was in words ("the shell.exec call"), for the undo's own
// heading; '' when it is not loaded.
function markUndone(b: Builder, target: string, by: string): string {
  for (let i = b.items.length - 1; i >= 0; i--) {
    const it = b.items[i]
    if (it?.type === 'tool' && it.callId === target) {
      b.items[i] = { ...it, undoneBy: by }
      return `the ${it.tool} call`
    }
    if (it?.type === 'change' && it.change.call_id === target) {
      b.items[i] = { ...it, undoneBy: by }
      return it.change.cause === 'outside' ? 'the changes made between calls' : `the ${it.change.cause}`
    }
  }
  return ''
}

// fold applies one event to the builder. Items already in the list are
// replaced, never changed, so a published transcript stays as it was.
function fold(b: Builder, e: WardenEvent) {
  if (e.seq <= b.lastSeq) return
  const d = e.data
  const items = b.items
  const key = `e${e.seq}`
  switch (e.kind) {
    case 'message_appended': {
      const role = str(d.role)
      if (role === 'tool') break
      const text = str(d.text)
      if (role === 'assistant') {
        b.streaming = ''
        b.usage = addUsage(b.usage, d.usage)
      }
      // A prompt starts a turn: its count starts again (the context stays
      // until the next answer says what it is).
      if (role === 'user' && !text.trimStart().startsWith('!') && b.usage) b.usage = { ...b.usage, turnInput: 0, turnOutput: 0, requests: 0 }
      const messageId = str(d.message_id)
      if (text) items.push({ type: 'message', key, role, text, at: e.at, ...(messageId ? { messageId } : {}) })
      break
    }
    case 'permission_requested':
    case 'permission_granted':
    case 'permission_denied':
      items.push({ type: 'permission', key, event: e })
      break
    case 'tool_invocation_started': {
      const callId = str(d.call_id)
      b.calls?.set(callId, items.length)
      items.push({
        type: 'tool',
        key,
        callId,
        tool: str(d.tool),
        args: d.args,
        output: '',
        result: null,
        error: '',
        exitCode: null,
        state: 'running',
        at: e.at,
      })
      break
    }
    case 'tool_output':
      patchTool(b, e, (it) => ({ ...it, output: it.output + str(d.chunk) }))
      break
    case 'tool_invocation_completed':
      patchTool(b, e, (it) => ({
        ...it,
        tool: it.earlier ? str(d.tool) || it.tool : it.tool,
        state: 'done',
        result: d.result ?? null,
        output: it.output || str(d.output),
        exitCode: typeof d.exit_code === 'number' ? d.exit_code : null,
      }))
      break
    case 'tool_invocation_failed':
      patchTool(b, e, (it) => ({
        ...it,
        tool: it.earlier ? str(d.tool) || it.tool : it.tool,
        state: 'failed',
        error: str(d.error),
      }))
      break
    case 'workspace_changed': {
      const c = d as unknown as WorkspaceChange
      const undid = c.undo_of ? markUndone(b, c.undo_of, c.call_id) : ''
      if (c.cause === 'call') {
        patchTool(b, e, (it) => ({ ...it, changes: c }))
      } else {
        items.push({ type: 'change', key, change: c, at: e.at, ...(undid ? { undid } : {}) })
      }
      break
    }
    case 'approval_policy_changed':
      items.push({ type: 'note', key, text: `Approval policy: ${approvalText(str(d.from))} → ${approvalText(str(d.to))}`, at: e.at })
      break
    case 'sandbox_policy_changed':
      items.push({ type: 'note', key, text: `Sandbox: ${describeSandbox(d.from)} → ${describeSandbox(d.to)}`, at: e.at })
      break
    case 'planning_entered':
      items.push({ type: 'note', key, text: 'Planning freeze on: actions that change things are paused', at: e.at })
      break
    case 'planning_exited':
      items.push({ type: 'note', key, text: 'Planning freeze off', at: e.at })
      break
    case 'plan_presented':
      items.push({ type: 'plan', key, text: str(d.plan), at: e.at })
      break
    case 'grant_added': {
      const g = (d.grant ?? {}) as { signature?: string; scope?: string }
      items.push({ type: 'note', key, text: `Grant added (${g.scope ?? '?'}): ${g.signature ?? ''}`, at: e.at })
      break
    }
    case 'grant_revoked':
      items.push({ type: 'note', key, text: `Grant revoked: ${str(d.signature)}`, at: e.at })
      break
    case 'mcp_server_trusted':
      items.push({ type: 'note', key, text: `MCP server trusted: ${str(d.server)}`, at: e.at })
      break
    case 'mcp_server_untrusted':
      items.push({ type: 'note', key, text: `MCP server untrusted: ${str(d.server)}`, at: e.at })
      break
    case 'subagent_started':
      b.agents = [...b.agents, { id: str(d.subagent_id), kind: 'subagent', label: str(d.task) || 'subagent', last: '' }]
      break
    case 'subagent_finished': {
      const id = str(d.subagent_id)
      if (d.background !== true) {
        b.agents = b.agents.filter((a) => a.id !== id)
        break
      }
      const state = d.killed === true ? 'killed' : str(d.error) ? 'failed' : 'done'
      const result = state === 'done' ? str(d.result) : str(d.error)
      b.agents = b.agents.map((a) => (a.id === id ? { ...a, state, result } : a))
      break
    }
    case 'monitor_started':
      b.agents = [...b.agents, { id: str(d.monitor_id), kind: 'monitor', label: str(d.command), last: '' }]
      break
    case 'monitor_event':
      b.agents = b.agents.map((a) => (a.id === str(d.monitor_id) ? { ...a, last: str(d.line) } : a))
      break
    case 'monitor_port_exposed':
      items.push({
        type: 'devserver',
        key,
        monitorId: str(d.monitor_id),
        port: Number(d.port ?? 0),
        url: str(d.url),
        detected: d.detected === true,
        stopped: false,
        at: e.at,
      })
      break
    case 'monitor_stopped': {
      const id = str(d.monitor_id)
      b.agents = b.agents.filter((a) => a.id !== id)
      items.forEach((it, i) => {
        if (it.type === 'devserver' && it.monitorId === id) items[i] = { ...it, stopped: true }
      })
      break
    }
    case 'network_connection': {
      // One line per destination and outcome: npm's ten connections to
      // the registry read as one line with a count.
      const text = connectionText(d)
      const last = items[items.length - 1]
      const m = last && last.type === 'note' ? /^(.*?)(?: ×(\d+))?$/.exec(last.text) : null
      if (last && last.type === 'note' && m && m[1] === text) {
        items[items.length - 1] = { ...last, text: `${text} ×${Number(m[2] ?? '1') + 1}` }
      } else {
        items.push({ type: 'note', key, text, at: e.at })
      }
      break
    }
  }
  b.lastSeq = e.seq
}

const publish = (b: Builder): Transcript => ({ lastSeq: b.lastSeq, items: b.items, streaming: b.streaming, agents: b.agents, usage: b.usage })

// applyEvent folds one stored event into the transcript. Events at or below
// lastSeq were already folded (hydration and the live stream overlap).
export function applyEvent(t: Transcript, e: WardenEvent): Transcript {
  if (e.seq <= t.lastSeq) return t
  const b: Builder = { ...t, items: t.items.slice(), calls: null, midStory: false }
  fold(b, e)
  return publish(b)
}

// applyEvents folds a batch with one copy of the item list and a call-id
// index, so hydrating n events costs O(n) rather than applyEvent's O(n²).
// The result equals folding the events one by one with applyEvent. With
// midStory (the events are a tail page, their start not loaded) tool events
// whose call started earlier get an item marked `earlier`.
export function applyEvents(t: Transcript, evs: readonly WardenEvent[], midStory = false): Transcript {
  if (evs.length === 0) return t
  const b: Builder = { ...t, items: t.items.slice(), calls: new Map(), midStory }
  t.items.forEach((it, i) => {
    if (it.type === 'tool') b.calls!.set(it.callId, i)
  })
  for (const e of evs) fold(b, e)
  return b.lastSeq === t.lastSeq ? t : publish(b)
}

export function reduceTranscript(t: Transcript, p: Push): Transcript {
  if (p.type === 'event') return applyEvent(t, p.event)
  if (p.type === 'delta') return { ...t, streaming: t.streaming + p.text }
  return t
}

// foldHistory folds a loaded stretch of a session (oldest first) into a
// fresh transcript, keeping the live streaming text: called again with an
// older page prepended, it gives what folding from the very start gives once
// the first event is loaded. Refolding rather than merging keeps one code
// path; it is linear, so revealing a page costs one pass over what is loaded.
export function foldHistory(evs: readonly WardenEvent[], midStory: boolean, streaming = ''): Transcript {
  const t = applyEvents(emptyTranscript(), evs, midStory)
  return streaming ? { ...t, streaming } : t
}
