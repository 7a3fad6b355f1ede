import { vi } from 'vitest'
import type { AppInfo, Bridge, McpServer, Method, Methods, Push, Session, Settings, Transport } from '../bridge'

export const testInfo: AppInfo = {
  name: 'Warden',
  version: '0.1.0',
  demo: true,
  model: 'script:demo',
  caged: true,
  cage_reason: '',
  data_path: '/tmp/warden.db',
  start_dir: '/work/proj',
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

export function testSettings(over: Partial<Settings> = {}): Settings {
  return {
    config_path: '/home/u/.config/warden/config.toml',
    model: {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      base_url: '',
      api_key_set: true,
      api_key_source: 'config',
      api_key_hint: '…a1B2',
    },
    active_model: 'anthropic:claude-sonnet-4-5',
    defaults: { approval: 'on-request', sandbox: { kind: 'workspace-write', network_access: false, writable_roots: [] } },
    providers: [
      { id: 'demo', label: 'Demo (no key)', needs_key: false, default_base_url: '', default_model: '' },
      { id: 'anthropic', label: 'Anthropic', needs_key: true, default_base_url: 'https://api.anthropic.com', default_model: 'claude-sonnet-4-5' },
      { id: 'openai', label: 'OpenAI or compatible', needs_key: true, default_base_url: 'https://api.openai.com/v1', default_model: 'gpt-4.1' },
      { id: 'script', label: 'Script file', needs_key: false, default_base_url: '', default_model: '' },
    ],
    warnings: [],
    network: { presets: [], enabled: [], allow: [], deny: [], command_line: [] },
    ...over,
  }
}

// An undefined field in over removes it (e.g. trust: undefined = never trusted).
export function testMcpServer(over: { [K in keyof McpServer]?: McpServer[K] | undefined } = {}): McpServer {
  const s: Record<string, unknown> = {
    name: 'fs',
    transport: 'stdio',
    source: '/home/u/.config/warden/config.toml',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
    state: 'running',
    log_path: '/home/u/.local/share/warden/mcp/fs.log',
    restarts: 0,
    trust: { scope: 'persistent', trusted_at: '2026-11-30T05:00:00Z', config_matches: true },
    tools: [{ name: 'read_file', gate_name: 'mcp.fs.read_file', description: 'Read a file', trusted: true }],
    ...over,
  }
  for (const k of Object.keys(s)) if (s[k] === undefined) delete s[k]
  return s as unknown as McpServer
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
    GetSettings: () => testSettings(),
    McpServers: () => [],
    McpPending: () => [],
    Answerers: (a) => ({ session_id: a.session_id, entries: [], last: [], human_last: 'you' }),
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
