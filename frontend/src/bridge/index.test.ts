import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BridgeError, createHttpBridge, createWailsBridge, hasWailsBindings, selectBridge } from '.'

describe('selectBridge', () => {
  // No real server: a sign-in that selectBridge starts goes nowhere.
  const pending = vi.fn((_u: string, _i?: RequestInit) => new Promise<Response>(() => {}))
  beforeEach(() => vi.stubGlobal('fetch', pending))
  afterEach(() => vi.unstubAllGlobals())
  const cases: { name: string; win: object; want: string }[] = [
    { name: 'page reloaded after signing in (cookie only)', win: { location: { href: 'http://127.0.0.1:5/', origin: 'http://127.0.0.1:5' } }, want: 'http' },
    { name: 'warden serve URL with its code', win: { location: { href: 'http://127.0.0.1:5/?code=abc', origin: 'http://127.0.0.1:5' }, history: { state: null, replaceState: () => {} } }, want: 'http' },
    { name: 'Wails bindings win', win: { go: { app: { App: {} } }, location: { href: 'http://x/?code=a', origin: 'http://x' } }, want: 'wails' },
    { name: 'App null is not Wails', win: { go: { app: { App: null } } }, want: 'none' },
    { name: 'a file page has no backend', win: { location: { href: 'file:///x/index.html', origin: 'null' } }, want: 'none' },
  ]
  for (const c of cases) it(c.name, () => expect(selectBridge(c.win).transport).toBe(c.want))

  it('hasWailsBindings', () => expect(hasWailsBindings({ go: {} })).toBe(false))

  it('takes the one-time code out of the address bar at once, keeping the rest', () => {
    const replaceState = vi.fn()
    selectBridge({
      location: { href: 'http://127.0.0.1:5/sessions/7?code=secret&tab=audit#top', origin: 'http://127.0.0.1:5' },
      history: { state: { k: 1 }, replaceState },
    })
    expect(replaceState).toHaveBeenCalledWith({ k: 1 }, '', '/sessions/7?tab=audit#top')
    expect(pending).toHaveBeenCalledWith('http://127.0.0.1:5/api/auth', expect.objectContaining({ method: 'POST', body: '{"code":"secret"}' }))
  })

  it('no backend fails with a typed no_backend error', async () => {
    const err = await selectBridge({}).call('Info').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BridgeError)
    expect((err as BridgeError).code).toBe('no_backend')
  })
})

describe('native dialogs capability', () => {
  const fn = () => Promise.resolve(null)
  const cases: { name: string; bridge: () => { native: { dialogs: boolean } }; want: boolean }[] = [
    { name: 'desktop window binding both dialogs', bridge: () => createWailsBridge({ go: { app: { App: { SaveAuditExport: fn, PickFolder: fn } } } }), want: true },
    { name: 'desktop window missing PickFolder', bridge: () => createWailsBridge({ go: { app: { App: { SaveAuditExport: fn } } } }), want: false },
    { name: 'warden serve', bridge: () => createHttpBridge({ base: 'http://h:1', fetch: fn as unknown as typeof fetch }), want: false },
    { name: 'no backend', bridge: () => selectBridge({}), want: false },
  ]
  for (const c of cases) it(c.name, () => expect(c.bridge().native.dialogs).toBe(c.want))

  it('the desktop calls carry their argument objects', async () => {
    const SaveAuditExport = vi.fn(() => Promise.resolve({ path: '/tmp/a.csv', bytes: 3 }))
    const PickFolder = vi.fn(() => Promise.resolve(''))
    const b = createWailsBridge({ go: { app: { App: { SaveAuditExport, PickFolder } } } })
    await expect(b.call('SaveAuditExport', { session_id: 's', format: 'csv' })).resolves.toEqual({ path: '/tmp/a.csv', bytes: 3 })
    await expect(b.call('PickFolder', { title: 'Workspace folder', default_directory: '/w' })).resolves.toBe('')
    expect(SaveAuditExport).toHaveBeenCalledWith({ session_id: 's', format: 'csv' })
    expect(PickFolder).toHaveBeenCalledWith({ title: 'Workspace folder', default_directory: '/w' })
  })
})

describe('Wails bridge', () => {
  it('calls window.go.app.App.<Method> with the args object', async () => {
    const RenameSession = vi.fn(() => Promise.resolve({ id: 's1' }))
    const b = createWailsBridge({ go: { app: { App: { RenameSession } } } })
    await expect(b.call('RenameSession', { session_id: 's1', title: 't' })).resolves.toEqual({ id: 's1' })
    expect(RenameSession).toHaveBeenCalledWith({ session_id: 's1', title: 't' })
  })
  it('a Go error string becomes a typed backend error', async () => {
    const b = createWailsBridge({ go: { app: { App: { Cancel: () => Promise.reject('no such session') } } } })
    await expect(b.call('Cancel', { session_id: 'x' })).rejects.toMatchObject({ code: 'backend', operation: 'Cancel', message: 'no such session' })
  })
  it('an unbound method says so', async () => {
    const b = createWailsBridge({ go: { app: { App: {} } } })
    await expect(b.call('Info')).rejects.toMatchObject({ message: 'the desktop app does not bind Info' })
  })
  it('subscribes to warden:push', () => {
    const off = vi.fn()
    const EventsOnMultiple = vi.fn(() => off)
    const b = createWailsBridge({ runtime: { EventsOnMultiple } })
    const fn = vi.fn()
    expect(b.subscribe(fn)).toBe(off)
    expect(EventsOnMultiple).toHaveBeenCalledWith('warden:push', expect.any(Function), -1)
  })
})

describe('HTTP bridge', () => {
  const reply = (status: number, body: string) => Promise.resolve(new Response(body, { status }))
  const cases: { name: string; status: number; body: string; code?: string; message?: string }[] = [
    { name: 'ok', status: 200, body: '{"name":"Warden"}' },
    { name: 'backend error', status: 400, body: '{"error":"bad arguments: x"}', code: 'backend', message: 'bad arguments: x' },
    { name: 'not signed in', status: 401, body: '{"error":"not signed in"}', code: 'unauthorized', message: 'not signed in' },
    { name: 'non-JSON error', status: 500, body: 'boom', code: 'backend', message: 'boom' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const f = vi.fn((_u: string, _i: RequestInit) => reply(c.status, c.body))
      const b = createHttpBridge({ base: 'http://h:1', token: 'tok', fetch: f as unknown as typeof fetch })
      const p = b.call('SendMessage', { session_id: 's', text: 'hi' })
      if (c.code) await expect(p).rejects.toMatchObject({ code: c.code, message: c.message, operation: 'SendMessage' })
      else await expect(p).resolves.toEqual({ name: 'Warden' })
      const [url, init] = f.mock.calls[0]!
      expect(url).toBe('http://h:1/api/SendMessage')
      expect(init.method).toBe('POST')
      expect(init.credentials).toBe('same-origin')
      expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok')
      expect(init.body).toBe('{"session_id":"s","text":"hi"}')
    })
  }

  it('signs in with the code before the first call and the socket, then never sends it again', async () => {
    const order: string[] = []
    const f = vi.fn((u: string, i: RequestInit) => {
      order.push(`${u} ${String(i.body)}`)
      return u.endsWith('/api/auth') ? reply(204, '') : reply(200, '{"name":"Warden"}')
    })
    const sockets: string[] = []
    class FakeWS {
      onopen: (() => void) | null = null
      onmessage: ((m: MessageEvent) => void) | null = null
      onclose: (() => void) | null = null
      constructor(url: string) {
        sockets.push(url)
      }
      close() {}
    }
    const b = createHttpBridge({ base: 'http://h:1', code: 'c0de', fetch: f as unknown as typeof fetch, WebSocket: FakeWS as unknown as typeof WebSocket })
    const off = b.subscribe(() => {})
    await b.call('Info')
    await b.call('Info')
    expect(order).toEqual(['http://h:1/api/auth {"code":"c0de"}', 'http://h:1/api/Info {}', 'http://h:1/api/Info {}'])
    expect(sockets).toEqual(['ws://h:1/api/ws'])
    for (const [, init] of f.mock.calls.slice(1)) expect((init.headers as Record<string, string>).Authorization).toBeUndefined()
    off()
  })

  it('a refused sign-in explains the 401 that follows', async () => {
    const f = vi.fn((u: string) =>
      u.endsWith('/api/auth') ? reply(401, '{"error":"this sign-in code was already used"}') : reply(401, '{"error":"not signed in"}'),
    )
    const b = createHttpBridge({ base: 'http://h:1', code: 'old', fetch: f as unknown as typeof fetch })
    await expect(b.call('Info')).rejects.toMatchObject({ code: 'unauthorized', message: 'not signed in (signing in failed: this sign-in code was already used)' })
  })

  it('a code already used still lets an earlier cookie through', async () => {
    const f = vi.fn((u: string) => (u.endsWith('/api/auth') ? reply(401, '{"error":"already used"}') : reply(200, '{"name":"Warden"}')))
    const b = createHttpBridge({ base: 'http://h:1', code: 'old', fetch: f as unknown as typeof fetch })
    await expect(b.call('Info')).resolves.toEqual({ name: 'Warden' })
  })
  it('a network failure is a typed network error', async () => {
    const b = createHttpBridge({ base: 'http://h:1', token: 't', fetch: (() => Promise.reject(new TypeError('fetch failed'))) as typeof fetch })
    await expect(b.call('Info')).rejects.toMatchObject({ code: 'network' })
  })
})
