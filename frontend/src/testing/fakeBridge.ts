import { vi } from 'vitest'
import type { AppInfo, Bridge, Method, Methods, Push, Session, Transport } from '../bridge'

export const testInfo: AppInfo = {
  name: 'Warden',
  version: '0.1.0',
  demo: true,
  model: 'script:demo',
  caged: true,
  cage_reason: '',
  data_path: '/tmp/warden.db',
}

export function testSession(over: Partial<Session> = {}): Session {
  return {
    id: 's1',
    workspace: '/work/proj',
    title: 'Fix the tests',
    approval: 'on-request',
    sandbox: { kind: 'workspace-write', network_access: false, writable_roots: [] },
    planning: false,
    created_at: 1,
    updated_at: 2,
    busy: false,
    pending: 0,
    ...over,
  }
}

type Handlers = { [M in Method]?: (args: Methods[M][0]) => Methods[M][1] | Promise<Methods[M][1]> }

// A Bridge whose answers a test chooses; `call` is a vi.fn spy and `push`
// delivers a pushed event to every subscriber. Native dialogs follow the
// transport, as in the real bridges, unless `dialogs` says otherwise.
export function fakeBridge(opts: { transport?: Transport; handlers?: Handlers; dialogs?: boolean } = {}) {
  const listeners = new Set<(p: Push) => void>()
  const defaults: Handlers = {
    Info: () => testInfo,
    ListSessions: () => [],
    PendingApprovals: () => [],
    SessionEvents: () => [],
    ListGrants: () => [],
    AuditLog: () => [],
    FrontendReady: () => null,
  }
  const handlers = { ...defaults, ...opts.handlers } as Record<string, (a: unknown) => unknown>
  const call = vi.fn(async (method: Method, args?: unknown) => {
    const h = handlers[method]
    if (!h) throw new Error(`fakeBridge: no handler for ${method}`)
    return h(args)
  })
  const transport = opts.transport ?? 'wails'
  const bridge = {
    transport,
    native: { dialogs: opts.dialogs ?? transport === 'wails' },
    call: call as Bridge['call'],
    subscribe(fn: (p: Push) => void) {
      listeners.add(fn)
      return () => listeners.delete(fn)
    },
  } satisfies Bridge
  return { bridge, call, push: (p: Push) => listeners.forEach((l) => l(p)) }
}
